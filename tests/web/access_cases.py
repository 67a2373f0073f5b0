"""The access matrix's table: every URL pattern of the site, the real address it is checked at, and what
each kind of visitor gets from it with each method (tests/web/test_access_matrix.py runs it).

Roles:

* ``anonymous``: not logged in.
* ``nonplayer``: logged in, seated in no match the address is about.
* ``player``: seated in the match the address is about (``Case.subject``); for an address about no match,
  the user it concerns (the signed-up league player, the profile's owner, the settings' owner).
* ``other``: seated in a different match.
* ``moderator``: in the Moderators group (staff status, no superuser).
* ``seated_moderator``: a moderator too, who held a seat in the match the address is about (sam: another
  moderator handed his seat to bob, so only the hand-over's record remembers it). He may not moderate
  that match; everywhere else he gets what ``moderator`` gets, unless a case says otherwise.
* ``staff``: a superuser, for the Django admin.

Addresses and form data are templates filled from the world (``World.values``): ``{live}`` is a Wall Go
match in play (alice to move against bob), ``{open}`` an open Wall Go match dave waits in, ``{stairways}``
a Walls and Stairways match in play (alice and bob hold hands), and so on.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.test import Client
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from rest_framework.authtoken.models import Token

from accounts.unsubscribe import unsubscribe_token
from chat import services as chat_services
from games import services
from games.engines.stairways.rules import CARDS
from games.models import Match
from leagues import services as league_services
from moderation import services as moderation_services
from tests.conftest import PASSWORD
from tests.support.stairways import position_arrange

ROLES = ("anonymous", "nonplayer", "player", "other", "moderator", "seated_moderator", "staff")
METHODS = ("get", "post", "delete")


@dataclass(frozen=True)
class Expect:
    """What one role gets from one method of one address."""

    status: int
    to: str | None = None  # a redirect's target: a path template, LOGIN or ADMIN_LOGIN
    changes: bool = False  # True: the request must change the database; False: it must change nothing
    flash: str | None = None  # the level of the message a redirect leaves for the next page


LOGIN_PAGE = "login"  # /accounts/login/?next=<the address asked for>
ADMIN_LOGIN_PAGE = "admin-login"  # /admin/login/?next=<the address asked for>

OK = Expect(200)
LOGIN = Expect(302, to=LOGIN_PAGE)
ADMIN_LOGIN = Expect(302, to=ADMIN_LOGIN_PAGE)
UNAUTHENTICATED = Expect(401)  # the API: JSON, with a WWW-Authenticate challenge
FORBIDDEN = Expect(403)
HIDDEN = Expect(404)  # the moderation pages do not show that they exist
NOT_ALLOWED = Expect(405)
CONFLICT = Expect(409)


def done(to: str, *, status: int = 302) -> Expect:
    """A write that is carried out: it changes the database, and a redirect says so."""
    return Expect(status, to=to, changes=True, flash="success" if status == 302 else None)


def refused(to: str) -> Expect:
    """The site's way of refusing an action on a page: back to the page with the reason, nothing changed."""
    return Expect(302, to=to, flash="error")


def by_role(default: Expect, **overrides: Expect) -> dict[str, Expect]:
    unknown = set(overrides) - set(ROLES)
    assert not unknown, f"unknown roles {unknown}"
    if "moderator" in overrides:
        overrides.setdefault("seated_moderator", overrides["moderator"])
    return {role: overrides.get(role, default) for role in ROLES}


def everyone(expect: Expect) -> dict[str, Expect]:
    return by_role(expect)


def members(expect: Expect, *, anonymous: Expect = LOGIN, **overrides: Expect) -> dict[str, Expect]:
    """Logged-in users get ``expect``; anonymous visitors are sent to log in."""
    return by_role(expect, anonymous=anonymous, **overrides)


def moderators(expect: Expect, *, seated: Expect | None = None) -> dict[str, Expect]:
    """A moderation page: moderators (and superusers, who hold every permission) only; 404 to the rest.
    ``seated``: what a moderator who holds or held a seat in the match gets instead."""
    return by_role(HIDDEN, moderator=expect, staff=expect, seated_moderator=seated or expect)


