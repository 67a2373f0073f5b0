"""The site as assistive technology and small screens meet it, in a real Chromium.

axe-core (WCAG 2.0, 2.1 and 2.2, levels A and AA) runs on the main pages and on a match in play for
every game in the registry, as the player to move, at desktop size and at a phone's size; on the phone
no page may scroll sideways and the board is drawn at a readable width. Then every game is played with
the keyboard alone: Tab and Shift+Tab reach the offered places on the server-drawn board, Enter or Space
chooses one, through every step of a move, and the Play button sends the move.
"""

from __future__ import annotations

import json
import random
from datetime import timedelta

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.utils import timezone

from games import services
from games.engines import registry
from games.models import Match, Move
from games.playouts import play_random_moves
from leagues import services as league_services
from moderation.services import moderator_appoint, report_create
from tests.e2e.browsing import PASSWORD
from tests.e2e.browsing import open_page as open_context

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {"desktop": {"width": 1200, "height": 900}, "phone": {"width": 375, "height": 740}}
# On a phone the board fills the screen's width, less the page's margins: not shrunk to a stamp.
PHONE_BOARD_MIN = 300
AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]},
    "resultTypes": ["violations"],
}
# Games registered by the test suite itself (tests/support/) are not the site's.
GAMES = [slug for slug in registry.slugs() if not registry.ENGINES[slug].startswith("tests.")]
WIDEST = """() => {
  const width = document.documentElement.clientWidth;
  const wide = [...document.querySelectorAll("body *")].filter((el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.right > width + 1 && !el.closest("svg *");
  });
  // Report the outermost culprits only.
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
    + (el.getAttribute("class") ? "." + el.getAttribute("class").trim().split(/\\s+/).join(".") : "");
  return wide.filter((el) => !wide.includes(el.parentElement)).slice(0, 5).map(
    (el) => name(el) + " (right edge " + Math.round(el.getBoundingClientRect().right) + "px)");
}"""


def make_users(django_user_model, *names: str) -> dict:
    return {
        name: django_user_model.objects.create_user(
            username=name, email=f"{name}@example.com", password=PASSWORD
        )
        for name in names
    }


def open_page(browser, base: str, size: str, user=None):
    """A fresh browser context at ``size``, logged in as ``user`` or anonymous."""
    return open_context(browser, base, VIEWPORTS[size], user)


def check(page, size: str, what: str) -> list[str]:
    """axe's violations on the page as it is now, and on a phone any sideways scrolling, as readable
    lines (empty when all is well)."""
    problems = []
    results = Axe().run(page, options=AXE_OPTIONS)
    if results.violations_count:
        problems.append(f"{what} ({size}, {page.url}): {results.generate_report()}")
    if size == "phone":
        width = VIEWPORTS["phone"]["width"]
        scroll = page.evaluate("() => document.documentElement.scrollWidth")
        if scroll > width:
            culprits = ", ".join(page.evaluate(WIDEST))
            problems.append(f"{what} ({size}, {page.url}): {scroll}px wide on a {width}px screen: {culprits}")
    return problems


def report(problems: list[str]) -> str:
    return "\n\n".join(["", *problems])


@pytest.fixture
def site(django_user_model):
    """A little life on the site: players, a moderator, open, active and finished matches, a league with
    a season taking sign-ups, and a report in the moderators' queue."""
    users = make_users(django_user_model, "ann", "ben", "mia")
    moderator_appoint(user=users["mia"])
    services.match_create(creator=users["ben"], game="wallgo", seat_count=2, name="Open table")
    active = services.match_create(creator=users["ann"], game="wallgo", seat_count=2, name="Duel")
    services.seat_join(match_id=active.pk, user=users["ben"])
    play_random_moves(match_id=active.pk, rng=random.Random(3), moves=3)
    finished = services.match_create(creator=users["ann"], game="wallgo", seat_count=2, name="Done")
    services.seat_join(match_id=finished.pk, user=users["ben"])
    play_random_moves(match_id=finished.pk, rng=random.Random(4), moves=500)
    league = league_services.league_create(
        created_by=users["ann"], name="Wall Go Monthly", slug="wallgo-monthly", game="wallgo"
    )
    league_services.season_open(league=league, starts_at=timezone.now() + timedelta(days=3), by=users["ann"])
    report_create(
        reporter=users["ann"],
        reason="stalling",
        details="No move for a week",
        reported_id=users["ben"].pk,
        match_id=active.pk,
    )
    return {"users": users, "active": active, "league": league}


