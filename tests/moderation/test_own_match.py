"""A moderator never acts on a match they hold or held a seat in: playing, resigned, forfeited, or handed
over to someone else. Every action is refused with the reason and leaves the match as it was, through the
service, the moderation panel and the admin; another moderator (not seated) does the same thing at once.
Nor does a moderator work a report about themselves."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from chat import services as chat
from chat.models import ChatMessage
from games import services as games
from games.errors import Forbidden
from games.models import Match, Move, Seat, Turn
from moderation import services as moderation
from moderation.models import ModerationAction, Report
from tests.conftest import play_random

pytestmark = pytest.mark.django_db

# Spelled out rather than imported: the tests say what a moderator reads.
REASON = "You hold or held a seat in this match: another moderator must act on it."
ABOUT_YOU = "This report is about you: another moderator must handle it."
DAY = timedelta(days=1)

# How the seated moderator (sam) came to hold the seat he holds or held.
HOW = ["playing", "resigned", "forfeited", "handed over"]
# Through the pages, the three ways apart (a forfeit is a seat row like a resignation, for the check).
ON_PAGES = ["playing", "resigned", "handed over"]


@pytest.fixture
def sam(make_user):
    """A moderator who also plays."""
    user = make_user("sam")
    moderation.moderator_appoint(user=user)
    return user


@dataclass
class Table:
    """A three-seat Wall Go match sam created (seat 0) with alice and bob, and a chat message of alice's."""

    match: Match
    sam: Any
    alice_seat: Seat
    message: ChatMessage

    def actor(self) -> int:
        self.match.refresh_from_db()
        return min(self.match.engine.actors(self.match.engine_state))

    def seat_at(self, position: int) -> Seat:
        return Seat.objects.get(match=self.match, position=position)


@pytest.fixture
def table(request, sam, alice, bob, carol, moderator) -> Table:
    """The match in play, sam's seat as ``request.param`` says; the last line of its log is a move."""
    match = games.match_create(creator=sam, game="wallgo", seat_count=3, move_time_limit=DAY)
    games.seat_join(match_id=match.pk, user=alice)
    games.seat_join(match_id=match.pk, user=bob)
    play_random(match, moves=3)
    how = request.param
    if how == "resigned":
        games.match_resign(match_id=match.pk, user=sam)
    elif how == "forfeited":
        moderation.seat_remove(moderator=moderator, match_id=match.pk, position=0, reason="Gone")
    elif how == "handed over":
        moderation.seat_hand_over(
            moderator=moderator, match_id=match.pk, position=0, username=carol.username, reason="Sub"
        )
    if how != "playing":
        play_random(match, moves=2)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    sam_seat = Seat.objects.get(match=match, position=0)
    expected = {"playing": "playing", "resigned": "resigned", "forfeited": "forfeited"}.get(how, "playing")
    assert sam_seat.status == expected
    assert (sam_seat.user == sam) == (how != "handed over")
    message = chat.message_post(match_id=match.pk, user=alice, text="Good game so far.")
    return Table(match=match, sam=sam, alice_seat=Seat.objects.get(match=match, user=alice), message=message)


def snapshot(table: Table) -> dict[str, Any]:
    """Everything a moderator action could change."""
    match = Match.objects.get(pk=table.match.pk)
    return {
        "match": (
            match.version,
            match.status,
            match.paused_at,
            match.result_text,
            match.finished_at,
            match.engine_state,
        ),
        "seats": list(
            Seat.objects.filter(match=match).values_list(
                "position", "user_id", "bot", "status", "rank", "autopilot"
            )
        ),
        "log": list(Move.objects.filter(match=match).order_by("seq").values_list("pk", "seq", "events")),
        "turns": list(
            Turn.objects.filter(match=match).order_by("pk").values_list("pk", "deadline", "closed_at")
        ),
        "chat": list(ChatMessage.objects.filter(match=match).values_list("pk", "hidden_at")),
        "record": list(ModerationAction.objects.values_list("pk", flat=True)),
    }


# --- through the services -----------------------------------------------------------------------------


def _pause(table: Table, moderator) -> None:
    moderation.match_pause(moderator=moderator, match_id=table.match.pk, reason="Checking")