def moderation_write(expect: Expect, *, seated: Expect | None = None) -> dict[str, dict[str, Expect]]:
    return {"post": moderators(expect, seated=seated), "get": moderators(NOT_ALLOWED)}


@dataclass(frozen=True)
class Case:
    path: str  # a template filled from World.values
    get: dict[str, Expect] | None = None
    post: dict[str, Expect] | None = None
    delete: dict[str, Expect] | None = None
    data: dict[str, Any] = field(default_factory=dict)  # the body of a POST, a template too
    subject: str = "site"  # which match "player" and "other" are about (SUBJECTS)
    public: bool = False  # anyone may read it: spectators, profiles, leaderboards
    json: bool = False  # an API endpoint: every answer is JSON, errors carry a "detail" sentence
    csrf_exempt: bool = False  # a POST that by design needs no CSRF token (said why in the view)

    def methods(self) -> dict[str, dict[str, Expect]]:
        return {method: getattr(self, method) for method in METHODS if getattr(self, method) is not None}


def reads(path: str, expect: dict[str, Expect], *, write: Expect | None = NOT_ALLOWED, **kwargs: Any) -> Case:
    """A GET-only page: a POST is refused (405) whoever asks (``write=None``: the view takes any method)."""
    return Case(path=path, get=expect, post=everyone(write) if write else None, **kwargs)


def post_only(path: str, post: dict[str, Expect], *, get: Expect = NOT_ALLOWED, **kwargs: Any) -> Case:
    """A form's target: only POST; a GET is 405 (before the log-in check, so for anyone)."""
    return Case(path=path, post=post, get=everyone(get), **kwargs)


def api_write(path: str, post: dict[str, Expect], **kwargs: Any) -> Case:
    """An API action: 401 to anonymous callers whatever the method, 405 to others for a GET."""
    get = by_role(NOT_ALLOWED, anonymous=UNAUTHENTICATED)
    return Case(path=path, post=post, get=get, json=True, **kwargs)


# The site's own pages answer with these; {x} is a World.values key.
LIVE = "/matches/{live}/"
OPEN = "/matches/{open}/"
STAIRWAYS = "/matches/{stairways}/"
SEASON = "/leagues/{league}/seasons/1/"
SETTINGS = "/accounts/settings/"
MY_MATCHES = "/me/matches/"
NEW_MATCH = r"re:/matches/\d+/"  # a match created by the request
NEW_API_MATCH = r"re:/api/matches/\d+/"

LEAGUE_FORM = {
    "name": "Matrix league",
    "players_per_match": "2",
    "move_time": "3",
    "move_time_unit": "days",
    "timeout_policy": "skip",
    "division_size": "8",
    "meetings": "1",
    "points_by_place": "1, 0",
    "promotion_places": "2",
}