@pytest.mark.parametrize("size", list(VIEWPORTS))
def test_the_main_pages_pass_the_accessibility_check(live_server, browser, site, size):
    base = live_server.url
    users = site["users"]
    problems: list[str] = []
    contexts = []

    context, page = open_page(browser, base, size)
    contexts.append(context)
    for what, path in [
        ("lobby", "/"),
        ("log in", "/accounts/login/"),
        ("sign up", "/accounts/signup/"),
        ("password reset", "/accounts/password-reset/"),
        ("leagues", "/leagues/"),
        ("a league", site["league"].get_absolute_url()),
        ("ratings", "/ratings/"),
        ("a leaderboard", "/ratings/wallgo/"),
        ("a profile", "/players/ann/"),
        ("a match, watched", site["active"].get_absolute_url()),
    ]:
        page.goto(base + path)
        problems += check(page, size, what)
    # A form sent wrong shows its errors.
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", "ann")
    page.fill("#id_password", "not the password")
    page.click("form[data-testid=login-form] button[type=submit]")
    page.wait_for_load_state()
    problems += check(page, size, "log in, refused")

    context, page = open_page(browser, base, size, users["ann"])
    contexts.append(context)
    for what, path in [
        ("lobby, logged in", "/"),
        ("my matches", "/me/matches/"),
        ("settings", "/accounts/settings/"),
        ("own profile", "/players/ann/"),
        ("password change", "/accounts/password-change/"),
        ("leagues, logged in", "/leagues/"),
        ("a league, logged in", site["league"].get_absolute_url()),
    ]:
        page.goto(base + path)
        problems += check(page, size, what)
    page.goto(f"{base}/matches/new/")
    problems += check(page, size, "new match form")
    for slug in GAMES:
        page.select_option("#id_game", slug)
        problems += check(page, size, f"new match form for {slug}")
    page.select_option("#id_game", GAMES[0])
    page.click("[data-testid=preview-button]")
    page.wait_for_load_state()
    problems += check(page, size, "new match form with a preview")

    context, page = open_page(browser, base, size, users["mia"])
    contexts.append(context)
    page.goto(f"{base}/moderation/")
    assert "No move for a week" in page.text_content("main")
    problems += check(page, size, "moderation queue")
    page.goto(base + site["active"].get_absolute_url())
    problems += check(page, size, "a match, as a moderator")

    for context in contexts:
        context.close()
    assert not problems, report(problems)


@pytest.mark.parametrize("size", list(VIEWPORTS))
@pytest.mark.parametrize("game", GAMES)
def test_a_match_in_play_passes_the_accessibility_check_for_the_player_to_move(
    live_server, browser, django_user_model, game, size
):
    base = live_server.url
    engine = registry.get_engine(game)
    names = ["ann", "ben", "cat", "dan", "eve", "fay"][: max(engine.min_players, 2)]
    users = make_users(django_user_model, *names)
    match = services.match_create(creator=users["ann"], game=game, seat_count=len(names), name="A table")
    for name in names[1:]:
        services.seat_join(match_id=match.pk, user=users[name])
    match = play_random_moves(match_id=match.pk, rng=random.Random(7), moves=4)
    assert match.status == Match.Status.ACTIVE
    actor = min(match.engine.actors(match.engine_state))
    player = match.seats.get(position=actor).user

    problems: list[str] = []
    context, page = open_page(browser, base, size, player)
    page.goto(base + match.get_absolute_url())
    assert "Your move." in page.text_content("[data-testid=match-status]")
    assert page.locator("#board [data-target].choosable").count() > 0
    problems += check(page, size, f"{game} match, to move")
    if size == "phone":
        drawn = page.locator("#board svg").bounding_box()
        if drawn["width"] < PHONE_BOARD_MIN:
            problems.append(f"{game} match ({size}): the board is {drawn['width']:.0f}px wide")
    # Halfway through a move: the first place chosen, the next ones offered.
    first = page.locator("#board [data-target].choosable").first
    first.focus()
    page.keyboard.press("Enter")
    problems += check(page, size, f"{game} match, a move begun")
    # The whole log, too.
    page.goto(base + match.get_absolute_url() + "log/")
    problems += check(page, size, f"{game} match log")
    context.close()
    assert not problems, report(problems)


