"""A player organises a league from the leagues list, opens its first season and starts it early; the
page shows the division and its fixtures; a moderator closes the league. Real Chromium, live server, at
a desktop's and a phone's size."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.utils import timezone

from leagues import services
from leagues.models import Fixture, League, Season
from moderation.services import moderator_appoint
from tests.e2e.browsing import PASSWORD, open_page

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
# Where the pages' pictures go, to be looked at (not compared).
SHOTS = Path(os.environ.get("LEAGUE_SHOTS", "/tmp/shots-mailsleagues"))


# WCAG 2.0 to 2.2, levels A and AA, as the site's accessibility check runs it.
AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]},
    "resultTypes": ["violations"],
}


def shoot(page, name: str) -> None:
    """Keep a picture of the page, and check it as assistive technology meets it."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    results = Axe().run(page, options=AXE_OPTIONS)
    assert not results.violations_count, f"{name}: {results.generate_report()}"


def fits(page) -> bool:
    """Nothing wider than the screen: the page never scrolls sideways."""
    return page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


@pytest.fixture
def people(django_user_model):
    users = {
        name: django_user_model.objects.create_user(
            username=name, email=f"{name}@example.com", password=PASSWORD
        )
        for name in ("ann", "ben", "cat", "dan", "mia")
    }
    moderator_appoint(user=users["mia"])
    return users


@pytest.mark.parametrize(("size", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_a_player_organises_a_league_starts_its_season_and_a_moderator_closes_it(
    live_server, browser, people, size, viewport
):
    base = live_server.url
    context, page = open_page(browser, base, viewport, people["ann"])
    try:
        page.goto(f"{base}/leagues/")
        page.click("[data-testid=league-create]")
        page.wait_for_url(f"{base}/leagues/new/")
        # Only the chosen game's options are shown.
        page.select_option("#id_game", "wallgo")
        assert page.is_visible(".game-options[data-game=wallgo]")
        assert not page.is_visible(".game-options[data-game=stairways]")
        page.fill("#id_name", "Spring league")
        page.fill("#id_description", "Evenings, one move a day.")
        page.fill("#id_division_size", "4")
        page.fill("#id_points_by_place", "3, 0")
        page.select_option("#id_opt_wallgo_rules", "devils_plan")
        assert fits(page)
        shoot(page, f"league-new-{size}")
        page.click("form[data-testid=league-form] button[type=submit]")
        page.wait_for_url(f"{base}/leagues/spring-league/")
        assert "League created" in page.text_content(".messages")
        league = League.objects.get()
        assert league.created_by == people["ann"] and league.options["rules"] == "devils_plan"

        # The organiser opens the first season from the league's page.
        when = (timezone.localtime() + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M")
        page.fill("#id_starts_at", when)
        page.click("[data-testid=season-open] button[type=submit]")
        page.wait_for_url(f"{base}/leagues/spring-league/seasons/1/")
        assert "Season 1 is open for sign-ups." in page.text_content(".messages")
        season = Season.objects.get()
        for name in ("ben", "cat", "dan"):
            services.entry_signup(season_id=season.pk, user=people[name])
        page.click("[data-testid=signup]")
        page.wait_for_load_state()
        assert "You have signed up." in page.text_content(".messages")
        shoot(page, f"league-signup-{size}")

        # Start now: every fixture is created at once, and the page lists them by round.
        page.click("text=Start now")
        page.wait_for_load_state()
        page.wait_for_selector("[data-testid=division-1]")
        assert Fixture.objects.filter(division__season=season).count() == 6  # four players: six pairs
        assert page.locator("[data-testid=division-1] table.fixtures").count() == 3
        assert fits(page)
        shoot(page, f"league-running-{size}")

        page.goto(f"{base}/leagues/spring-league/settings/")
        assert page.input_value("#id_name") == "Spring league"
        assert fits(page)
        shoot(page, f"league-settings-{size}")
    finally:
        context.close()

    # Mia, a moderator, closes it.
    context, page = open_page(browser, base, viewport, people["mia"])
    try:
        page.goto(f"{base}/leagues/spring-league/")
        page.click("[data-testid=league-close] summary")
        page.fill("#id_note", "Moved to the summer league.")
        page.click("[data-testid=league-close] button[type=submit]")
        page.wait_for_load_state()
        assert "The league is closed" in page.text_content(".messages")
        assert "Moved to the summer league." in page.text_content("[data-testid=league-closed]")
        assert fits(page)
        shoot(page, f"league-closed-{size}")
        page.goto(f"{base}/leagues/")
        assert "(closed)" in page.text_content("[data-testid=leagues]")
        shoot(page, f"leagues-list-{size}")
    finally:
        context.close()