CASES: dict[str, Case] = {
    # --- health and the API ------------------------------------------------------------------------
    "healthz": reads(path="/healthz", expect=everyone(OK), public=True),
    "api-root": reads(path="/api/", expect=everyone(OK), public=True, json=True),
    "api-ping": reads(path="/api/ping/", expect=everyone(OK), public=True, json=True),
    "api-games": reads(path="/api/games/", expect=everyone(OK), public=True, json=True),
    "api-matches": Case(
        path="/api/matches/",
        get=everyone(OK),
        post=by_role(done(NEW_API_MATCH, status=201), anonymous=UNAUTHENTICATED),
        data={"game": "wallgo", "seat_count": 2},
        public=True,
        json=True,
    ),
    "api-match": Case(
        path="/api/matches/{live}/",
        # Reading its own match marks the seat present (holds back its e-mails): a write.
        get=by_role(OK, player=Expect(200, changes=True)),
        post=everyone(NOT_ALLOWED),
        delete=everyone(NOT_ALLOWED),
        subject="live",
        public=True,
        json=True,
    ),
    "api-match-join": api_write(
        "/api/matches/{open}/join/",
        by_role(Expect(200, changes=True), anonymous=UNAUTHENTICATED, player=CONFLICT),
        subject="open",
    ),
    "api-match-leave": api_write(
        "/api/matches/{open}/leave/",
        by_role(FORBIDDEN, anonymous=UNAUTHENTICATED, player=Expect(200, changes=True)),
        subject="open",
    ),
    "api-match-resign": api_write(
        "/api/matches/{live}/resign/",
        by_role(FORBIDDEN, anonymous=UNAUTHENTICATED, player=Expect(200, changes=True)),
        subject="live",
    ),
    "api-match-legal-moves": Case(
        path="/api/matches/{live}/legal-moves/",
        get=by_role(OK, anonymous=UNAUTHENTICATED),
        post=by_role(NOT_ALLOWED, anonymous=UNAUTHENTICATED),
        subject="live",
        json=True,
    ),
    "api-match-moves": api_write(
        "/api/matches/{live}/moves/",
        by_role(FORBIDDEN, anonymous=UNAUTHENTICATED, player=Expect(201, changes=True)),
        data={"move": "{move}", "version": "{version}"},
        subject="live",
    ),
    "api-match-log": reads(
        path="/api/matches/{live}/log/", expect=everyone(OK), subject="live", public=True, json=True
    ),
    # A seat's own conditional moves: only its player reads or clears them (alice has none: it is her move).
    "api-match-forecast": Case(
        path="/api/matches/{live}/forecast/",
        get=by_role(FORBIDDEN, anonymous=UNAUTHENTICATED, player=OK),
        post=by_role(NOT_ALLOWED, anonymous=UNAUTHENTICATED),
        delete=by_role(FORBIDDEN, anonymous=UNAUTHENTICATED, player=Expect(204)),
        subject="live",
        json=True,
    ),
    "api-schema": reads(path="/api/schema/", expect=everyone(OK), public=True),
    "api-docs": reads(path="/api/docs/", expect=everyone(OK), public=True),
    "api-redoc": reads(path="/api/redoc/", expect=everyone(OK), public=True),
    # The browsable API's log-in and log-out: Django's own views, with the site's session.
    "rest_framework:login": Case(
        path="/api/auth/login/",
        get=everyone(OK),
        post=everyone(Expect(302, to=MY_MATCHES, changes=True)),
        data={"username": "frank", "password": PASSWORD},
    ),
    "rest_framework:logout": post_only("/api/auth/logout/", everyone(Expect(302, to="/"))),
    # Anything else under /api/: a JSON 404, and no CSRF check stands in front of it.
    "games.api.errors.not_found": Case(
        path="/api/no-such-endpoint/",
        get=everyone(HIDDEN),
        post=everyone(HIDDEN),
        json=True,
        csrf_exempt=True,
    ),
    # --- accounts ---------------------------------------------------------------------------------
    "signup": Case(
        path="/accounts/signup/",
        get=by_role(Expect(302, to=MY_MATCHES), anonymous=OK),
        post=by_role(Expect(302, to=MY_MATCHES), anonymous=Expect(302, to=MY_MATCHES, changes=True)),
        delete=everyone(NOT_ALLOWED),
        data={
            "username": "newcomer",
            "email": "newcomer@example.com",
            "password1": "another-long-password-77",
            "password2": "another-long-password-77",
        },
    ),
    "login": Case(
        path="/accounts/login/",
        get=everyone(OK),
        post=everyone(Expect(302, to=MY_MATCHES, changes=True)),
        data={"username": "frank", "password": PASSWORD},
    ),
    "logout": post_only("/accounts/logout/", everyone(Expect(302, to="/"))),
    "password_reset": Case(
        path="/accounts/password-reset/",
        get=everyone(OK),
        post=everyone(Expect(302, to="/accounts/password-reset/sent/")),
        data={"email": "frank@example.com"},
    ),
    "password_reset_done": reads(path="/accounts/password-reset/sent/", expect=everyone(OK)),
    # A real link from the e-mail: it moves the token into the session, then asks for the new password.
    "password_reset_confirm": Case(
        path="/accounts/reset/{reset_uid}/{reset_token}/",
        get=everyone(Expect(302, to="/accounts/reset/{reset_uid}/set-password/")),
        post=everyone(Expect(302, to="/accounts/reset/{reset_uid}/set-password/")),
    ),
    "password_reset_complete": reads(path="/accounts/reset/done/", expect=everyone(OK)),
    "password_change": Case(
        path="/accounts/password-change/",
        get=members(OK),
        post=members(Expect(302, to="/accounts/password-change/done/", changes=True)),
        data={
            "old_password": PASSWORD,
            "new_password1": "a-new-long-password-31",
            "new_password2": "a-new-long-password-31",
        },
    ),
    "password_change_done": Case(path="/accounts/password-change/done/", get=members(OK)),
    "account-settings": Case(
        path=SETTINGS,
        get=members(OK),
        post=members(done(SETTINGS)),
        delete=everyone(NOT_ALLOWED),
        data={"time_zone": "Europe/Paris", "notify": "digest", "reminder_hours": "24, 2", "digest_hour": "7"},
    ),
    "calendar-token-reset": post_only("/accounts/settings/calendar/", members(done(SETTINGS))),
    # The new key is shown in this answer only, so it is a page, not a redirect.
    "api-token-create": post_only("/accounts/settings/api-token/", members(Expect(200, changes=True))),
    "api-token-revoke": post_only("/accounts/settings/api-token/revoke/", members(done(SETTINGS))),
    # The signed token is the key: GET only shows the page (mail scanners fetch links), POST unsubscribes.
    "unsubscribe": Case(
        path="/accounts/unsubscribe/{unsubscribe}/",
        get=everyone(OK),
        post=everyone(Expect(200, changes=True)),
        csrf_exempt=True,
    ),
    "profile": reads(path="/players/alice/", expect=everyone(OK), public=True),
    # --- chat ---------------------------------------------------------------------------------------
    "chat-post": post_only(
        "/matches/{live}/chat/",
        # A message sent is its own confirmation: no flash message.
        members(refused(LIVE + "#chat"), player=Expect(302, to=LIVE + "#chat", changes=True)),
        data={"text": "Well played so far."},
        subject="live",
    ),
    # Only the match's creator chooses, before it starts, whether spectators read the chat.
    "chat-spectators": post_only(
        "/matches/{open}/chat/spectators/",
        members(refused(OPEN + "#chat"), player=done(OPEN + "#chat")),
        data={"allowed": "1"},
        subject="open",
    ),
    # --- moderation ---------------------------------------------------------------------------------
    "moderation-queue": Case(path="/moderation/", get=moderators(OK), post=moderators(NOT_ALLOWED)),
    "moderation-report-assign": Case(
        path="/moderation/reports/{report}/assign/", **moderation_write(done("/moderation/"))
    ),
    "moderation-report-resolve": Case(
        path="/moderation/reports/{report}/resolve/",
        **moderation_write(done("/moderation/")),
        data={"note": "Talked to both players.", "outcome": "resolve"},
    ),
    "moderation-actions": Case(path="/moderation/actions/", get=moderators(OK), post=moderators(NOT_ALLOWED)),
    # Every seat's hand, shown with a recorded reason: the answer is the page itself.
    "moderation-match-secrets": Case(
        path="/moderation/matches/{stairways}/secrets/",
        **moderation_write(Expect(200, changes=True), seated=refused(STAIRWAYS + "#moderation")),
        data={"reason": "A report of cheating."},
        subject="stairways",
    ),
    "moderation-match-action": Case(
        path="/moderation/matches/{live}/{action}/",
        **moderation_write(done(LIVE + "#moderation"), seated=refused(LIVE + "#moderation")),
        data={"reason": "Looking into a report."},
        subject="live",
    ),
    "moderation-message-hide": Case(
        path="/moderation/messages/{message}/hide/",
        **moderation_write(done(LIVE + "#chat"), seated=refused(LIVE + "#chat")),
        data={"reason": "Rude."},
        subject="live",
    ),
    "moderation-user": Case(path="/moderation/users/bob/", get=moderators(OK), post=moderators(NOT_ALLOWED)),
    "moderation-user-suspend": Case(
        path="/moderation/users/bob/suspend/",
        **moderation_write(done("/moderation/users/bob/")),
        data={"kind": "suspension", "length": "3", "unit": "days", "reason": "Stalling in every match."},
    ),
    "moderation-suspension-lift": Case(
        path="/moderation/suspensions/{suspension}/lift/",
        **moderation_write(done("/moderation/")),
        data={"reason": "The appeal is accepted."},
    ),
    # Anyone logged in may report the players of a match (alice reported bob already, for stalling).
    "report-create": Case(
        path="/reports/new/?match={live}",
        get=members(OK),
        post=members(done(LIVE)),
        data={"match": "{live}", "reported": "{bob_id}", "reason": "abuse", "details": "Insults."},
        subject="live",
    ),
    # --- ratings and leagues ------------------------------------------------------------------------
    "leaderboards": reads(path="/ratings/", expect=everyone(OK), public=True),
    "leaderboard": reads(path="/ratings/wallgo/", expect=everyone(OK), public=True),
    "leagues": reads(path="/leagues/", expect=everyone(OK), public=True),
    "league-detail": reads(path="/leagues/{league}/", expect=everyone(OK), public=True),
    "league-season": reads(path=SEASON, expect=everyone(OK), public=True),
    # Opening a season is the organiser's: the league's creator, or an admin who may change leagues (the
    # superuser), not a moderator. {quiet_league} has no season yet.
    "league-season-open": post_only(
        "/leagues/{quiet_league}/seasons/new/",
        members(FORBIDDEN, staff=done("/leagues/{quiet_league}/seasons/1/")),
        data={"starts_at": "{next_week}"},
    ),
    # alice ("player") has signed up for season 1 already.
    "league-signup": post_only(SEASON + "signup/", members(done(SEASON), player=refused(SEASON))),
    "league-withdraw": post_only(SEASON + "withdraw/", members(refused(SEASON), player=done(SEASON))),
    "league-season-start": post_only(SEASON + "start/", members(refused(SEASON), staff=done(SEASON))),
    # Any player may organise a league; its settings are the organiser's (root's, here), and closing it
    # is the organiser's or a moderator's.
    "league-create": Case(
        path="/leagues/new/",
        get=members(OK),
        post=members(done("/leagues/matrix-league/")),
        delete=everyone(NOT_ALLOWED),
        data={**LEAGUE_FORM, "slug": "matrix-league", "game": "wallgo"},
    ),
    "league-settings": Case(
        path="/leagues/{league}/settings/",
        get=members(FORBIDDEN, staff=OK),
        post=members(FORBIDDEN, staff=done("/leagues/{league}/")),
        delete=everyone(NOT_ALLOWED),
        data=LEAGUE_FORM,
    ),
    "league-close": post_only(
        "/leagues/{quiet_league}/close/",
        members(
            FORBIDDEN, moderator=done("/leagues/{quiet_league}/"), staff=done("/leagues/{quiet_league}/")
        ),
        data={"note": "Nobody plays here."},
    ),
    # --- games --------------------------------------------------------------------------------------
    "lobby": reads(path="/", expect=everyone(OK), public=True),
    "favicon": reads(path="/favicon.ico", expect=everyone(Expect(302, to="/static/favicon.svg"))),
    "game-list": reads(path="/games/", expect=everyone(OK), public=True),
    "game-rules": reads(path="/games/wallgo/rules/", expect=everyone(OK), public=True),
    "my-matches": reads(path=MY_MATCHES, expect=members(OK)),
    # The poll behind My matches and the header's badge: JSON parts for a member, a 403 with the reason
    # to a visitor (a script asks, not a person, so no log-in page).
    "my-matches-live": reads(path="/me/matches/live/", expect=members(OK, anonymous=FORBIDDEN)),
    "match-create": Case(
        path="/matches/new/",
        get=members(OK),
        post=members(done(NEW_MATCH)),
        delete=everyone(NOT_ALLOWED),
        data={"game": "wallgo", "seat_count": "2", "move_time": "3", "move_time_unit": "days"},
    ),
    # Match pages are public: spectators see the board, never a hand. The player's visit is recorded.
    "match-detail": reads(
        path=LIVE, expect=by_role(OK, player=Expect(200, changes=True)), subject="live", public=True
    ),
    "match-board": reads(path="/matches/{live}/board.svg", expect=everyone(OK), subject="live", public=True),
    # The open page's poll: what the page shows, for whoever reads it; a poll records nothing.
    "match-live": reads(path="/matches/{live}/live/", expect=everyone(OK), subject="live", public=True),
    "match-log": reads(path="/matches/{live}/log/", expect=everyone(OK), subject="live", public=True),
    "match-replay": reads(path="/matches/{live}/replay/", expect=everyone(OK), subject="live", public=True),
    # Provable dice: anyone may check a finished match's draws, download its record, or load one.
    "match-verify": reads(path="/matches/{finished}/verify/", expect=everyone(OK), public=True),
    # Post-game analysis: anyone logged in may ask for a finished match's (the row is made, the task queued
    # once the request commits); its progress figures are public, like the replay they belong to.
    "match-analysis": post_only(
        "/matches/{finished}/analysis/", members(done("/matches/{finished}/replay/#analysis"))
    ),
    "match-analysis-progress": reads(
        path="/matches/{finished}/analysis.json", expect=everyone(OK), public=True
    ),
    "match-record": reads(path="/matches/{finished}/record.json", expect=everyone(OK), public=True),
    "record-import": reads(path="/records/import/", expect=everyone(OK), write=OK, public=True),
    "match-join": post_only(
        "/matches/{open}/join/", members(done(OPEN), player=refused(OPEN)), subject="open"
    ),
    "match-leave": post_only(
        "/matches/{open}/leave/", members(refused(OPEN), player=done("/")), subject="open"
    ),
    "match-move": post_only(
        "/matches/{live}/move/",
        members(FORBIDDEN, player=done(LIVE)),
        data={"move": "{move}", "version": "{version}"},
        subject="live",
    ),
    "match-resign": post_only(
        "/matches/{live}/resign/", members(refused(LIVE), player=done(LIVE)), subject="live"
    ),
    # A rematch is offered once a match is over: of one in play, it is refused to everyone.
    "match-rematch": post_only("/matches/{live}/rematch/", members(refused(LIVE)), subject="live"),
    # Takebacks by consent: {live} is rated and allows none, and has no request to answer or withdraw.
    "takeback-ask": post_only(
        "/matches/{live}/takeback/", members(refused(LIVE)), data={"version": "{version}"}, subject="live"
    ),
    "takeback-answer": post_only(
        "/matches/{live}/takeback/answer/",
        members(refused(LIVE)),
        data={"request": "1", "answer": "accept"},
        subject="live",
    ),
    "takeback-withdraw": post_only(
        "/matches/{live}/takeback/withdraw/", members(refused(LIVE)), data={"request": "1"}, subject="live"
    ),
    # Conditional moves are planned while the opponent is to move; in {live} it is alice's (the player's)
    # move, so her lines are refused with the reason too, and there is nothing to delete.
    "match-forecast": post_only(
        "/matches/{live}/forecast/",
        members(refused(LIVE + "#forecast")),
        data={"line": "a1 a2", "version": "{version}"},
        subject="live",
    ),
    "match-forecast-delete": post_only(
        "/matches/{live}/forecast/delete/",
        members(refused(LIVE + "#forecast")),
        data={"index": "0", "version": "{version}"},
        subject="live",
    ),
    "match-forecast-clear": post_only(
        "/matches/{live}/forecast/clear/",
        members(refused(LIVE + "#forecast"), player=Expect(302, to=LIVE + "#forecast", flash="success")),
        subject="live",
    ),
    # The board a line is clicked on: JSON for the page's script; a 403 with the reason to a visitor.
    "match-forecast-board": reads(
        path="/matches/{live}/forecast/board/",
        expect=by_role(FORBIDDEN, player=CONFLICT),
        subject="live",
    ),
    # The open page's heartbeat: only a seat has a presence to record.
    "match-seen": post_only(
        "/matches/{live}/seen/", members(FORBIDDEN, player=Expect(204, changes=True)), subject="live"
    ),
    # The secret address is the only key (calendar programs send no cookies): alice's feed for anyone.
    "calendar-feed": reads(path="/calendar/{calendar}.ics", expect=everyone(OK)),
    # --- the Django admin: its index and a changelist of each kind ------------------------------------
    "admin:index": Case(path="/admin/", get=by_role(ADMIN_LOGIN, moderator=OK, staff=OK)),
    "admin:games_match_changelist": Case(
        path="/admin/games/match/", get=by_role(ADMIN_LOGIN, moderator=FORBIDDEN, staff=OK)
    ),
    "admin:moderation_report_changelist": Case(
        path="/admin/moderation/report/", get=by_role(ADMIN_LOGIN, moderator=OK, staff=OK)
    ),
}