SHAPES = """() => [...document.querySelectorAll("[data-testid=seats] tbody tr")].map((row) => {
  const swatch = getComputedStyle(row.querySelector(".seat-swatch"));
  return [row.querySelector(".seat-colour").textContent.trim(),
          [swatch.borderRadius, swatch.clipPath, swatch.transform].join(" ")];
})"""
MARKERS = """() => [0, 1, 2, 3, 4, 5].map((seat) => {
  const el = document.querySelector("#board svg .marker.seat-" + seat);
  return el && el.tagName + (el.getAttribute("points") || "").trim().split(/\\s+/).length;
})"""


def test_six_seats_are_told_apart_without_their_colours(live_server, browser, django_user_model):
    """The largest table there is: each seat's swatch beside the players has its own shape and says its
    colour in words, and the board marks each seat with a shape of its own."""
    base = live_server.url
    names = ["ann", "ben", "cat", "dan", "eve", "fay"]
    users = make_users(django_user_model, *names)
    match = services.match_create(creator=users["ann"], game="wildlings", seat_count=6, name="Six Houses")
    for name in names[1:]:
        services.seat_join(match_id=match.pk, user=users[name])
    context, page = open_page(browser, base, "desktop", users["ann"])
    page.goto(base + match.get_absolute_url())
    seats = page.evaluate(SHAPES)
    assert [colour for colour, _ in seats] == [
        "orange circle",
        "blue square",
        "green triangle",
        "pink diamond",
        "vermilion pentagon",
        "sky hexagon",
    ]
    assert len({shape for _, shape in seats}) == 6, seats
    markers = page.evaluate(MARKERS)
    assert None not in markers and len(set(markers)) == 6, markers
    context.close()


# --- the keyboard alone ------------------------------------------------------------------------------
FOCUSED = """() => {
  const el = document.activeElement;
  if (!el || !el.dataset || !el.dataset.target) return null;
  return [el.dataset.target, el.classList.contains("choosable")];
}"""


def focused_target(page) -> str | None:
    focused = page.evaluate(FOCUSED)
    return focused[0] if focused else None


def tab_to(page, target: str, *, backwards: bool = False) -> int:
    """Press Tab (or Shift+Tab) until the board's ``target`` has the focus; how many presses it took.
    On the way the focus rests on offered places only."""
    key = "Shift+Tab" if backwards else "Tab"
    for presses in range(1, 400):
        page.keyboard.press(key)
        focused = page.evaluate(FOCUSED)
        if focused:
            assert focused[1], f"the focus rests on {focused[0]}, which is not offered"
            if focused[0] == target:
                return presses
    raise AssertionError(f"{target} never took the focus")


def keyboard_move(page, move: dict, *, key: str, backwards: bool) -> None:
    """Choose each place of ``move``'s path from the keyboard, then press Play with it too."""
    page.locator("#id_move").focus()  # a start the board is reached from in either direction
    for target in move["path"]:
        tab_to(page, target, backwards=backwards)
        element = page.locator(f'#board [data-target="{target}"]').first
        assert element.get_attribute("role") == "button"
        # Named by the board in words, not by the script's fallback (the bare target id).
        assert element.get_attribute("aria-label") not in (None, "", target), f"{target} has no name"
        assert "choosable" in element.get_attribute("class")
        page.keyboard.press(key)
        assert "chosen" in element.get_attribute("class") or element.get_attribute("aria-pressed") == "true"
    assert page.input_value("#id_move") == move["text"]
    # The completed move hands the focus to Play.
    assert page.evaluate("() => document.activeElement.id") == "move-submit"
    page.keyboard.press("Enter")
    page.wait_for_load_state()
    assert f"Played {move['text']}." in page.text_content(".messages")


