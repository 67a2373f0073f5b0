from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from games import services as game_services
from games import signals
from games.errors import Conflict, ServiceError
from games.models import Match, Seat
from leagues import services, tasks
from leagues.models import Entry, Fixture, FixturePlayer, League, Season
from tests.ratings.conftest import play_scores

pytestmark = pytest.mark.django_db


@pytest.fixture
def players(make_user):
    return [make_user(f"p{index}") for index in range(1, 9)]


def make_league(owner, **settings) -> League:
    defaults = {"players_per_match": 2, "move_time_limit": timedelta(days=2), "division_size": 4}
    return services.league_create(
        created_by=owner,
        name="Wall <League>",
        slug="wall-league",
        game="testscores",
        **{**defaults, **settings},
    )


def open_season(league: League, users) -> Season:
    season = services.season_open(
        league=league, starts_at=timezone.now() + timedelta(hours=1), by=league.created_by
    )
    for user in users:
        services.entry_signup(season_id=season.pk, user=user)
    return season


def start(season: Season) -> str:
    return services.season_start(season_id=season.pk, now=season.starts_at + timedelta(minutes=1))


def play_all(season: Season, pick) -> None:
    """Finish every fixture of the season: ``pick(fixture users in seat order) -> scores``."""
    for fixture in Fixture.objects.filter(division__season=season).order_by("pk"):
        users = [p.user for p in fixture.players.order_by("position")]
        play_scores(fixture.match, pick(users))


def test_a_league_refuses_settings_that_cannot_make_matches(alice):
    with pytest.raises(ServiceError, match="2 to 4 players"):
        make_league(alice, players_per_match=5)
    with pytest.raises(ServiceError, match="each of the 2 places"):
        make_league(alice, points_by_place=[3, 1, 0])
    with pytest.raises(ServiceError, match="fewer points"):
        make_league(alice, points_by_place=[0, 3])
    with pytest.raises(ServiceError, match="no option"):
        make_league(alice, options={"speed": "fast"})
    assert not League.objects.exists()


def test_the_start_creates_every_fixture_as_a_started_match_with_the_leagues_clock(alice, players):
    league = make_league(alice, division_size=8, timeout_policy=Match.Timeout.FORFEIT)
    season = open_season(league, players[:5])
    assert start(season) == "started"
    season.refresh_from_db()
    assert season.status == Season.Status.RUNNING
    fixtures = list(Fixture.objects.filter(division__season=season).select_related("match"))
    assert len(fixtures) == 10  # five players, every pair once
    for fixture in fixtures:
        match = fixture.match
        assert match.status == Match.Status.ACTIVE and match.rated
        assert (match.move_time_limit, match.timeout_policy) == (timedelta(days=2), "forfeit")
        seated = list(match.seats.order_by("position").values_list("user_id", flat=True))
        assert seated == list(fixture.players.order_by("position").values_list("user_id", flat=True))
    pairs = {frozenset(f.players.values_list("user_id", flat=True)) for f in fixtures}
    assert len(pairs) == 10


def test_the_start_task_run_twice_creates_the_fixtures_once(alice, players):
    league = make_league(alice)
    season = open_season(league, players[:4])
    Season.objects.filter(pk=season.pk).update(starts_at=timezone.now() - timedelta(minutes=1))
    assert tasks.season_start(season.pk) == "started"
    assert tasks.season_start(season.pk) == "done already"
    assert tasks.tick() == {}
    assert Fixture.objects.count() == 6 and Match.objects.count() == 6


def test_a_season_waits_for_its_start_and_cancels_without_enough_players(alice, players):
    league = make_league(alice)
    season = open_season(league, players[:1])
    assert services.season_start(season_id=season.pk) == "not due"
    assert start(season) == "cancelled"
    season.refresh_from_db()
    assert season.status == Season.Status.CANCELLED and "Too few players" in season.note
    assert not Match.objects.exists()


def test_sign_up_is_once_and_closes_at_the_start(alice, bob, carol, players):
    league = make_league(alice)
    season = open_season(league, [bob])
    with pytest.raises(Conflict, match="already signed up"):
        services.entry_signup(season_id=season.pk, user=bob)
    services.entry_signup(season_id=season.pk, user=carol)
    services.entry_withdraw(season_id=season.pk, user=carol)
    services.entry_signup(season_id=season.pk, user=carol)
    start(season)
    with pytest.raises(Conflict, match="closed"):
        services.entry_signup(season_id=season.pk, user=players[0])
    with pytest.raises(Conflict, match="has started"):
        services.entry_withdraw(season_id=season.pk, user=bob)


