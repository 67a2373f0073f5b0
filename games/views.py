"""Thin views: parse the request, call a service or selector, render or redirect."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import SESSION_KEY, get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.functional import SimpleLazyObject
from django.utils.html import json_script
from django.utils.http import quote_etag
from django.views.decorators.cache import cache_control
from django.views.decorators.http import condition, require_GET, require_http_methods, require_POST

from games import analysis_views, calendar, forecast_views, livekeys, presence, rulebook, selectors, services
from games.engines.registry import UnknownGame
from games.errors import Forbidden, NotFound, RematchExists, ServiceError
from games.forms import MatchCreateForm, MoveForm
from games.models import Match
from games.services.creating import REMATCH_AFTER
from games.services.takebacks import TakebackPanel
from wallsite.middleware import zone_activate, zone_on_demand


@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    open_matches = selectors.matches_open()[:50]
    context = {"open_matches": open_matches, "rules_links": rulebook.rules_links()}
    return render(request, "games/lobby.html", context)


@require_GET
def game_list(request: HttpRequest) -> HttpResponse:
    """Every game with a picture of its board, its player counts, its length and what it is about."""
    return render(request, "games/game_list.html", {"games": rulebook.game_cards()})


@require_GET
def game_rules(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        page = rulebook.rules_page(slug)
    except UnknownGame:
        raise Http404("There is no game of that name.") from None
    return render(request, "games/game_rules.html", {"page": page, "card": rulebook.game_card(slug)})


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico whatever the page links; send them to the icon the pages link."""
    return redirect(static("favicon.svg"))


def _my_matches_page_etag(request: HttpRequest) -> str | None:
    return _page_etag(request, _matches_key(request))


@require_GET
@login_required
@cache_control(private=True, no_cache=True)
@condition(etag_func=_my_matches_page_etag)
def my_matches(request: HttpRequest) -> HttpResponse:
    # The key first (the ETag's): a change made while the rows are read then shows at the first poll.
    key = _matches_key(request)
    mine = _mine_parts(request, key, ("table", "count"))
    context = {
        "table_html": mine["table"],
        "awaiting_count": mine["count"],
        "live_etag": quote_etag(_etag(key, _viewer(request))),
    }
    return render(request, "games/my_matches.html", context)


# My matches' rows, the header's count of matches awaiting the user and the matches its "Next match
# waiting for you" button may lead to are kept in the cache under a key naming the user's matches'
# versions, log lengths and latest change (selectors.matches_live_key), which any change to one of them
# moves on; the rows also under the viewer's time zone and the minute, since they say "in 2 hours" and
# "5 minutes ago" (so an entry is of use for a minute or two only).

MINE_SECONDS = 2 * 60