def legal_moves(page) -> list[dict]:
    return json.loads(page.locator("#legal-moves").text_content())


def chosen(page) -> set[str]:
    return set(
        page.locator("#board [data-target].chosen").evaluate_all("els => els.map((e) => e.dataset.target)")
    )


def seat_moves(match: Match) -> int:
    """The lines of the log a player wrote (chance steps between turns write lines of their own)."""
    return Move.objects.filter(match=match, seat__isnull=False).count()


# Tables as small as each game allows (at least two players), and a move cap generous enough for the
# slowest game to offer two moves of several steps (the Wildlings' deck decides when orders come up).
KEYBOARD_MOVE_CAP = {"wildlings": 40, "greatwall": 30}


@pytest.mark.parametrize("game", GAMES)
def test_a_match_is_played_with_the_keyboard_alone(live_server, browser, django_user_model, game):
    base = live_server.url
    engine = registry.get_engine(game)
    names = ["ann", "ben", "cat", "dan", "eve", "fay"][: max(engine.min_players, 2)]
    users = make_users(django_user_model, *names)
    match = services.match_create(creator=users["ann"], game=game, seat_count=len(names), name="Keys only")
    for name in names[1:]:
        services.seat_join(match_id=match.pk, user=users[name])
    contexts, pages = [], {}
    for position, name in enumerate(names):
        context, pages[position] = open_page(browser, base, "desktop", users[name])
        contexts.append(context)
    rng = random.Random(11)
    played = steps = 0
    cap = KEYBOARD_MOVE_CAP.get(game, 16)
    # Several moves, at least two of them built from several places (Wall Go: the placement, then
    # full turns of a token's move and a wall; The Wall: a unit, then where it goes and what it does).
    while played < 4 or steps < 2:
        assert played < cap, f"no two moves of several steps came up in {cap} moves"
        match.refresh_from_db()
        assert match.status == Match.Status.ACTIVE
        actor = min(match.engine.actors(match.engine_state))
        page = pages[actor]
        page.goto(base + match.get_absolute_url())
        assert "Your move." in page.text_content("[data-testid=match-status]")
        moves = legal_moves(page)
        longer = [m for m in moves if len(m["path"]) > 1]
        move = rng.choice(longer or moves)
        before = seat_moves(match)
        keyboard_move(page, move, key="Enter" if played % 2 else " ", backwards=played % 2 == 1)
        # The move landed: one more line in the log, the one chosen.
        assert seat_moves(match) == before + 1
        last = Move.objects.filter(match=match, seat__isnull=False).latest("seq")
        assert (last.seat.position, last.notation) == (actor, move["text"])
        played += 1
        steps += len(move["path"]) > 1
    assert seat_moves(match) == played

    match.refresh_from_db()
    page = pages[min(match.engine.actors(match.engine_state))]
    page.goto(base + match.get_absolute_url())
    moves = legal_moves(page)
    # The arrow keys go from one offered place to another.
    firsts = {m["path"][0] for m in moves}
    page.locator("#id_move").focus()
    tab_to(page, sorted(firsts)[0], backwards=True)
    if len(firsts) > 1:
        reached = set()
        for key in ("ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp"):
            page.keyboard.press(key)
            reached.add(focused_target(page))
        assert reached - {sorted(firsts)[0]} and reached <= firsts, reached
    # Escape starts the move again; nothing is sent.
    move = next((m for m in moves if len(m["path"]) > 1), moves[0])
    page.locator("#id_move").focus()
    tab_to(page, move["path"][0], backwards=True)
    page.keyboard.press("Enter")
    if len(move["path"]) > 1:
        assert chosen(page) == {move["path"][0]}
        page.keyboard.press("Escape")
    else:
        page.click("#move-clear")
    assert page.input_value("#id_move") == ""
    assert chosen(page) == set()
    assert seat_moves(match) == played
    for context in contexts:
        context.close()