def test_standings_follow_results_with_points_by_place_and_tie_breaks(alice, players):
    league = make_league(alice, division_size=8)
    a, b, c, d = players[:4]
    season = open_season(league, [a, b, c, d])
    start(season)
    # a beats everyone; b beats c, draws with d; c beats d.
    wins = {frozenset((a.pk, x.pk)): a for x in (b, c, d)} | {
        frozenset((b.pk, c.pk)): b,
        frozenset((c.pk, d.pk)): c,
    }

    def pick(users):
        winner = wins.get(frozenset(u.pk for u in users))
        return [9 if user == winner else (5 if winner is None else 1) for user in users]

    play_all(season, pick)
    table = list(Entry.objects.filter(season=season).order_by("position").select_related("user"))
    assert [(e.user, e.points, e.wins, e.played) for e in table] == [
        (a, 3.0, 3, 3),
        (b, 1.5, 1, 3),
        (c, 1.0, 1, 3),
        (d, 0.5, 0, 3),
    ]
    # Sonneborn-Berger: b beat c (1.0) and drew with d (0.5 / 2).
    assert table[1].tiebreak == pytest.approx(1.25)
    season.refresh_from_db()
    assert season.status == Season.Status.FINISHED


def test_a_tie_on_points_goes_to_wins_then_sonneborn_berger(alice, players):
    league = make_league(alice, division_size=8)
    a, b, c = players[:3]
    season = open_season(league, [a, b, c])
    start(season)
    # A cycle: a beats b, b beats c, c beats a. All on 1 point and 1 win; SB is 1 each too: sign-up order.
    beats = {frozenset((a.pk, b.pk)): a, frozenset((b.pk, c.pk)): b, frozenset((a.pk, c.pk)): c}
    play_all(season, lambda users: [9 if u == beats[frozenset(x.pk for x in users)] else 1 for u in users])
    order = list(Entry.objects.filter(season=season).order_by("position").values_list("user", flat=True))
    assert order == [a.pk, b.pk, c.pk]


def test_a_forfeit_scores_last_place_and_counts_against_the_player(alice, players):
    league = make_league(alice, players_per_match=3, division_size=8, points_by_place=[5, 2, 0])
    season = open_season(league, players[:3])
    start(season)
    fixture = Fixture.objects.get(division__season=season)
    first = fixture.players.get(position=0).user
    game_services.match_resign(match_id=fixture.match_id, user=first)
    play_scores(fixture.match, [0, 4, 4])
    results = {p.user_id: (p.rank, p.points) for p in FixturePlayer.objects.filter(fixture=fixture)}
    assert results[first.pk] == (3, 0.0)
    assert sorted(results.values()) == [(1, 3.5), (1, 3.5), (3, 0.0)]  # tied first places share 5 + 2


def test_a_multi_player_league_deals_balanced_tables(alice, players):
    league = make_league(alice, players_per_match=3, division_size=6)
    season = open_season(league, players[:6])
    start(season)
    fixtures = list(Fixture.objects.filter(division__season=season))
    assert len(fixtures) == 3 * 2  # three rounds of two tables: each player meets the five others
    per_round = {}
    for fixture in fixtures:
        per_round.setdefault(fixture.round, []).extend(fixture.players.values_list("user_id", flat=True))
    assert all(sorted(users) == sorted(p.pk for p in players[:6]) for users in per_round.values())
    assert all(f.match.seat_count == 3 and f.match.status == Match.Status.ACTIVE for f in fixtures)


def test_promotion_and_relegation_place_the_next_season(alice, players, make_user):
    league = make_league(alice, division_size=4, promotion_places=1)
    season = open_season(league, players)
    start(season)
    top, bottom = season.divisions.order_by("level")
    assert top.entries.count() == bottom.entries.count() == 4
    # The lower seat number always wins: positions follow the order in each division.
    rank = {p.pk: i for i, p in enumerate(players)}
    play_all(season, lambda users: [9 if rank[u.pk] == min(rank[x.pk] for x in users) else 1 for u in users])
    season.refresh_from_db()
    assert season.status == Season.Status.FINISHED
    down = Entry.objects.get(division=top, movement=Entry.Movement.DOWN).user
    up = Entry.objects.get(division=bottom, movement=Entry.Movement.UP).user
    assert Entry.objects.filter(season=season, movement=Entry.Movement.STAY).count() == 6
    newcomer = make_user("newcomer")
    nxt = open_season(league, [*players, newcomer])
    start(nxt)
    levels = {
        e.user_id: e.division.level for e in Entry.objects.filter(season=nxt).select_related("division")
    }
    assert levels[up.pk] == 1 and levels[down.pk] == 2 and levels[newcomer.pk] == 2