def _mine_parts(
    request: HttpRequest, key: str, names: tuple[str, ...], *, if_cached: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The named parts, read in one call and made if missing, but for those named in ``if_cached``,
    which are left out then. ``next`` needs ``count`` named before it."""
    minute = int(timezone.now().timestamp() // 60)
    keys = {
        "count": f"page:mine-count:{key}",
        "next": f"page:mine-next:{key}",
        "table": f"page:mine-table:{key}:{timezone.get_current_timezone_name()}:{minute}",
    }
    wanted = {name: keys[name] for name in names}
    found = livekeys.cache_read(list(wanted.values()))
    parts: dict[str, Any] = {}
    made: dict[str, Any] = {}
    for name, part_key in wanted.items():
        if part_key in found:
            parts[name] = found[part_key]
            continue
        if name in if_cached:
            continue
        if name == "count":
            part: Any = selectors.matches_awaiting_count(user=request.user)
        elif name == "next":
            # Two, so that the match being read can be left out; none to look for when nothing awaits.
            urgent = selectors.most_urgent_awaiting(user=request.user, limit=2) if parts["count"] else []
            part = [(match.pk, match.get_absolute_url(), match.display_name) for match in urgent]
        else:
            matches = selectors.matches_for_user(user=request.user)
            part = render_to_string("games/_my_matches_table.html", {"matches": matches})
        parts[name] = made[part_key] = part
    livekeys.cache_write(made, MINE_SECONDS)
    # The rows come back from the cache as the SafeString the template made (the cache pickles it).
    return parts


@require_http_methods(["GET", "POST"])
@login_required
def match_create(request: HttpRequest) -> HttpResponse:
    form = MatchCreateForm(request.POST or None, initial={"game": request.GET.get("game")})
    preview = ""
    if request.method == "POST" and "preview" in request.POST:
        # Draw the starting board from the chosen options (a custom layout too), creating nothing.
        if form.is_valid():
            data = form.cleaned_data
            preview = selectors.starting_board(
                game=data["game"], seats=data["seat_count"], options=data["options"]
            )
        status = 200 if form.is_valid() else 400
        return render(request, "games/match_create.html", _create_context(form, preview), status=status)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            match = services.match_create(
                creator=request.user,
                game=data["game"],
                seat_count=data["seat_count"],
                options=data["options"],
                name=data["name"],
                move_time_limit=data["move_time_limit"],
                bank_initial=data["bank_initial"],
                bank_increment=data["bank_increment"],
                bank_max=data["bank_max"],
                pause_weekends=data["pause_weekends"],
                timeout_policy=data["timeout_policy"],
                bots=data["bots"],
                rated=data["rated"],
                allow_takebacks=data["allow_takebacks"],
                account_limits=True,
            )
        except ServiceError as exc:
            form.add_error(None, exc.message)
        else:
            if match.status == Match.Status.ACTIVE:
                messages.success(request, "Match created; every seat is taken, so it has started.")
            else:
                messages.success(request, "Match created. It starts as soon as every seat is taken.")
            return redirect(match)
    status = 400 if request.method == "POST" else 200
    return render(request, "games/match_create.html", _create_context(form, preview), status=status)


def _create_context(form: MatchCreateForm, preview: str) -> dict:
    return {
        "form": form,
        "preview": preview,
        "option_examples": form.option_examples(),
        "rules_links": rulebook.rules_links(),
    }


LOG_LINES_ON_PAGE = 30
LOG_LINES_PER_PAGE = 200


@require_GET
def match_log(request: HttpRequest, match_id: int) -> HttpResponse:
    """The whole game log, a page of lines at a time (the last page first), filtered like the view."""
    mv = _view_or_404(request, match_id)
    match = mv.match
    pages = max(1, -(-match.log_length // LOG_LINES_PER_PAGE))
    try:
        page = int(request.GET.get("page", pages))
    except ValueError:
        page = pages
    page = min(max(page, 1), pages)
    first = (page - 1) * LOG_LINES_PER_PAGE + 1
    lines = selectors.match_log_for(
        match=match,
        position=mv.viewer_position,
        first=first,
        last=first + LOG_LINES_PER_PAGE - 1,
        seats=mv.seats,
    )
    context = {"match": match, "log": lines, "page": page, "pages": pages, "page_range": range(1, pages + 1)}
    return render(request, "games/match_log.html", context)


@require_GET
def match_replay(request: HttpRequest, match_id: int) -> HttpResponse:
    """The match move by move (``?at=`` a log line's number, the latest by default), as the viewer saw it."""
    mv = _view_or_404(request, match_id)
    try:
        at = int(request.GET.get("at", mv.match.log_length))
    except ValueError:
        at = mv.match.log_length
    step = selectors.replay_step(match=mv.match, position=mv.viewer_position, seq=at, seats=mv.seats)
    context = {"match": mv.match, "step": step}
    context.update(analysis_views.replay_context(mv, step.seq if step else None))
    return render(request, "games/match_replay.html", context)


@require_GET
@cache_control(private=True, no_cache=True)
def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    # A load counts as a visit even when the browser's copy is still good (a 304): presence first.
    seat = selectors.seat_visiting(match_id=match_id, user=request.user)
    if presence.seat_present(seat=seat, user=request.user):
        messages.info(request, "Welcome back: the computer stopped playing for you.")
    return _match_page(request, match_id, plan_at=seat.plan_updated_at if seat else None)


def _match_page_etag(request: HttpRequest, match_id: int, *, plan_at: datetime | None) -> str | None:
    key = selectors.match_live_key(match_id=match_id)
    if key is None:
        return None  # the 404 page
    if not request.user.is_authenticated:
        return _page_etag(request, key)
    # The header's count and next waiting match, and the viewer's own conditional moves.
    return _page_etag(request, key, _matches_key(request), plan_at.isoformat() if plan_at else "")


@condition(etag_func=_match_page_etag)
def _match_page(request: HttpRequest, match_id: int, *, plan_at: datetime | None) -> HttpResponse:
    # ``plan_at`` is the ETag's: the decorator hands the view and its etag_func the same arguments.
    mv = _view_or_404(request, match_id)
    return render(request, "games/match_detail.html", _detail_context(request, mv))


@require_GET
def match_board(request: HttpRequest, match_id: int) -> HttpResponse:
    """The board alone as SVG, drawn for the viewer's seat."""
    mv = _view_or_404(request, match_id)
    svg = mv.match.engine.render_svg(mv.view, mv.viewer_position, interactive=False) if mv.view else ""
    return HttpResponse(svg, content_type="image/svg+xml")


@require_POST
@login_required
def match_join(request: HttpRequest, match_id: int) -> HttpResponse:
    _run(request, lambda: services.seat_join(match_id=match_id, user=request.user), "You have joined.")
    return redirect("match-detail", match_id=match_id)


@require_POST
@login_required
def match_leave(request: HttpRequest, match_id: int) -> HttpResponse:
    if _run(
        request, lambda: services.seat_leave(match_id=match_id, user=request.user), "You left the match."
    ):
        return redirect("lobby")
    return redirect("match-detail", match_id=match_id)


@require_POST
@login_required
def match_resign(request: HttpRequest, match_id: int) -> HttpResponse:
    _run(request, lambda: services.match_resign(match_id=match_id, user=request.user), "You resigned.")
    return redirect("match-detail", match_id=match_id)


@require_POST
@login_required
def match_move(request: HttpRequest, match_id: int) -> HttpResponse:
    form = MoveForm(request.POST)
    if not form.is_valid():
        mv = _view_or_404(request, match_id)
        return render(
            request, "games/match_detail.html", _detail_context(request, mv, move_form=form), status=400
        )
    try:
        move = services.move_play(
            match_id=match_id,
            user=request.user,
            expected_version=form.cleaned_data["version"],
            text=form.cleaned_data["move"],
        )
    except NotFound:
        raise Http404("There is no such match.") from None
    except ServiceError as exc:
        form.add_error("move", exc.message)
        mv = _view_or_404(request, match_id)
        return render(
            request,
            "games/match_detail.html",
            _detail_context(request, mv, move_form=form),
            status=exc.status,
        )
    messages.success(request, f"Played {move.notation}.")
    return redirect("match-detail", match_id=match_id)


def _run(request: HttpRequest, action, success: str) -> bool:
    try:
        action()
    except NotFound:
        raise Http404("There is no such match.") from None
    except ServiceError as exc:
        messages.error(request, exc.message)
        return False
    messages.success(request, success)
    return True


def _view_or_404(request: HttpRequest, match_id: int) -> selectors.MatchView:
    try:
        return selectors.match_view_for(match_id=match_id, user=request.user, state=False)
    except NotFound:
        raise Http404("There is no such match.") from None


def _detail_context(
    request: HttpRequest,
    mv: selectors.MatchView,
    move_form: MoveForm | None = None,
    *,
    parts: tuple[str, ...] = ("board", "panel", "log", "takeback"),
) -> dict:
    """The match page's context. Its ``parts`` (the board with its legal moves, the panel, the log, the
    takeback box's facts) come from the cache, made once per version of the match and viewer seat (see
    _parts); a part not asked for is left empty."""
    match = mv.match
    engine = match.engine
    made = _parts(mv, parts)
    board = made.get("board", BLANK_BOARD)
    if move_form is None:
        move_form = MoveForm(initial={"version": match.version})
    else:
        # Re-rendering after an error: offer the current version, keep what the player typed.
        move_form.data = move_form.data.copy()
        move_form.data["version"] = match.version
    joined = {seat.user_id for seat in mv.seats}
    return {
        "match": match,
        "mv": mv,
        **_follow_context(request, mv),
        "engine": engine,
        "board": board["svg"],
        # The parts are our own templates' and json_script's SafeStrings, escaped when they were made.
        "choices_script": board["choices"],
        "actions": board["actions"],
        # What a big board shows beside it (its key, the viewer's hand), or nothing.
        "beside_templates": [f"{engine.slug}/_beside.html", "games/_beside.html"],
        "panel_html": made.get("panel", ""),
        "log_html": made.get("log", ""),
        "has_rules": rulebook.has_rules(engine.slug),
        # The step at hand in one sentence, above the board.
        "prompt": selectors.match_prompt(mv=mv),
        "move_form": move_form,
        **forecast_views.forecast_context(request, mv),
        "can_join": (
            match.status == Match.Status.OPEN
            and request.user.is_authenticated
            and request.user.pk not in joined
            and len(mv.seats) < match.seat_count
        ),
        "takeback": made.get("takeback"),
        "option_labels": [
            (engine.options[name].label, engine.options[name].choices.get(value, value))
            for name, value in match.options.items()
            if name in engine.options
        ],
    }


# --- the match page's parts, kept in the cache ----------------------------------------------------------
#
# What one version of a match shows to one seat never changes: its board (the picture, the legal moves
# the board's script offers and the buttons beside it), its panel and its log are made once and kept in
# the cache under a key naming what they are drawn from and the seat they are drawn for. The board
# changes only with the match's version (every change of the position and of the hands bumps it), the
# log with its length, the panel (the seats' names and standing too) with anything the live key names.
# A change makes new keys, so nothing is ever deleted; an entry goes PART_SECONDS after it was made (a
# page read again days later makes its parts again: the cache serves the reloads and polls of a while,
# and holds a board's legal moves, tens of kilobytes, no longer than that). A key is
# never shared between seats, since a seat's parts may show its hidden hand; spectators share theirs.
# The parts hold nothing of the request (no session, no CSRF token, no time of day): that is added when
# the page is rendered.

PART_SECONDS = 10 * 60
BLANK_BOARD = {"svg": "", "choices": "", "actions": []}


def _part_key(mv: selectors.MatchView, name: str) -> str:
    """``page:<part>:<seat>:<match>:...``: the viewer's seat (or "spectator") always third."""
    match = mv.match
    seat = "spectator" if mv.viewer_position is None else f"seat{mv.viewer_position}"
    if name == "board":
        drawn_from = _board_key(mv)
    elif name == "log":
        drawn_from = str(match.log_length)
    else:
        drawn_from = f"{selectors.match_live_key_of(match)}.{int(mv.my_turn)}"
    return f"page:{name}:{seat}:{selectors.match_cache_id(match)}:{match.game}:{drawn_from}"


def _parts(mv: selectors.MatchView, names: tuple[str, ...]) -> dict[str, Any]:
    """The named parts of the match page for this viewer, from the cache; those missing are made and
    stored in one call."""
    keys = {name: _part_key(mv, name) for name in names}
    found = livekeys.cache_read(list(keys.values()))
    parts: dict[str, Any] = {}
    made: dict[str, Any] = {}
    for name, key in keys.items():
        if key in found:
            parts[name] = found[key]
        else:
            parts[name] = made[key] = PART_MAKERS[name](mv)
    livekeys.cache_write(made, PART_SECONDS)
    return parts


def _board_part(mv: selectors.MatchView) -> dict[str, Any]:
    """The board as the viewer's seat sees it and, on its turn, the legal moves its script walks (the
    server stays the only judge of legality) and the buttons for the actions they take."""
    match = mv.match
    if match.status == Match.Status.OPEN or not mv.view:
        return BLANK_BOARD
    engine = match.engine
    svg = engine.render_svg(mv.view, mv.viewer_position, interactive=mv.my_turn)
    if not mv.my_turn:
        return {"svg": svg, "choices": "", "actions": []}
    choices = selectors.legal_choices(
        engine=engine, state=match.engine_state, view=mv.view, seat=mv.viewer_position
    )
    offered = {target for choice in choices for target in choice["path"]}
    actions = [a for a in engine.board_actions(mv.view, mv.viewer_position) if a[0] in offered]
    return {"svg": svg, "choices": json_script(choices, "legal-moves"), "actions": actions}


def _panel_part(mv: selectors.MatchView) -> str:
    engine = mv.match.engine
    context = {
        "match": mv.match,
        "mv": mv,
        # A game's own side panel, or the plain one for a game without (the tests' small engines).
        "panel_templates": [f"{engine.slug}/_panel.html", "games/_panel.html"],
    }
    # No request: nothing of the viewer but its seat's view can reach a part shared by its later loads.
    return render_to_string("games/_match_panel.html", context)


def _log_part(mv: selectors.MatchView) -> str:
    """The latest lines only, so a long match's page costs what a short one's does."""
    match = mv.match
    context = {
        "match": match,
        "log": selectors.match_log_for(
            match=match,
            position=mv.viewer_position,
            first=match.log_length - LOG_LINES_ON_PAGE + 1,
            seats=mv.seats,
        ),
        "log_hidden": max(0, match.log_length - LOG_LINES_ON_PAGE),
    }
    return render_to_string("games/_match_log.html", context)


def _takeback_part(mv: selectors.MatchView) -> TakebackPanel:
    """What the viewer's seat may do about takebacks: facts, not HTML, since its forms carry the
    request's CSRF token. Every change of a request moves the match's live key (takebacks._touch)."""
    return services.takeback_panel(match=mv.match, seats=mv.seats, seat=mv.seat)


PART_MAKERS: dict[str, Callable[[selectors.MatchView], Any]] = {
    "board": _board_part,
    "panel": _panel_part,
    "log": _log_part,
    "takeback": _takeback_part,
}


# --- presence and the calendar feed ----------------------------------------------------------------


@require_POST
@login_required
def match_seen(request: HttpRequest, match_id: int) -> HttpResponse:
    """The heartbeat of an open match page (static/js/presence.js)."""
    try:
        presence.seat_seen(match_id=match_id, user=request.user)
    except NotFound:
        raise Http404("There is no such match.") from None
    except Forbidden as exc:
        return HttpResponse(exc.message, status=403, content_type="text/plain; charset=utf-8")
    return HttpResponse(status=204)


@require_GET
@cache_control(private=True, no_cache=True)
def calendar_feed(request: HttpRequest, token: str) -> HttpResponse:
    """The user's deadlines as iCalendar; the secret token in the address is the only key."""
    user = get_object_or_404(get_user_model(), calendar_token=token, is_active=True)
    response = HttpResponse(
        calendar.calendar_for_user(user=user, now=timezone.now()), content_type="text/calendar; charset=utf-8"
    )
    response["Content-Disposition"] = 'inline; filename="wallsite-deadlines.ics"'
    response["X-Robots-Tag"] = "noindex"
    return response


# --- following a match from its open page (static/js/live.js) -------------------------------------------
#
# The page polls every few seconds. An unchanged poll is a 304 after one read of the match's row by its
# key (no session, no user, no rendering); a changed one gets the page's parts as JSON, rendered by the
# page's own templates for the viewer, as the page would show them now.

LIVE_PARTS = {
    "head": "games/_match_head.html",
    "seats": "games/_match_seats.html",
    "buttons": "games/_match_buttons.html",
    "chat": "games/_match_chat.html",
    "badge": "games/_badge.html",
    "takeback": "games/_takeback.html",
}


def _viewer(request: HttpRequest) -> str:
    """Who is asking, for the live keys: the session cookie, which a log-in or log-out replaces. Reading
    it costs nothing, where the session's and the user's rows cost a query each."""
    return request.COOKIES.get(settings.SESSION_COOKIE_NAME, "")


def _etag(key: str, viewer: str) -> str:
    # Keyed with the site's secret, so the tag tells nobody anything about the session it belongs to.
    return salted_hmac("games.live", f"{key}|{viewer}").hexdigest()[:32]


def _matches_key(request: HttpRequest) -> str:
    """The user's matches' live key, read once a request: the page's ETag and its header both use it."""
    if not hasattr(request, "matches_live_key"):
        request.matches_live_key = selectors.matches_live_key(user_id=request.user.pk)  # type: ignore[attr-defined]
    return request.matches_live_key  # type: ignore[attr-defined]


# --- whole pages answered 304 ----------------------------------------------------------------------------
#
# The browser asks for My matches and a match page with the ETag of the copy it holds (Cache-Control:
# private, no-cache), and a page that would be drawn the same again is answered 304 without being
# drawn. Its ETag names the live keys of everything the page shows, the viewer (the session cookie,
# and the CSRF cookie its forms' tokens come from), the time zone its times are written in, and the
# minute, since it says "in 2 hours": a copy is never taken again after the minute it was made in
# (which also bounds what no key names, like a moderator's count of reports). A page showing a flash
# message, or a refused form's text and reason, has no ETag: they are shown once, and the next load
# draws the page again.


def _page_etag(request: HttpRequest, *keys: str) -> str | None:
    # Counted, not read: they stay for the page to show. A refused plan's line and reason wait in the
    # session without a message (a refused chat message's draft comes with one).
    if len(messages.get_messages(request)) or forecast_views.STASH in request.session:
        return None
    minute = int(timezone.now().timestamp() // 60)
    csrf = request.COOKIES.get(settings.CSRF_COOKIE_NAME, "")
    drawn_from = "|".join(("page", *keys, timezone.get_current_timezone_name(), str(minute), csrf))
    # Weak: two drawings of the page mean the same but differ in bytes (each masks the CSRF token anew).
    return f'W/"{_etag(drawn_from, _viewer(request))}"'


def _match_etag(request: HttpRequest, match_id: int) -> str | None:
    key = selectors.match_live_key(match_id=match_id)
    return None if key is None else _etag(key, _viewer(request))


def _board_key(mv: selectors.MatchView) -> str:
    """What the board, the move form and its legal moves are drawn from, for this viewer: the client
    sends it back, and the board is sent again only when it differs."""
    match = mv.match
    paused = int(match.paused_at is not None)
    return f"{match.version}.{match.status}.{mv.viewer_position}.{int(mv.my_turn)}.{paused}"


@dataclass(frozen=True)
class NextMatch:
    """Where the "Next match waiting for you" button leads."""

    url: str
    name: str


def _header_facts(request: HttpRequest, match: Match) -> dict[str, Any]:
    """The header's count of matches awaiting the user and the next one of them other than ``match``,
    from the cache entries My matches' count shares: one read for both. The next match is looked for
    only if the page shows it, which it does not on the viewer's own turn."""
    if not request.user.is_authenticated:
        return {"next_match": None}
    key = _matches_key(request)
    mine = _mine_parts(request, key, ("count", "next"), if_cached=("next",))

    def next_match() -> NextMatch | None:
        urgent = mine["next"] if "next" in mine else _mine_parts(request, key, ("count", "next"))["next"]
        return next((NextMatch(url, name) for pk, url, name in urgent if pk != match.pk), None)

    return {
        # Overrides the context processor's count, which would cost a query of its own.
        "awaiting_count": mine["count"],
        # Looked up only when the count says some match awaits the user (_match_head.html).
        "next_match": SimpleLazyObject(next_match),
    }


def _follow_context(request: HttpRequest, mv: selectors.MatchView) -> dict:
    """The match page's live keys, the way to the user's next waiting match, and the rematch."""
    match, user = mv.match, request.user
    ended = match.status in REMATCH_AFTER and match.started_at is not None
    rematch = selectors.rematch_for(match=match) if ended else None
    return {
        "live_etag": quote_etag(_etag(selectors.match_live_key_of(match), _viewer(request))),
        "board_key": _board_key(mv),
        **_header_facts(request, match),
        "rematch": rematch,
        "rematch_seated": rematch is not None
        and user.is_authenticated
        and any(seat.user_id == user.pk for seat in rematch.seats.all()),
        "can_rematch": ended and rematch is None and mv.seat is not None,
    }


# Each viewer's own answer, 304s included; the browser asks again each time with If-None-Match.
@zone_on_demand
@require_GET
@cache_control(private=True, no_cache=True)
@condition(etag_func=_match_etag)
def match_live(request: HttpRequest, match_id: int) -> HttpResponse:
    """The parts of the match page that changed since the poll's If-None-Match, as JSON: ``parts`` maps
    a part's name to its HTML. The board (with the move form) is sent when its key differs from the
    one the client has (header X-Live-Board), the log when its length differs (X-Live-Log). Headers,
    not a query string: the unchanged poll, the site's commonest request, then has none to parse."""
    zone_activate(request)
    try:
        mv = selectors.match_view_for(match_id=match_id, user=request.user, state=False)
    except NotFound:
        return JsonResponse({"detail": "There is no such match."}, status=404)
    board_key, log_key = _board_key(mv), str(mv.match.log_length)
    send_board = request.headers.get("X-Live-Board") != board_key
    send_log = request.headers.get("X-Live-Log") != log_key
    wanted = ("panel", "takeback") + (("board",) if send_board else ()) + (("log",) if send_log else ())
    context = _detail_context(request, mv, parts=wanted)
    parts = {name: render_to_string(name_, context, request) for name, name_ in LIVE_PARTS.items()}
    parts["panel"] = context["panel_html"]
    if send_board:
        parts["board"] = render_to_string("games/_match_board.html", context, request)
    if send_log:
        parts["log"] = context["log_html"]
    body = {
        "version": mv.match.version,
        "status": mv.match.status,
        "my_turn": mv.my_turn,
        "keys": {"board": board_key, "log": log_key},
        "parts": parts,
    }
    return JsonResponse(body)


def _my_matches_etag(request: HttpRequest) -> str | None:
    user_id = _session_user_id(request)
    return None if user_id is None else _etag(selectors.matches_live_key(user_id=user_id), _viewer(request))


def _session_user_id(request: HttpRequest) -> str | None:
    """The user the session names, from the session alone: enough to key a poll (a 304 carries nothing),
    never to decide what is shown, which the view asks of ``request.user``."""
    return request.session.get(SESSION_KEY)


@zone_on_demand
@require_GET
@cache_control(private=True, no_cache=True)
@condition(etag_func=_my_matches_etag)
def my_matches_live(request: HttpRequest) -> HttpResponse:
    """The header's badge and, with ``?table=1``, My matches' rows, as JSON parts, when they changed."""
    if not request.user.is_authenticated:
        return JsonResponse({"detail": "Log in to follow your matches."}, status=403)
    zone_activate(request)
    table = request.GET.get("table") == "1"
    key = selectors.matches_live_key(user_id=request.user.pk)
    mine = _mine_parts(request, key, ("count", "table") if table else ("count",))
    parts = {"badge": render_to_string("games/_badge.html", {"awaiting_count": mine["count"]})}
    if table:
        parts["table"] = mine["table"]
    return JsonResponse({"parts": parts})


@require_POST
@login_required
def match_rematch(request: HttpRequest, match_id: int) -> HttpResponse:
    """Offer the players of an ended match another one; the offer is the new match's page."""
    try:
        rematch = services.match_rematch(match_id=match_id, user=request.user)
    except NotFound:
        raise Http404("There is no such match.") from None
    except RematchExists as exc:
        messages.info(request, "There is already a rematch of this match: here it is.")
        return redirect("match-detail", match_id=exc.rematch_id)
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("match-detail", match_id=match_id)
    if rematch.status == Match.Status.ACTIVE:
        messages.success(request, "Rematch started.")
    else:
        messages.success(request, "Rematch offered: it starts as soon as the other players join.")
    return redirect(rematch)
