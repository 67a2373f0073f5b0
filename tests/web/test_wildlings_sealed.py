"""Sealed bids and orders in Wildlings at the Wall, as the site shows them: until the last House commits,
another seat or a spectator learns only that a House "has committed", on every page, the board SVG,
every API answer, both logs and every e-mail; the last commit reveals every bid to everyone at once.

The match is played through the services and HTTP. Its first Westeros draw is stacked (a test setup,
stored with its view and hidden hands recomputed) so that it ends in a wildling attack, with Powers
that make the bids distinctive numbers: Orange bids 17 of 19, Blue 13 of 15, Green 4 of 6.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games import services, sweep
from games.models import Match
from tests.support.wildlings import attack_ahead, state_store

pytestmark = pytest.mark.django_db

START = "2026-06-01 09:00:00+00:00"
POWERS = [19, 15, 6]
HANDS = [[0, 3, 4], [1, 2, 2], [0, 1, 2]]  # only Orange holds a 4, so "march green 4" is Orange's alone
BIDS = [17, 13, 4]
STRENGTH = 10  # the threat 8, plus the icon of Last Days of Summer
COLOURS = ["Orange", "Blue", "Green"]
ORANGE_ORDER = "march green 4"
CSRF = re.compile(r'(name="csrfmiddlewaretoken" value=|data-csrf=)"[A-Za-z0-9]+"')


@dataclass
class Viewer:
    name: str
    position: int | None  # None: a spectator
    page: Client
    api: APIClient


@dataclass
class Table:
    match: Match
    players: list  # users in seat order
    viewers: list[Viewer]  # the three seats, a signed-in spectator, an anonymous visitor

    def refresh(self) -> Match:
        self.match.refresh_from_db()
        return self.match

    def seat(self, position: int) -> Viewer:
        return self.viewers[position]

    def others(self, *positions: int) -> list[Viewer]:
        return [v for v in self.viewers if v.position not in positions]


def viewer(name: str, position: int | None, user) -> Viewer:
    page, api = Client(), APIClient()
    if user is not None:
        page.force_login(user)
        api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return Viewer(name=name, position=position, page=page, api=api)


@pytest.fixture
def clock():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


@pytest.fixture
def table(make_user, clock) -> Table:
    """Three Houses at the wildlings' attack of strength 10, nobody has bid yet."""
    players = [make_user(name) for name in ("ann", "ben", "cat")]
    watcher = make_user("watcher")
    match = services.match_create(
        creator=players[0], game="wildlings", seat_count=3, move_time_limit=timedelta(days=2)
    )
    for user in players[1:]:
        services.seat_join(match_id=match.pk, user=user)
    match.refresh_from_db()
    state = attack_ahead(
        match.engine_state, threat=STRENGTH - 2, wildling_card="skinchanger", powers=POWERS, hands=HANDS
    )
    match = state_store(match, state)
    # The chance step a worker runs once the table is full (outside a test, queued on commit).
    services.chance_resolve(match_id=match.pk, version=match.version)
    match.refresh_from_db()
    state = match.engine_state
    assert state["phase"] == "bidding" and state["bidding"]["strength"] == STRENGTH
    assert match.engine.actors(state) == {0, 1, 2}
    viewers = [viewer(user.username, k, user) for k, user in enumerate(players)]
    viewers += [viewer("watcher", None, watcher), viewer("anonymous", None, None)]
    return Table(match=match, players=players, viewers=viewers)


# --- what a viewer can fetch -------------------------------------------------------------------------


def text_of(markup: str) -> str:
    """The words of an HTML page or an SVG, without tags (and so without coordinates or sizes)."""
    return html.unescape(re.sub(r"<[^>]+>", " ", markup))


def everything(table: Table, who: Viewer) -> dict[str, str]:
    """Every answer about the match this viewer can fetch, as text. A page or an SVG comes twice: its
    words, and its whole markup ("... markup": attributes such as labels and click targets too)."""
    pk = table.match.pk
    answers = {}
    for name in ("match-detail", "match-board", "match-log"):
        response = who.page.get(reverse(name, args=[pk]))
        assert response.status_code == 200, (name, who.name)
        markup = CSRF.sub("csrf", response.content.decode())
        answers[name] = text_of(markup)
        answers[f"{name} markup"] = html.unescape(markup)
    names = ["api-match", "api-match-log"]
    if who.name != "anonymous":
        names.append("api-match-legal-moves")
    for name in names:
        response = who.api.get(reverse(name, args=[pk]))
        assert response.status_code == 200, (name, who.name)
        answers[name] = json.dumps(response.json())
    if who.position is not None:
        answers["api-mine"] = json.dumps(who.api.get(reverse("api-matches") + "?scope=mine").json())
    return answers