# For each subject: who is "player" (seated in it) and who is "other" (seated in a different match).
SUBJECTS = {
    "live": ("alice", "dave"),
    "stairways": ("alice", "dave"),
    "open": ("dave", "alice"),
    "site": ("alice", "dave"),
}
ROLE_USERS = {"nonplayer": "carol", "moderator": "mod", "seated_moderator": "sam", "staff": "root"}

# What stands in for each template value to address something that does not exist, and what the
# address then answers (to a superuser, who may see everything that exists).
MISSING = {
    "live": ("987654", 404),
    "open": ("987654", 404),
    "stairways": ("987654", 404),
    "finished": ("987654", 404),
    "report": ("987654", 404),
    "message": ("987654", 404),
    "suspension": ("987654", 404),
    "league": ("no-such-league", 404),
    "quiet_league": ("no-such-league", 404),
    "action": ("explode", 404),
    "calendar": ("no-such-calendar", 404),
    "unsubscribe": ("forged", 400),  # a page explaining the link is broken
    "reset_token": ("1-forged", 200),  # Django's page saying the link is invalid
}


@dataclass
class World:
    users: dict[str, Any]
    values: dict[str, str]
    tokens: dict[str, str]  # username -> API key
    sessions: dict[str, str]  # username -> the key of a session logged in as them
    hands: dict[str, list[str]]  # username -> the Walls and Stairways hand they hold

    def user_for(self, role: str, subject: str) -> Any:
        if role == "anonymous":
            return None
        if role in ("player", "other"):
            return self.users[SUBJECTS[subject][role == "other"]]
        return self.users[ROLE_USERS[role]]

    def log_in(self, client: Client, user: Any) -> None:
        client.cookies[settings.SESSION_COOKIE_NAME] = self.sessions[user.username]

    def fill(self, template: str, **extra: str) -> str:
        return template.format(**{**self.values, **extra})