# action -> (what must be true first, done by an unseated moderator; the action by ``who``)
SERVICE_ACTIONS: dict[str, tuple[Callable | None, Callable]] = {
    "pause": (None, lambda t, who: _pause(t, who)),
    "resume": (
        _pause,
        lambda t, who: moderation.match_resume(moderator=who, match_id=t.match.pk, reason="Go on"),
    ),
    "extend": (
        None,
        lambda t, who: moderation.turn_extend(
            moderator=who, match_id=t.match.pk, position=t.actor(), hours=5, reason="Ill"
        ),
    ),
    "hand over": (
        None,
        lambda t, who: moderation.seat_hand_over(
            moderator=who, match_id=t.match.pk, position=t.alice_seat.position, bot="random", reason="Gone"
        ),
    ),
    "remove": (
        None,
        lambda t, who: moderation.seat_remove(
            moderator=who, match_id=t.match.pk, position=t.alice_seat.position, reason="Stalling"
        ),
    ),
    "take back": (
        None,
        lambda t, who: moderation.move_rollback(moderator=who, match_id=t.match.pk, reason="Misclick"),
    ),
    "adjudicate": (
        None,
        lambda t, who: moderation.match_adjudicate(
            moderator=who, match_id=t.match.pk, ranks=[1, 2, 3], reason="Sam was winning"
        ),
    ),
    "abandon": (
        None,
        lambda t, who: moderation.match_end(
            moderator=who, match_id=t.match.pk, status="abandoned", reason="Everyone left"
        ),
    ),
    "cancel": (
        None,
        lambda t, who: moderation.match_end(
            moderator=who, match_id=t.match.pk, status="cancelled", reason="Multiple accounts"
        ),
    ),
    "see the hidden information": (
        None,
        lambda t, who: moderation.match_secrets_view(moderator=who, match_id=t.match.pk, reason="Cheating?"),
    ),
    "hide a chat message": (
        None,
        lambda t, who: moderation.message_hide(moderator=who, message_id=t.message.pk, reason="Rude"),
    ),
}


@pytest.mark.parametrize("table", HOW, indirect=True)
@pytest.mark.parametrize("action", list(SERVICE_ACTIONS))
def test_the_service_refuses_a_moderator_who_holds_or_held_a_seat_and_another_moderator_acts(
    table, moderator, action
):
    prepare, act = SERVICE_ACTIONS[action]
    if prepare:
        prepare(table, moderator)
    before = snapshot(table)
    with pytest.raises(Forbidden) as refused:
        act(table, table.sam)
    assert refused.value.message == REASON
    assert snapshot(table) == before
    # The same action by a moderator who never sat at this table goes through.
    act(table, moderator)
    assert snapshot(table) != before


def test_a_moderator_cannot_hand_a_seat_to_themselves(started_match, moderator, bob):
    match = started_match()
    with pytest.raises(Forbidden, match="You cannot hand a seat to yourself"):
        moderation.seat_hand_over(
            moderator=moderator, match_id=match.pk, position=1, username=moderator.username, reason="x"
        )
    assert Seat.objects.get(match=match, position=1).user == bob
    assert not ModerationAction.objects.exists()


# --- through the moderation panel ---------------------------------------------------------------------


def _post_pause(client, table: Table) -> None:
    # Followed, so that its own message is read before the next request.
    url = reverse("moderation-match-action", args=[table.match.pk, "pause"])
    client.post(url, {"reason": "Checking"}, follow=True)


def _match_action(name: str, data: Callable[[Table], dict]) -> Callable[[Table], tuple[str, dict]]:
    return lambda t: (reverse("moderation-match-action", args=[t.match.pk, name]), data(t))


# action -> (what must be true first, by an unseated moderator's client; the address and form)
PANEL_ACTIONS: dict[str, tuple[Callable | None, Callable[[Table], tuple[str, dict]]]] = {
    "pause": (None, _match_action("pause", lambda t: {"reason": "Checking"})),
    "resume": (_post_pause, _match_action("resume", lambda t: {"reason": "Go on"})),
    "extend": (None, _match_action("extend", lambda t: {"seat": t.actor(), "hours": 5, "reason": "Ill"})),
    "hand-over": (
        None,
        _match_action(
            "hand-over", lambda t: {"seat": t.alice_seat.position, "bot": "random", "reason": "Gone"}
        ),
    ),
    "remove": (
        None,
        _match_action("remove", lambda t: {"seat": t.alice_seat.position, "reason": "Stalling"}),
    ),
    "rollback": (None, _match_action("rollback", lambda t: {"reason": "Misclick"})),
    "adjudicate": (
        None,
        _match_action("adjudicate", lambda t: {"rank_0": 1, "rank_1": 2, "rank_2": 3, "reason": "Sam leads"}),
    ),
    "end": (None, _match_action("end", lambda t: {"status": "abandoned", "reason": "Everyone left"})),
    "secrets": (
        None,
        lambda t: (reverse("moderation-match-secrets", args=[t.match.pk]), {"reason": "Cheating?"}),
    ),
    "hide": (None, lambda t: (reverse("moderation-message-hide", args=[t.message.pk]), {"reason": "Rude"})),
}


