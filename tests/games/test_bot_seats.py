"""Computer opponents in matches: seated at creation, moving as Celery tasks, taking over on timeout.

Tasks run eagerly in the test process; ``django_capture_on_commit_callbacks(execute=True)`` runs the work
each commit queues (and the work that work queues), as a worker would after the commit.
"""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.urls import reverse

from games import services
from games.bots import RandomBot, SearchBot, bot_for
from games.bots.levels import LEVELS
from games.errors import ServiceError
from games.models import Match, Move, Notification, Seat, Turn
from games.services import playing
from tests.conftest import no_vacation

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


@pytest.fixture
def bot_kinds(monkeypatch) -> list[str]:
    """The kinds the service asks games.bots for, in order; the bots themselves are the real ones."""
    asked: list[str] = []

    def spy(kind: str):
        asked.append(kind)
        return bot_for(kind)

    monkeypatch.setattr(playing, "bot_for", spy)
    return asked


def human_moves(match: Match) -> int:
    return Move.objects.filter(match=match, seat__user__isnull=False, move__isnull=False).count()


def bot_moves(match: Match) -> list[Move]:
    return list(Move.objects.filter(match=match, seat__bot__gt="", move__isnull=False))


# --- creating ---------------------------------------------------------------------------------------------
def test_a_match_filled_with_computer_opponents_starts_at_once(alice):
    match = services.match_create(creator=alice, game="wallgo", seat_count=3, bots=["easy", "hard"])
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.started_at is not None
    seats = list(match.seats.all())
    assert [(s.position, s.user, s.bot) for s in seats] == [
        (0, alice, ""),
        (1, None, "easy"),
        (2, None, "hard"),
    ]
    assert [s.player_name for s in seats] == ["alice", "Computer (easy)", "Computer (hard)"]
    assert match.engine_state is not None


def test_a_match_with_a_free_seat_left_waits_for_a_player(alice, bob):
    match = services.match_create(creator=alice, game="wallgo", seat_count=3, bots=["normal"])
    match.refresh_from_db()
    assert match.status == Match.Status.OPEN
    services.seat_join(match_id=match.pk, user=bob)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    assert [(s.user, s.bot) for s in match.seats.all()] == [(alice, ""), (None, "normal"), (bob, "")]


@pytest.mark.parametrize(
    ("seats", "kinds", "reason"),
    [
        (
            2,
            ["grandmaster"],
            "There is no computer opponent called 'grandmaster'; choose one of random, easy",
        ),
        (2, ["easy", "easy"], "Computer opponents can take at most 1 of the 2 seats: one is yours."),
        (4, ["easy"] * 4, "Computer opponents can take at most 3 of the 4 seats: one is yours."),
    ],
)
def test_bad_computer_opponents_are_refused_with_the_reason(alice, seats, kinds, reason):
    with pytest.raises(ServiceError) as caught:
        services.match_create(creator=alice, game="wallgo", seat_count=seats, bots=kinds)
    assert reason in caught.value.message
    assert not Match.objects.exists()


# --- the form -------------------------------------------------------------------------------------------
def create_form(client, user, **fields) -> object:
    client.force_login(user)
    data = {"game": "wallgo", "seat_count": 2, "move_time_unit": "days", "bot_level": "normal", **fields}
    return client.post(reverse("match-create"), data)


def test_the_form_seats_computer_opponents_and_the_match_starts(client, alice):
    response = create_form(client, alice, bot_count=1, bot_level="easy")
    match = Match.objects.get()
    assert response.status_code == 302 and response.url == match.get_absolute_url()
    assert match.status == Match.Status.ACTIVE
    assert match.seats.get(position=1).bot == "easy"
    page = client.get(match.get_absolute_url()).content.decode()
    assert "Computer (easy)" in page


def test_the_form_offers_computer_opponents_and_strengths(client, alice):
    client.force_login(alice)
    page = client.get(reverse("match-create")).content.decode()
    assert "Computer opponents" in page and "Computer strength" in page
    for label in ("Random moves", "Easy", "Normal", "Hard"):
        assert f">{label}</option>" in page
    assert "up to a fifth of a second, one second and three seconds a move" in page
    assert "Easy weighs only two dozen of its own moves" in page


def test_the_strengths_help_text_bounds_each_levels_thinking_time():
    # The form tells players how long each level thinks: a level given more time must change the text.
    said = {"easy": 0.2, "normal": 1.0, "hard": 3.0}
    for kind, bound in said.items():
        level = LEVELS[kind]
        assert level.seconds is not None and level.seconds <= bound, kind
    assert LEVELS["hard"].node_width > LEVELS["normal"].node_width  # "weighs more of the opponents' replies"
    assert LEVELS["easy"].root_width <= 24 < LEVELS["normal"].root_width  # "only two dozen of its own moves"
    assert set(LEVELS) == {"random", *said}


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"bot_count": 2}, "At most 1 computer opponent in a 2-player match: one seat is yours."),
        (
            {"seat_count": 4, "bot_count": 4},
            "At most 3 computer opponents in a 4-player match: one seat is yours.",
        ),
        ({"bot_count": 1, "bot_level": "grandmaster"}, "Select a valid choice."),
    ],
)
def test_the_form_shows_why_computer_opponents_cannot_be_seated(client, alice, fields, reason):
    response = create_form(client, alice, **fields)
    assert response.status_code == 400
    assert reason in response.content.decode()
    assert not Match.objects.exists()


