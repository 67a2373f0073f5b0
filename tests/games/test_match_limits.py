"""What one account may create: unfinished matches, computer seats in play, matches per hour.

The caps hold a person's requests (``match_create(account_limits=True)``, as the web form and the API
call it); matches the site makes for players (league fixtures) are not held by them.
"""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
import time_machine
from django.db import connection
from django.utils import timezone

from games import services
from games.errors import LimitReached
from games.models import Match, Seat
from leagues import services as leagues

pytestmark = pytest.mark.django_db


def create(user, *, bots: tuple[str, ...] = ()) -> Match:
    """A Wall Go match as a person asks for one: waiting for a player, or full of computer opponents."""
    return services.match_create(
        creator=user,
        game="wallgo",
        seat_count=1 + len(bots) if bots else 2,
        bots=list(bots),
        account_limits=True,
    )


@pytest.fixture
def caps(settings):
    """Small caps, so a test reaches them in a few matches; each test lowers the one it is about."""
    settings.MAX_OPEN_MATCHES_PER_USER = 100
    settings.MAX_BOT_SEATS_PER_USER = 100
    settings.MAX_MATCHES_CREATED_PER_HOUR = 100
    return settings


def test_the_settings_hold_the_caps_the_readme_names(settings):
    assert settings.MAX_OPEN_MATCHES_PER_USER == 30
    assert settings.MAX_BOT_SEATS_PER_USER == 20
    assert settings.MAX_MATCHES_CREATED_PER_HOUR == 20


def test_an_account_may_have_only_so_many_unfinished_matches_it_created(caps, alice, bob):
    caps.MAX_OPEN_MATCHES_PER_USER = 3
    waiting = create(alice)
    in_play = create(alice)
    services.seat_join(match_id=in_play.pk, user=bob)
    create(alice)
    # Matches others created count for them, not for alice, even where she sits.
    services.seat_join(
        match_id=services.match_create(creator=bob, game="wallgo", seat_count=2).pk, user=alice
    )

    with pytest.raises(LimitReached) as refused:
        create(alice, bots=("random",))
    assert refused.value.status == 403 and refused.value.retry_after is None
    assert refused.value.message == (
        "You have 3 unfinished matches that you created, and one account may have at most 3 at once. "
        "Create this one once one of them is over (a match nobody has joined yet is over when you leave it)."
    )
    assert Match.objects.filter(created_by=alice).count() == 3 and not Seat.objects.exclude(bot="").exists()

    # Over, by leaving a table nobody joined or by the end of play, a match no longer counts.
    services.seat_leave(match_id=waiting.pk, user=alice)
    create(alice)
    services.match_resign(match_id=in_play.pk, user=alice)
    create(alice)
    assert Match.objects.filter(created_by=alice, status__in=["open", "active"]).count() == 3


def test_computer_seats_are_counted_across_the_account_s_unfinished_matches(caps, alice):
    caps.MAX_BOT_SEATS_PER_USER = 4
    create(alice, bots=("random", "easy", "hard"))

    with pytest.raises(LimitReached) as refused:
        create(alice, bots=("random", "random"))
    assert refused.value.status == 403
    assert refused.value.message == (
        "Computer opponents already hold 3 seats in your unfinished matches, and one account may have at "
        "most 4 at once. Choose at most 1 computer opponent, or finish a match against the computer first."
    )
    duel = create(alice, bots=("random",))
    with pytest.raises(LimitReached, match="Play people, or finish a match against the computer first"):
        create(alice, bots=("normal",))
    create(alice)  # a match against people only is no work for the bots' worker
    assert Seat.objects.exclude(bot="").count() == 4

    # Once a match is over, its computers no longer count.
    services.match_resign(match_id=duel.pk, user=alice)
    create(alice, bots=("random",))
    assert Seat.objects.exclude(bot="").count() == 5


def test_matches_created_in_the_last_hour_are_capped_until_the_oldest_is_an_hour_old(caps, alice):
    caps.MAX_MATCHES_CREATED_PER_HOUR = 3
    with time_machine.travel("2026-03-02 10:00Z", tick=False) as clock:
        first = create(alice)
        clock.shift(timedelta(minutes=10))
        create(alice)
        clock.shift(timedelta(minutes=10))
        create(alice)
        # Leaving a table nobody joined ends it, but it was created all the same.
        services.seat_leave(match_id=first.pk, user=alice)

        clock.shift(timedelta(minutes=25))
        with pytest.raises(LimitReached) as refused:
            create(alice)
        assert refused.value.status == 429 and refused.value.retry_after == 15 * 60
        assert refused.value.message == (
            "You have created 3 matches in the last hour, and one account may create at most 3 an hour. "
            "Try again in 15 minutes."
        )
        assert Match.objects.filter(created_by=alice).count() == 3

        clock.shift(timedelta(minutes=15, seconds=1))
        assert create(alice).created_at == timezone.now()
        with pytest.raises(LimitReached, match="Try again in 10 minutes"):
            create(alice)  # the next one frees a place at 11:10


def test_the_caps_hold_a_person_s_requests_not_the_matches_the_site_makes_for_players(caps, alice, make_user):
    caps.MAX_OPEN_MATCHES_PER_USER = caps.MAX_MATCHES_CREATED_PER_HOUR = 1
    players = [make_user(f"p{index}") for index in range(1, 6)]
    for user in players:
        services.match_create(creator=user, game="wallgo", seat_count=2)  # each at both caps already

    league = leagues.league_create(
        created_by=alice,
        name="Busy league",
        slug="busy",
        game="wallgo",
        players_per_match=2,
        division_size=8,
        move_time_limit=timedelta(days=2),
    )
    season = leagues.season_open(league=league, starts_at=timezone.now() + timedelta(hours=1), by=alice)
    for user in players:
        leagues.entry_signup(season_id=season.pk, user=user)
    assert leagues.season_start(season_id=season.pk, now=season.starts_at + timedelta(minutes=1)) == "started"

    # Every pair's fixture exists, though each was created in the name of a player past both caps.
    fixtures = Match.objects.filter(league_fixture__division__season=season)
    assert fixtures.count() == 10 and not fixtures.exclude(status="active").exists()


@pytest.mark.parametrize(
    ("cap", "value", "existing", "bots", "allowed"),
    [
        ("MAX_OPEN_MATCHES_PER_USER", 3, 2, (), 1),
        ("MAX_BOT_SEATS_PER_USER", 4, 0, ("random", "random"), 2),
        ("MAX_MATCHES_CREATED_PER_HOUR", 3, 1, (), 2),
    ],
)
@pytest.mark.django_db(transaction=True)
def test_creates_at_the_same_moment_cannot_slip_past_a_cap_together(
    caps, alice, cap, value, existing, bots, allowed
):
    setattr(caps, cap, value)
    for _ in range(existing):
        create(alice)
    attempts = 6
    barrier = threading.Barrier(attempts)
    created: list[int] = []
    refused: list[str] = []

    def attempt() -> None:
        try:
            barrier.wait()
            created.append(create(alice, bots=bots).pk)
        except LimitReached as exc:
            refused.append(exc.message)
        finally:
            connection.close()

    threads = [threading.Thread(target=attempt) for _ in range(attempts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(created) == allowed and len(refused) == attempts - allowed
    assert Match.objects.filter(created_by=alice).count() == existing + allowed