@pytest.mark.parametrize("table", ON_PAGES, indirect=True)
@pytest.mark.parametrize("action", list(PANEL_ACTIONS))
def test_the_panel_refuses_a_moderator_who_holds_or_held_a_seat_with_the_reason(
    client, table, moderator, action
):
    prepare, address = PANEL_ACTIONS[action]
    if prepare:
        client.force_login(moderator)
        prepare(client, table)
    url, data = address(table)
    before = snapshot(table)
    client.force_login(table.sam)
    response = client.post(url, data)
    assert response.status_code == 302
    assert response["Location"].startswith(table.match.get_absolute_url())
    told = [(m.level_tag, m.message) for m in get_messages(response.wsgi_request)]
    assert told == [("error", REASON)]
    assert client.get(response["Location"]).status_code == 200
    assert snapshot(table) == before
    client.force_login(moderator)
    response = client.post(url, data)
    told = {m.level_tag for m in get_messages(response.wsgi_request)}
    assert response.status_code in (200, 302) and "error" not in told
    assert snapshot(table) != before


@pytest.mark.parametrize("table", ["playing", "handed over"], indirect=True)
def test_the_panel_offers_no_tools_on_a_moderators_own_match_and_says_why(
    client, table, moderator, started_match
):
    client.force_login(table.sam)
    html = client.get(table.match.get_absolute_url()).content.decode()
    assert 'data-testid="moderation-panel"' in html and 'data-testid="mod-seat-held"' in html
    assert REASON in html
    for tool in ("mod-pause", "mod-extend", "mod-hand-over", "mod-remove", "mod-rollback", "mod-adjudicate"):
        assert f'data-testid="{tool}"' not in html, tool
    assert 'data-testid="mod-end"' not in html and 'data-testid="mod-secrets"' not in html
    client.force_login(moderator)
    html = client.get(table.match.get_absolute_url()).content.decode()
    assert 'data-testid="mod-pause"' in html and 'data-testid="mod-secrets"' in html
    assert 'data-testid="mod-seat-held"' not in html
    # On a match sam plays no part in, he moderates like anyone else.
    other = started_match()
    client.force_login(table.sam)
    html = client.get(other.get_absolute_url()).content.decode()
    assert 'data-testid="mod-pause"' in html and 'data-testid="mod-seat-held"' not in html
    assert (
        moderation.match_pause(moderator=table.sam, match_id=other.pk, reason="Looking").match_id == other.pk
    )


def test_the_panel_refuses_a_moderator_handing_a_seat_to_themselves(client, started_match, moderator, bob):
    match = started_match()
    client.force_login(moderator)
    response = client.post(
        reverse("moderation-match-action", args=[match.pk, "hand-over"]),
        {"seat": 1, "username": moderator.username, "reason": "Sub"},
        follow=True,
    )
    assert "You cannot hand a seat to yourself" in response.content.decode()
    assert Seat.objects.get(match=match, position=1).user == bob


# --- through the admin --------------------------------------------------------------------------------


def _admin_pause(client, table: Table) -> None:
    client.post(
        reverse("admin:moderation_moderatedmatch_changelist"),
        {"action": "pause", "_selected_action": [table.match.pk], "apply": "yes", "reason": "Checking"},
        follow=True,
    )


def _on_match(action: str, **data: Any) -> Callable[[Table], tuple[str, dict]]:
    return lambda t: (
        reverse("admin:moderation_moderatedmatch_changelist"),
        {"action": action, "_selected_action": [t.match.pk], **data},
    )


def _on_seat(action: str, seat: Callable[[Table], Seat], **data: Any) -> Callable[[Table], tuple[str, dict]]:
    return lambda t: (
        reverse("admin:moderation_moderatedseat_changelist"),
        {"action": action, "_selected_action": [seat(t).pk], **data},
    )


def _alice(t: Table) -> Seat:
    return t.alice_seat


# admin action -> (what must be true first, by an unseated moderator's client; the address and form)
ADMIN_ACTIONS: dict[str, tuple[Callable | None, Callable[[Table], tuple[str, dict]]]] = {
    "pause": (None, _on_match("pause", reason="Checking")),
    "resume": (_admin_pause, _on_match("resume", reason="Go on")),
    "take_back": (None, _on_match("take_back", reason="Misclick")),
    "abandon": (None, _on_match("abandon", reason="Everyone left")),
    "cancel": (None, _on_match("cancel", reason="Multiple accounts")),
    "to_computer": (None, _on_seat("to_computer", _alice, bot="random", reason="Gone")),
    "to_player": (None, _on_seat("to_player", _alice, username="dave", reason="Sub")),
    "remove": (None, _on_seat("remove", _alice, reason="Stalling")),
    "extend": (None, _on_seat("extend", lambda t: t.seat_at(t.actor()), hours=5, reason="Ill")),
    "adjudicate_win": (None, _on_seat("adjudicate_win", lambda t: t.seat_at(0), reason="Sam leads")),
    "hide": (
        None,
        lambda t: (
            reverse("admin:chat_chatmessage_changelist"),
            {"action": "hide", "_selected_action": [t.message.pk], "reason": "Rude"},
        ),
    ),
}