# --- playing ----------------------------------------------------------------------------------------------
def test_the_computer_replies_to_every_human_move_until_the_game_ends(
    alice, django_capture_on_commit_callbacks, bot_kinds
):
    with django_capture_on_commit_callbacks(execute=True):
        match = services.match_create(creator=alice, game="wallgo", seat_count=2, bots=["easy"])
    rng = random.Random(7)
    played = 0
    while True:
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            break
        engine = match.engine
        # Whenever a human can look, the computer has already answered: it is alice's turn again.
        assert engine.actors(match.engine_state) == {0}
        assert match.work_due_at is None
        move = rng.choice(engine.legal_moves(match.engine_state, 0))
        with django_capture_on_commit_callbacks(execute=True):
            services.move_play(match_id=match.pk, user=alice, expected_version=match.version, move=move)
        played += 1
        assert played < 100
    assert match.status == Match.Status.FINISHED
    assert bot_moves(match) and set(bot_kinds) == {"easy"}
    assert len(bot_kinds) == len(bot_moves(match))
    assert human_moves(match) == played
    assert match.seats.get(position=1).score is not None


def test_the_computer_moves_first_when_it_holds_the_first_seat_to_act(
    alice, django_capture_on_commit_callbacks
):
    # The dice game deals first (a chance step), then both seats commit a card at once: the computer
    # commits without waiting for alice, and the round resolves when she commits hers.
    with django_capture_on_commit_callbacks(execute=True):
        match = services.match_create(creator=alice, game="testdice", seat_count=2, bots=["normal"])
    match.refresh_from_db()
    assert match.engine.actors(match.engine_state) == {0}
    assert match.public_view["committed"] == [False, True]
    hand = match.seats.get(user=alice).hidden_hand.data["hand"]
    with django_capture_on_commit_callbacks(execute=True):
        services.move_play(
            match_id=match.pk, user=alice, expected_version=match.version, text=f"play {hand[0]}"
        )
    match.refresh_from_db()
    assert match.public_view["round"] == 2 and match.public_view["committed"] == [False, True]


def test_a_position_that_changed_while_the_computer_thought_is_left_alone(alice, monkeypatch):
    match = services.match_create(creator=alice, game="wallgo", seat_count=2, bots=["random"])
    services.move_play(match_id=match.pk, user=alice, expected_version=0, text="d4")
    match.refresh_from_db()

    class Slow(RandomBot):
        def choose(self, engine, state, seat, rng):
            # While it thinks, its opponent gives up: the move it found belongs to a position gone by.
            services.match_resign(match_id=match.pk, user=alice)
            return super().choose(engine, state, seat, rng)

    monkeypatch.setattr(playing, "bot_for", lambda kind: Slow())
    assert services.bot_move(match_id=match.pk, version=match.version, position=1) is None
    assert not bot_moves(match)


def test_a_stale_or_repeated_computer_move_does_nothing(alice):
    match = services.match_create(creator=alice, game="wallgo", seat_count=2, bots=["random"])
    services.move_play(match_id=match.pk, user=alice, expected_version=0, text="d4")
    match.refresh_from_db()
    assert services.bot_move(match_id=match.pk, version=match.version - 1, position=1) is None
    assert services.bot_move(match_id=match.pk, version=match.version, position=0) is None  # alice's seat
    assert services.bot_move(match_id=match.pk, version=match.version, position=1) is not None
    assert services.bot_move(match_id=match.pk, version=match.version, position=1) is None
    assert len(bot_moves(match)) == 1


# --- timeouts and notifications -----------------------------------------------------------------------------
def test_the_bot_timeout_policy_hands_the_seat_to_the_search_bot(
    started_match, alice, bob, django_capture_on_commit_callbacks, bot_kinds
):
    no_vacation(alice, bob)
    match = started_match(move_time_limit=DAY, timeout_policy="bot")
    turn = Turn.objects.get(match=match, closed_at__isnull=True)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.turn_expire(turn_id=turn.pk, now=turn.deadline + DAY) == "bot"
    assert bot_kinds == ["normal"]
    assert isinstance(bot_for(bot_kinds[0]), SearchBot)
    match.refresh_from_db()
    assert match.seats.get(user=alice).autopilot
    last = Move.objects.filter(match=match, move__isnull=False).last()
    assert last.seat.user == alice and match.engine.actors(match.engine_state) == {1}


def test_computer_seats_get_no_deadlines_and_no_notifications(alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        match = services.match_create(
            creator=alice, game="wallgo", seat_count=3, bots=["random", "random"], move_time_limit=DAY
        )
    for _ in range(3):
        match.refresh_from_db()
        move = random.Random(1).choice(match.engine.legal_moves(match.engine_state, 0))
        with django_capture_on_commit_callbacks(execute=True):
            services.move_play(match_id=match.pk, user=alice, expected_version=match.version, move=move)
    bot_seats = Seat.objects.filter(match=match, user__isnull=True)
    assert len(bot_moves(match)) >= 6
    bot_turns = Turn.objects.filter(seat__in=bot_seats)
    assert bot_turns.exists() and not bot_turns.filter(deadline__isnull=False).exists()
    notes = Notification.objects.filter(match=match)
    assert notes.exists() and set(notes.values_list("user", flat=True)) == {alice.pk}
    assert not notes.filter(turn__seat__in=bot_seats).exists()


def test_a_table_left_with_only_computers_is_abandoned(alice):
    match = services.match_create(creator=alice, game="wallgo", seat_count=3, bots=["easy"])
    services.seat_leave(match_id=match.pk, user=alice)
    match.refresh_from_db()
    assert match.status == Match.Status.ABANDONED
    assert not match.seats.exists()