def api_view(table: Table, who: Viewer) -> dict:
    return who.api.get(reverse("api-match", args=[table.match.pk])).json()["view"]


def mails_to(user) -> str:
    """Everything sent to ``user`` so far: subjects, text bodies and HTML bodies."""
    parts = []
    for message in mail.outbox:
        if message.to == [user.email]:
            parts += [message.subject, message.body, *(body for body, _type in message.alternatives)]
    return "\n".join(parts)


# --- playing -----------------------------------------------------------------------------------------


def play_by_api(table: Table, position: int, text: str) -> None:
    match = table.refresh()
    response = table.seat(position).api.post(
        reverse("api-match-moves", args=[match.pk]), {"move": text, "version": match.version}, format="json"
    )
    assert response.status_code == 201, response.content
    assert response.json()["notation"] == text


def play_by_form(table: Table, position: int, text: str) -> None:
    match = table.refresh()
    response = table.seat(position).page.post(
        reverse("match-move", args=[match.pk]), {"move": text, "version": match.version}, follow=True
    )
    assert response.status_code == 200
    assert f"Played {text}." in response.content.decode()


# --- what a leak looks like ----------------------------------------------------------------------------


def sealed_now(table: Table) -> dict[int, Any]:
    """What the engine holds sealed at this moment, per House: its bid or its order."""
    state = table.refresh().engine_state
    held = {"bidding": lambda: state["bidding"]["bids"], "orders": lambda: state["orders"]}
    values = held[state["phase"]]() if state["phase"] in held else []
    return {position: value for position, value in enumerate(values) if value is not None}


def leaks(text: str, table: Table, position: int, sealed: Any, *, markup: bool = False) -> list[str]:
    """Every way the site writes a House's bid or order, found in ``text`` (in ``markup``, the bare
    number of a bid is not looked for: coordinates and sizes are numbers too)."""
    colour, player = COLOURS[position], table.players[position].username
    if isinstance(sealed, int):
        patterns = [
            rf"\bbid {sealed}\b",  # the notation, the SVG's "you bid 17 (sealed)"
            rf"\b{sealed} Power",  # "You bid 17 Power.", "Your sealed bid: 17 Power."
            rf"\b{colour} {sealed}\b",  # the reveal line and the SVG's last attack
            rf"\b{player} {sealed}\b",  # the panel's last bids
            rf'"bid": {sealed}\b',  # a private view or a move in JSON
        ]
        if not markup:
            patterns.append(rf"(?<![\w.]){sealed}(?![\w.])")  # the number itself: the bids are rare ones
    else:
        notation = table.match.engine.format_move(sealed)
        target = COLOURS[sealed["target"]] if "target" in sealed else ""
        card = sealed.get("card")
        # The SVG's own words for a revealed march or defence; the others show the notation.
        label = {"march": f"march on {target} with {card}", "defend": f"defend with {card}"}
        patterns = [
            rf"\b{notation}\b",  # the notation, "You order: raid green.", the panel's revealed order
            rf"\b{colour}: {sealed['order']}",  # the reveal line
            label.get(sealed["order"], notation),
            re.escape(json.dumps(sealed)),  # a private view in JSON
            # PostgreSQL's jsonb gives the keys back in its own order (shorter first), here the sorted one.
            re.escape(json.dumps(sealed, sort_keys=True)),
        ]
        if target:
            patterns.append(rf"marches on {target}|raids {target}")  # what it did
    return [p for p in patterns if re.search(p, text, flags=re.IGNORECASE)]


def assert_sealed(table: Table, *, viewers: list[Viewer]) -> None:
    """No viewer can fetch anything that names another House's sealed bid or order."""
    sealed = sealed_now(table)
    assert sealed, "nothing is sealed at the moment"
    for who in viewers:
        for name, text in everything(table, who).items():
            for position, value in sealed.items():
                if position != who.position:
                    found = leaks(text, table, position, value, markup=name.endswith("markup"))
                    assert not found, f"{COLOURS[position]}'s {value} reached {who.name} in {name}: {found}"