CARD = r"\b[HCDS](?:10|[1-9])\b"


def world_build() -> World:
    """Every object the matrix addresses, made through the site's services."""
    User = get_user_model()
    names = ("alice", "bob", "carol", "dave", "erin", "frank", "mod", "sam")
    users = {name: User.objects.create_user(name, f"{name}@example.com", PASSWORD) for name in names}
    users["root"] = User.objects.create_superuser("root", "root@example.com", PASSWORD)
    moderation_services.moderator_appoint(user=users["mod"])
    moderation_services.moderator_appoint(user=users["sam"])
    alice, bob, dave, erin = users["alice"], users["bob"], users["dave"], users["erin"]

    live = services.match_create(creator=alice, game="wallgo", seat_count=2, name="The live one")
    _seat_bob_in_sams_place(live, users)
    live.refresh_from_db()
    engine = live.engine
    assert engine.actors(live.engine_state) == {0}, "alice (seat 0) moves first"
    move = engine.format_move(engine.legal_moves(live.engine_state, 0)[0])

    finished = services.match_create(creator=alice, game="wallgo", seat_count=2, name="Over")
    services.seat_join(match_id=finished.pk, user=bob)
    services.match_resign(match_id=finished.pk, user=bob)
    finished.refresh_from_db()
    assert finished.status == Match.Status.FINISHED

    # dave waits alone at an open table: "other" for the matches above, "player" of this one.
    open_match = services.match_create(creator=dave, game="wallgo", seat_count=2, name="Waiting")

    stairways = services.match_create(creator=alice, game="stairways", seat_count=2, name="Hands")
    _seat_bob_in_sams_place(stairways, users)
    hands = _deal_apart(stairways)

    message = chat_services.message_post(match_id=live.pk, user=bob, text="Good luck, alice.")
    report = moderation_services.report_create(
        reporter=alice, reported_id=bob.pk, match_id=live.pk, reason="stalling", details="Slow."
    )
    suspension = moderation_services.user_suspend(
        moderator=users["mod"], user_id=erin.pk, kind="suspension", duration=timedelta(days=2), reason="Spam."
    )

    league = league_services.league_create(
        created_by=users["root"], name="Wall Go League", slug="wall-go", game="wallgo"
    )
    season = league_services.season_open(
        league=league, starts_at=timezone.now() + timedelta(days=3), by=users["root"]
    )
    league_services.entry_signup(season_id=season.pk, user=alice)
    league_services.league_create(created_by=users["root"], name="Quiet League", slug="quiet", game="wallgo")

    tokens = {name: Token.objects.create(user=user).key for name, user in users.items() if name != "erin"}
    # One logged-in session per user, made once: each request only sends its cookie.
    sessions = {}
    for name in ("alice", "bob", "carol", "dave", "mod", "sam", "root"):
        client = Client()
        client.force_login(users[name])
        sessions[name] = client.cookies[settings.SESSION_COOKIE_NAME].value
    frank = users["frank"]
    alice.refresh_from_db()
    values = {
        "live": str(live.pk),
        "finished": str(finished.pk),
        "open": str(open_match.pk),
        "stairways": str(stairways.pk),
        "move": move,
        "version": str(live.version),
        "message": str(message.pk),
        "report": str(report.pk),
        "suspension": str(suspension.pk),
        "action": "pause",
        "league": league.slug,
        "quiet_league": "quiet",
        "next_week": (timezone.now() + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M"),
        "bob_id": str(bob.pk),
        "calendar": alice.calendar_token,
        "unsubscribe": unsubscribe_token(user=alice),
        # frank never logs in during the matrix (but in the log-in cases), so his reset link stays valid.
        "reset_uid": urlsafe_base64_encode(force_bytes(frank.pk)),
        "reset_token": default_token_generator.make_token(frank),
    }
    return World(users=users, values=values, tokens=tokens, sessions=sessions, hands=hands)


def _seat_bob_in_sams_place(match: Match, users: dict[str, Any]) -> None:
    """sam (a moderator) takes the match's second seat, and another moderator hands it to bob: sam held
    a seat in it, though no seat names him any more."""
    services.seat_join(match_id=match.pk, user=users["sam"])
    moderation_services.seat_hand_over(
        moderator=users["root"], match_id=match.pk, position=1, username="bob", reason="sam moderates."
    )


def _deal_apart(match: Match) -> dict[str, list[str]]:
    """Deal alice and bob hands of cards no page names by itself (the notation help names a few), so a
    card's name on a page can only have come from a hand."""
    match.refresh_from_db()
    dealt = match.engine_state["hands"]
    seats = {seat.position: seat.user for seat in match.seats.select_related("user")}
    named = set(re.findall(CARD, Client().get(f"/matches/{match.pk}/").content.decode()))
    for position, user in seats.items():
        client = Client()
        client.force_login(user)
        page = client.get(f"/matches/{match.pk}/").content.decode()
        named |= set(re.findall(CARD, page)) - set(dealt[position])
    free = [card for card in CARDS if card not in named]
    random.Random(7).shuffle(free)
    hands = [sorted(free[:8]), sorted(free[8:16])]
    assert len(hands[1]) == 8, f"too few cards left unnamed: {free}"
    position_arrange(match, hands=hands)
    return {seats[position].username: hand for position, hand in enumerate(hands)}