def test_a_voided_match_leaves_the_standings_and_an_abandoned_one_is_settled_by_the_tick(alice, players):
    league = make_league(alice, division_size=8)
    a, b, c = players[:3]
    season = open_season(league, [a, b, c])
    start(season)
    first, second, third = Fixture.objects.filter(division__season=season).order_by("pk")
    play_scores(first.match, [9, 1])
    with transaction.atomic():
        Match.objects.filter(pk=first.match_id).update(status=Match.Status.CANCELLED)
        first.match.status = Match.Status.CANCELLED
        signals.match_voided.send(sender=Match, match=first.match)
    first.refresh_from_db()
    assert first.status == Fixture.Status.VOID
    assert sum(Entry.objects.filter(season=season).values_list("points", flat=True)) == 0
    # A moderator abandons a match in play: no signal; the minute tick voids its fixture.
    Match.objects.filter(pk=second.match_id).update(status=Match.Status.ABANDONED)
    assert services.seasons_tick()["voided"] == 1
    play_scores(third.match, [5, 5])
    season.refresh_from_db()
    assert season.status == Season.Status.FINISHED


def test_the_league_page_shows_standings_fixtures_results_and_escapes_names(client, alice, players):
    league = make_league(alice)
    season = open_season(league, players[:2])
    page = client.get(reverse("league-detail", args=[league.slug])).content.decode()
    assert "Wall &lt;League&gt;" in page and "Wall <League>" not in page
    assert "p1" in page and "Sonneborn-Berger" in page
    start(season)
    play_all(season, lambda users: [9, 1])
    page = client.get(reverse("league-season", args=[league.slug, 1])).content.decode()
    assert 'data-testid="standings"' in page and 'data-testid="round-1"' in page
    assert "1st, 1 pt" in page and "Finished" in page
    assert client.get(reverse("league-season", args=[league.slug, 9])).status_code == 404
    assert client.get(reverse("leagues")).status_code == 200


def test_players_sign_up_on_the_page_and_the_organiser_opens_seasons(client, alice, bob):
    league = make_league(alice)
    client.force_login(alice)
    when = (timezone.now() + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M")
    response = client.post(reverse("league-season-open", args=[league.slug]), {"starts_at": when})
    assert response.status_code == 302
    again = client.post(reverse("league-season-open", args=[league.slug]), {"starts_at": when})
    assert again.status_code == 400 and "already taking sign-ups" in again.content.decode()
    client.force_login(bob)
    refused = client.post(reverse("league-season-open", args=[league.slug]), {"starts_at": when})
    assert refused.status_code == 403 and "organiser" in refused.content.decode()
    client.post(reverse("league-signup", args=[league.slug, 1]))
    assert Entry.objects.filter(user=bob, season__number=1).exists()
    page = client.post(reverse("league-signup", args=[league.slug, 1]), follow=True).content.decode()
    assert "already signed up" in page
    assert Seat.objects.count() == 0


@pytest.mark.parametrize(
    ("zone", "when"),
    [("America/New_York", "9999-12-31T23:59"), ("Asia/Tokyo", "0001-01-01T00:00")],
)
def test_a_season_start_beyond_the_years_a_date_can_hold_is_refused_with_the_reason(
    client, alice, zone, when
):
    """The last minutes of 9999 in New York are in year 10000 in UTC: SQLite's write overflowed (a
    500), PostgreSQL stored it and every later read of the league failed."""
    alice.time_zone = zone
    alice.save()
    league = make_league(alice)
    client.force_login(alice)
    response = client.post(reverse("league-season-open", args=[league.slug]), {"starts_at": when})
    assert response.status_code == 400
    assert "That date is out of range (years 1 to 9999 in UTC)" in response.content.decode()
    assert not Season.objects.exists()
    assert client.get(reverse("league-detail", args=[league.slug])).status_code == 200


def test_the_admin_lists_leagues_seasons_entries_fixtures_and_ratings(client, make_user, alice, players):
    league = make_league(alice)
    season = open_season(league, players[:2])
    start(season)
    play_all(season, lambda users: [9, 1])
    client.force_login(make_user("admin", is_staff=True, is_superuser=True))
    for name in ("leagues_league", "leagues_season", "leagues_entry", "leagues_fixture", "ratings_rating"):
        assert client.get(reverse(f"admin:{name}_changelist")).status_code == 200, name
    fixture = Fixture.objects.get()
    assert client.get(reverse("admin:leagues_fixture_change", args=[fixture.pk])).status_code == 200
    assert client.get(reverse("admin:leagues_league_change", args=[league.pk])).status_code == 200
    rated = fixture.match.rated_result
    assert client.get(reverse("admin:ratings_ratedmatch_change", args=[rated.pk])).status_code == 200