def assert_mails_sealed(table: Table) -> None:
    """Nothing sent to a player so far names another House's sealed bid or order."""
    sealed = sealed_now(table)
    for position, user in enumerate(table.players):
        sent = mails_to(user)
        for other, value in sealed.items():
            if other != position:
                assert not leaks(sent, table, other, value), (user.username, leaks(sent, table, other, value))


def assert_committed(table: Table, committed: list[int], *, viewers: list[Viewer], since: int) -> None:
    """Every viewer sees exactly these Houses as "committed", in the panel, the SVG, the API and the
    log's lines after ``since`` (the line that began the sealed stage)."""
    flags = [k in committed for k in range(3)]
    sealed = sealed_now(table)
    assert sorted(sealed) == committed
    pk = table.match.pk
    for who in viewers:
        page = who.page.get(reverse("match-detail", args=[pk])).content.decode()
        for position in range(3):
            status = re.search(rf'data-testid="status-{position}">([^<]*)<', page)[1]
            assert status == ("committed" if flags[position] else "thinking&hellip;"), (who.name, status)
        svg = who.page.get(reverse("match-board", args=[pk])).content.decode()
        statuses = re.findall(r'class="status">([^<]*)<', svg)
        for position in range(3):
            expected = "committed" if flags[position] else "thinking…"
            if position == who.position and flags[position]:  # its own sealed choice, to itself alone
                value = sealed[position]
                expected = "your order is sealed" if isinstance(value, dict) else f"you bid {value} (sealed)"
            assert statuses[position] == expected, (who.name, statuses)
        assert api_view(table, who)["committed"] == flags
        lines = who.api.get(reverse("api-match-log", args=[pk])).json()["lines"]
        log = json.dumps([line for line in lines if line["seq"] > since])
        for position in range(3):
            assert (f"{COLOURS[position]} has committed." in log) is flags[position], (who.name, position)


# --- the tests -----------------------------------------------------------------------------------------


def test_a_bid_reaches_no_other_seat_nor_a_spectator_before_the_last_house_commits(
    table, clock, django_capture_on_commit_callbacks
) -> None:
    start = table.refresh().log_length
    play_by_api(table, 0, f"bid {BIDS[0]}")
    assert sealed_now(table) == {0: BIDS[0]}
    # The "your move" e-mails of the attack go out now (the sweep sends what the queue did not), so
    # Blue's and Green's end with the latest line of the log as each may read it.
    clock.shift(timedelta(minutes=5))
    sweep.sweep_run()
    for position in (1, 2):
        sent = mails_to(table.players[position])
        assert "Latest in the log:" in sent and "Orange has committed." in sent
    assert_mails_sealed(table)
    assert_committed(table, [0], viewers=table.viewers, since=start)
    assert_sealed(table, viewers=table.viewers)
    # The same search does find the bid where it may be: in Orange's own answers.
    own = everything(table, table.seat(0))
    for name in ("match-detail", "match-board", "match-log", "api-match", "api-match-log"):
        assert leaks(own[name], table, 0, BIDS[0]), name
    assert "Your sealed bid: 17 Power." in own["match-detail"] and "you bid 17 (sealed)" in own["match-board"]
    assert "You bid 17 Power." in own["api-match-log"] and "You bid 17 Power." in own["match-log"]

    play_by_form(table, 1, f"bid {BIDS[1]}")
    assert sealed_now(table) == {0: BIDS[0], 1: BIDS[1]}
    assert_committed(table, [0, 1], viewers=table.viewers, since=start)
    assert_sealed(table, viewers=table.viewers)
    # A day on, Green is reminded of the bid it owes; the reminder names no bid either.
    clock.shift(timedelta(days=1))
    with django_capture_on_commit_callbacks(execute=True):
        sweep.sweep_run()
    assert "is still waiting" in mails_to(table.players[2])
    assert_mails_sealed(table)