@pytest.mark.parametrize("table", ON_PAGES, indirect=True)
@pytest.mark.parametrize("action", list(ADMIN_ACTIONS))
def test_the_admin_refuses_a_moderator_who_holds_or_held_a_seat_with_the_reason(
    client, table, moderator, make_user, action
):
    make_user("dave")
    prepare, address = ADMIN_ACTIONS[action]
    if prepare:
        client.force_login(moderator)
        prepare(client, table)
    url, data = address(table)
    data = {**data, "apply": "yes"}
    before = snapshot(table)
    client.force_login(table.sam)
    response = client.post(url, data, follow=True)
    assert response.status_code == 200
    assert REASON in response.content.decode()
    assert snapshot(table) == before
    client.force_login(moderator)
    response = client.post(url, data)
    told = {m.level_tag for m in get_messages(response.wsgi_request)}
    assert response.status_code == 302 and told == {"success"}
    assert snapshot(table) != before


# --- reports about oneself ----------------------------------------------------------------------------


@pytest.fixture
def report_on_sam(sam, alice) -> Report:
    match = games.match_create(creator=sam, game="wallgo", seat_count=2)
    games.seat_join(match_id=match.pk, user=alice)
    return moderation.report_create(reporter=alice, reported_id=sam.pk, match_id=match.pk, reason="abuse")


def report_state(report: Report) -> tuple:
    report.refresh_from_db()
    return (report.status, report.assigned_to_id, report.resolved_by_id, report.resolution)


def test_a_moderator_cannot_take_or_close_a_report_about_themselves(report_on_sam, sam, moderator):
    before = report_state(report_on_sam)
    with pytest.raises(Forbidden) as refused:
        moderation.report_assign(moderator=sam, report_id=report_on_sam.pk)
    assert refused.value.message == ABOUT_YOU
    with pytest.raises(Forbidden) as refused:
        moderation.report_resolve(moderator=sam, report_id=report_on_sam.pk, note="Nothing", dismiss=True)
    assert refused.value.message == ABOUT_YOU
    assert report_state(report_on_sam) == before
    assert not ModerationAction.objects.exists()
    moderation.report_assign(moderator=moderator, report_id=report_on_sam.pk)
    moderation.report_resolve(moderator=moderator, report_id=report_on_sam.pk, note="Warned sam")
    assert report_state(report_on_sam)[0] == Report.Status.RESOLVED


def test_the_queue_shows_a_moderator_no_buttons_for_a_report_about_themselves(
    client, report_on_sam, sam, moderator
):
    client.force_login(sam)
    html = client.get(reverse("moderation-queue")).content.decode()
    assert 'data-testid="report-about-you"' in html
    assert reverse("moderation-report-assign", args=[report_on_sam.pk]) not in html
    response = client.post(reverse("moderation-report-assign", args=[report_on_sam.pk]), follow=True)
    assert ABOUT_YOU in response.content.decode()
    response = client.post(
        reverse("moderation-report-resolve", args=[report_on_sam.pk]),
        {"note": "Nothing", "outcome": "dismiss"},
        follow=True,
    )
    assert ABOUT_YOU in response.content.decode()
    assert report_on_sam.status == report_state(report_on_sam)[0] == Report.Status.OPEN
    client.force_login(moderator)
    html = client.get(reverse("moderation-queue")).content.decode()
    assert reverse("moderation-report-assign", args=[report_on_sam.pk]) in html


def test_the_admin_refuses_a_moderator_a_report_about_themselves(client, report_on_sam, sam):
    client.force_login(sam)
    url = reverse("admin:moderation_report_changelist")
    response = client.post(
        url, {"action": "assign_to_me", "_selected_action": [report_on_sam.pk]}, follow=True
    )
    assert ABOUT_YOU in response.content.decode()
    response = client.post(
        url,
        {"action": "dismiss", "_selected_action": [report_on_sam.pk], "apply": "yes", "note": "Nothing"},
        follow=True,
    )
    assert ABOUT_YOU in response.content.decode()
    assert report_state(report_on_sam)[0] == Report.Status.OPEN
