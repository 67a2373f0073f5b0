"""Leagues run from their own pages: any player organises one (create, settings, open a season, start
it now), moderators and the organiser close one, and nobody else can; the admin and the demo data."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.core import mail
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from games.errors import Conflict, Forbidden, LimitReached, ServiceError
from games.models import Match
from leagues import services
from leagues.models import Fixture, League, Season

pytestmark = pytest.mark.django_db

NEW = reverse("league-create")


def league_form(**changes) -> dict[str, str]:
    data = {
        "name": "Spring league",
        "slug": "",
        "game": "wallgo",
        "description": "Evenings, one move a day.",
        "players_per_match": "2",
        "move_time": "2",
        "move_time_unit": "days",
        "timeout_policy": "forfeit",
        "division_size": "4",
        "meetings": "1",
        "points_by_place": "3, 0",
        "promotion_places": "1",
        "opt_wallgo_rules": "devils_plan",
    }
    return {**data, **changes}


def next_week() -> str:
    return (timezone.now() + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M")


def scores_league(owner, **settings) -> League:
    defaults = {
        "name": "Spring league",
        "players_per_match": 2,
        "move_time_limit": timedelta(days=2),
        "division_size": 4,
    }
    return services.league_create(created_by=owner, game="testscores", **{**defaults, **settings})


def page(client, league: League) -> str:
    return client.get(reverse("league-detail", args=[league.slug])).content.decode()


# --- organising ---------------------------------------------------------------------------------------


def test_any_player_organises_a_league_from_the_leagues_list(client, alice):
    client.force_login(alice)
    assert NEW in client.get(reverse("leagues")).content.decode()
    form = client.get(NEW)
    assert form.status_code == 200 and 'data-game="wallgo"' in form.content.decode()
    response = client.post(NEW, league_form())
    league = League.objects.get()
    assert response.status_code == 302 and response["Location"] == "/leagues/spring-league/"
    assert league.created_by == alice and league.slug == "spring-league"
    assert league.move_time_limit == timedelta(days=2) and league.timeout_policy == "forfeit"
    assert league.points_by_place == [3, 0] and league.options["rules"] == "devils_plan"
    shown = page(client, league)
    assert "League created" in shown and 'data-testid="organiser-tools"' in shown
    assert 'data-testid="season-open"' in shown
    # The same name again gets an address of its own.
    client.post(NEW, league_form())
    assert set(League.objects.values_list("slug", flat=True)) == {"spring-league", "spring-league-2"}


def test_visitors_are_asked_to_log_in_to_organise(client):
    assert "to organise a league" in client.get(reverse("leagues")).content.decode()
    response = client.get(NEW)
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"name": ""}, "This field is required."),
        ({"name": "x" * 81}, "at most 80 characters"),
        ({"name": "Null\x00league"}, "NUL"),
        ({"game": "chess"}, "Select a valid choice"),
        ({"players_per_match": "5"}, "2 to 4 players"),
        ({"players_per_match": "two"}, "Enter a whole number."),
        ({"points_by_place": "3, 1, 0"}, "each of the 2 places"),
        ({"points_by_place": "0, 3"}, "fewer points"),
        ({"points_by_place": "three, none"}, "Write numbers"),
        ({"points_by_place": "nan, 1"}, "Write numbers"),
        ({"points_by_place": "1e999, 1"}, "Write numbers"),
        ({"move_time": "0"}, "greater than or equal to 1"),
        ({"move_time": "", "bank_initial_hours": "5"}, "A reserve needs a time per move."),
        ({"slug": "new"}, "not &#x27;new&#x27;"),
        ({"slug": "Not a slug!"}, "Enter a valid"),
        ({"division_size": "1"}, "greater than or equal to 2"),
        ({"timeout_policy": "explode"}, "Select a valid choice"),
        ({"opt_wallgo_rules": "chess"}, "Select a valid choice"),
        ({"meetings": "9"}, "less than or equal to 4"),
    ],
)
def test_bad_settings_are_refused_with_the_reason_and_nothing_is_made(client, alice, changes, reason):
    client.force_login(alice)
    response = client.post(NEW, league_form(**changes))
    assert response.status_code == 400
    assert reason in response.content.decode()
    assert not League.objects.exists()


def test_an_address_already_taken_is_refused_with_the_reason(client, alice):
    client.force_login(alice)
    client.post(NEW, league_form(slug="spring"))
    response = client.post(NEW, league_form(slug="spring", name="Another"))
    assert response.status_code == 400 and "There is already a league at" in response.content.decode()
    assert League.objects.count() == 1


def test_one_account_organises_a_bounded_number_of_open_leagues(alice):
    for number in range(settings.MAX_OPEN_LEAGUES_PER_USER):
        scores_league(alice, name=f"League {number}")
    with pytest.raises(LimitReached, match="Close one of them"):
        scores_league(alice, name="One too many")
    services.league_close(league_id=League.objects.first().pk, by=alice, note="Done with it.")
    scores_league(alice, name="Now there is room")


def test_the_organiser_opens_a_season_and_starts_it_now_and_the_page_shows_the_fixtures(
    client, alice, bob, carol, django_capture_on_commit_callbacks
):
    league = scores_league(alice)
    client.force_login(alice)
    opened = client.post(reverse("league-season-open", args=[league.slug]), {"starts_at": next_week()})
    assert opened.status_code == 302
    for user in (alice, bob, carol):
        services.entry_signup(season_id=league.seasons.get().pk, user=user)
    with django_capture_on_commit_callbacks(execute=True):
        started = client.post(reverse("league-season-start", args=[league.slug, 1]), follow=True)
    assert "the fixtures are being created" in started.content.decode()
    season = league.seasons.get()
    assert season.status == Season.Status.RUNNING
    assert Fixture.objects.filter(division__season=season).count() == 3  # three players: three pairs
    shown = page(client, league)
    assert 'data-testid="division-1"' in shown and 'data-testid="round-1"' in shown
    assert shown.count('data-testid="standings"') == 1


def test_settings_change_between_seasons_and_the_scoring_stays_while_one_is_under_way(client, alice, bob):
    league = scores_league(alice)
    client.force_login(alice)
    settings_page = reverse("league-settings", args=[league.slug])
    form = client.get(settings_page)
    assert form.status_code == 200 and 'value="Spring league"' in form.content.decode()
    changed = league_form(game="", players_per_match="2", points_by_place="2, 1", move_time="12")
    changed["move_time_unit"] = "hours"
    assert client.post(settings_page, changed).status_code == 302
    league.refresh_from_db()
    assert league.points_by_place == [2, 1] and league.move_time_limit == timedelta(hours=12)
    assert league.game == "testscores"  # the game stays
    season = services.season_open(league=league, starts_at=timezone.now() + timedelta(hours=1), by=alice)
    for user in (alice, bob):
        services.entry_signup(season_id=season.pk, user=user)
    services.season_start(season_id=season.pk, now=season.starts_at)
    refused = client.post(settings_page, {**changed, "points_by_place": "5, 0"})
    assert refused.status_code == 400 and "Season 1 is under way" in refused.content.decode()
    # A clock for the next season is fine meanwhile.
    assert (
        client.post(settings_page, {**changed, "move_time": "3", "move_time_unit": "days"}).status_code == 302
    )
    league.refresh_from_db()
    assert league.points_by_place == [2, 1] and league.move_time_limit == timedelta(days=3)


def test_a_player_who_does_not_organise_the_league_is_refused_with_a_clear_message(client, alice, bob):
    league = scores_league(alice)
    season = services.season_open(league=league, starts_at=timezone.now() + timedelta(days=1), by=alice)
    client.force_login(bob)
    shown = page(client, league)
    assert 'data-testid="organiser-tools"' not in shown and 'data-testid="league-close"' not in shown
    response = client.get(reverse("league-settings", args=[league.slug]))
    assert response.status_code == 403 and "Only the league&#x27;s organiser" in response.content.decode()
    response = client.post(reverse("league-settings", args=[league.slug]), league_form())
    assert response.status_code == 403
    started = client.post(reverse("league-season-start", args=[league.slug, 1]), follow=True)
    assert "Only the league&#x27;s organiser can start a season." in started.content.decode()
    closed = client.post(reverse("league-close", args=[league.slug]), {"note": "Mine now"})
    assert closed.status_code == 403 and "organiser or a moderator" in closed.content.decode()
    league.refresh_from_db()
    season.refresh_from_db()
    assert league.closed_at is None and season.status == Season.Status.SIGNUP
    with pytest.raises(Forbidden):
        services.league_update(league_id=league.pk, by=bob, name="Bob's")
    with pytest.raises(Forbidden):
        services.league_close(league_id=league.pk, by=bob, note="Mine")


def test_a_moderator_closes_a_league_its_sign_up_season_is_cancelled_and_it_opens_no_more(
    client, alice, bob, moderator
):
    league = scores_league(alice)
    season = services.season_open(league=league, starts_at=timezone.now() + timedelta(days=1), by=alice)
    services.entry_signup(season_id=season.pk, user=bob)
    client.force_login(moderator)
    assert 'data-testid="league-close"' in page(client, league)
    empty = client.post(reverse("league-close", args=[league.slug]), {"note": "  "})
    assert empty.status_code == 400 and "This field is required." in empty.content.decode()
    response = client.post(reverse("league-close", args=[league.slug]), {"note": "Spam league."}, follow=True)
    shown = response.content.decode()
    assert (
        "The league is closed" in shown and 'data-testid="league-closed"' in shown and "Spam league." in shown
    )
    league.refresh_from_db()
    season.refresh_from_db()
    assert league.closed_at is not None and league.closed_note == "Spam league."
    assert season.status == Season.Status.CANCELLED
    again = client.post(reverse("league-close", args=[league.slug]), {"note": "Again"}, follow=True)
    assert "closed already" in again.content.decode()
    with pytest.raises(Conflict, match="closed"):
        services.season_open(league=league, starts_at=timezone.now() + timedelta(days=1), by=alice)
    with pytest.raises(Conflict, match="closed"):
        services.league_update(league_id=league.pk, by=alice, name="Back")
    client.force_login(alice)
    assert 'data-testid="season-open"' not in page(client, league)
    assert "(closed)" in client.get(reverse("leagues")).content.decode()


def test_the_league_addresses_answer_404_for_a_league_that_does_not_exist(client, alice):
    client.force_login(alice)
    assert client.get(reverse("league-settings", args=["nothing"])).status_code == 404
    assert client.post(reverse("league-close", args=["nothing"]), {"note": "x"}).status_code == 404
    with pytest.raises(ServiceError):
        services.league_close(league_id="x", by=alice, note="x")


# --- league e-mails ------------------------------------------------------------------------------------


def test_a_fixtures_emails_name_the_league_the_round_and_the_opponents(
    alice, bob, carol, django_capture_on_commit_callbacks
):
    league = scores_league(alice, players_per_match=3, division_size=3, meetings=1)
    season = services.season_open(league=league, starts_at=timezone.now() + timedelta(hours=1), by=alice)
    for user in (alice, bob, carol):
        services.entry_signup(season_id=season.pk, user=user)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.season_start(season_id=season.pk, now=season.starts_at) == "started"
    fixture = Fixture.objects.order_by("round", "table").first()
    first = fixture.players.get(position=0).user
    others = [p.user.username for p in fixture.players.order_by("position") if p.user_id != first.pk]
    subjects = [m.subject for m in mail.outbox if m.to == [first.email]]
    expected = (
        f"Spring league, season 1, division 1, round {fixture.round}: "
        f"you against {others[0]} and {others[1]} \N{EM DASH} your move"
    )
    assert expected in subjects


# --- the admin and the demo data -----------------------------------------------------------------------


def test_the_admin_makes_whoever_adds_a_league_its_organiser(client, make_user):
    admin = make_user("admin", is_staff=True, is_superuser=True)
    client.force_login(admin)
    add = reverse("admin:leagues_league_add")
    form = client.get(add).content.decode()
    assert 'name="created_by"' not in form
    data = {
        "name": "Admin league",
        "slug": "admin-league",
        "game": "wallgo",
        "players_per_match": "2",
        "options": "{}",
        "timeout_policy": "skip",
        "division_size": "8",
        "meetings": "1",
        "points_by_place": "[]",
        "promotion_places": "2",
    }
    response = client.post(add, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    league = League.objects.get(slug="admin-league")
    assert league.created_by == admin
    change = client.get(reverse("admin:leagues_league_change", args=[league.pk])).content.decode()
    assert 'name="created_by"' not in change and "admin" in change


def test_the_demo_data_has_a_league_with_a_season_under_way(capsys):
    call_command("seed_demo")
    league = League.objects.get()
    season = league.seasons.get()
    assert season.status == Season.Status.RUNNING
    fixtures = Fixture.objects.filter(division__season=season)
    assert fixtures.filter(status=Fixture.Status.DONE).exists()
    assert fixtures.filter(status=Fixture.Status.PLAYING, match__log_length__gt=0).exists()
    assert all(f.match.status in (Match.Status.ACTIVE, Match.Status.FINISHED) for f in fixtures)