def test_the_last_commit_reveals_every_bid_to_everyone_at_once(
    table, clock, django_capture_on_commit_callbacks
) -> None:
    play_by_api(table, 0, f"bid {BIDS[0]}")
    play_by_form(table, 1, f"bid {BIDS[1]}")
    assert_sealed(table, viewers=table.viewers)
    clock.shift(timedelta(minutes=10))  # nobody has the page open any more: the next e-mails go out
    with django_capture_on_commit_callbacks(execute=True):
        play_by_api(table, 2, f"bid {BIDS[2]}")
    state = table.refresh().engine_state
    assert state["last_bids"]["bids"] == BIDS and state["phase"] == "orders"

    total = sum(BIDS)
    line = "Bids revealed: Orange 17, Blue 13, Green 4."
    for who in table.viewers:
        seen = everything(table, who)
        for name in ("match-detail", "match-log", "api-match-log"):
            assert line in seen[name], (who.name, name)
            assert f"The Night's Watch has {total} against {STRENGTH}: the Night's Watch holds." in seen[name]
            # The attack's outcome: Skinchanger Scout gives the highest bidder its bid back.
            assert "The wildling card is Skinchanger Scout." in seen[name]
            assert "Orange gets its bid back: 17 Power." in seen[name]
        assert (
            f"Last wildling attack: Orange 17, Blue 13, Green 4; total {total} against {STRENGTH}: "
            "the Night's Watch held." in seen["match-board"]
        ), who.name
        panel = " ".join(seen["match-detail"].split())
        held = f"{total} against {STRENGTH}, the Night's Watch held."
        assert f"Last wildling attack: ann 17, ben 13, cat 4: {held}" in panel, who.name
        view = api_view(table, who)
        assert view["last_bids"]["bids"] == BIDS and view["last_bids"]["watch"] is True
        assert view["phase"] == "orders" and view["committed"] == [False, False, False]
        assert [house["power"] for house in view["houses"]] == [19, 2, 2]
    # The turns of the orders that follow are announced by e-mail, each ending with the reveal.
    for position in (0, 1):
        sent = mails_to(table.players[position])
        assert "Round 1: every House gives one order in secret." in sent and line in sent, position
    # The bid moves themselves stay sealed in the log: the reveal is what told the others the numbers.
    log = table.seat(2).api.get(reverse("api-match-log", args=[table.match.pk])).json()["lines"]
    assert [entry["notation"] for entry in log if entry["seat"] is not None] == ["", "", "bid 4"]


def test_an_order_reaches_nobody_else_until_every_house_has_given_one(
    table, clock, django_capture_on_commit_callbacks
) -> None:
    for position, value in enumerate(BIDS):
        play_by_api(table, position, f"bid {value}")
    clock.shift(timedelta(minutes=10))
    start = table.refresh().log_length
    play_by_api(table, 0, ORANGE_ORDER)
    assert sealed_now(table) == {0: {"order": "march", "target": 2, "card": 4}}
    clock.shift(timedelta(minutes=5))
    sweep.sweep_run()  # the orders' "your move" e-mails, sent after Orange has given its order
    for position in (1, 2):
        assert "Orange has committed." in mails_to(table.players[position])
    assert_mails_sealed(table)
    assert_committed(table, [0], viewers=table.viewers, since=start)
    assert_sealed(table, viewers=table.viewers)
    own = everything(table, table.seat(0))
    assert "Your order is sealed." in own["match-detail"] and "your order is sealed" in own["match-board"]
    assert f"You order: {ORANGE_ORDER}." in own["api-match-log"] and leaks(
        own["api-match"], table, 0, {"order": "march", "target": 2, "card": 4}
    )

    play_by_form(table, 1, "raid green")  # Green's own choices raid Orange or Blue only
    assert_committed(table, [0, 1], viewers=table.viewers, since=start)
    assert_sealed(table, viewers=table.viewers)
    play_by_api(table, 2, "consolidate")

    revealed = f"Orders revealed: Orange: {ORANGE_ORDER}; Blue: raid green; Green: consolidate."
    for who in table.viewers:
        seen = everything(table, who)
        for name in ("match-detail", "match-log", "api-match-log"):
            assert revealed in seen[name], (who.name, name)
            assert "Blue raids Green and spoils its consolidate order, taking 1 Power." in seen[name]
            assert "Orange marches on Green with 9 against 5: Orange takes a Castle." in seen[name]
        assert "order: march on Green with 4" in seen["match-board"]
        view = api_view(table, who)
        assert view["revealed_text"] == [ORANGE_ORDER, "raid green", "consolidate"]
        assert [house["castles"] for house in view["houses"]] == [4, 3, 2]
