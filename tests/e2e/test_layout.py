"""How the pages are laid out, measured in a real Chromium at a desktop's and at a phone's size.

On a 1280px desktop the wide, dense boards (the Wildlings' table, Stairways on several boards) take the
page's whole width above the side panels, the two big ones (The Wall's hex map, The Great Wall) as tall
as the screen with their actions beside them, while the square boards keep their column beside the
side panels. On a 375px phone every board has a zoom switch: zoomed, the board is drawn at least twice
the screen's width (or at its own size, when that is wider) inside a frame that scrolls both ways, the
page itself still never scrolls sideways, moves are still chosen by keyboard and by click, and the
choice outlives a reload; the big boards open zoomed until a choice is made
(tests/e2e/test_big_boards.py measures those more closely). No word in any table of a match page, of My
matches or of the lobby is broken in two, and on My matches each deadline is on the screen.
"""

from __future__ import annotations

import json
import random
from datetime import timedelta

import pytest

from games import services
from games.engines import registry
from games.models import Match, Move
from games.playouts import play_random_moves
from tests.e2e.browsing import PASSWORD, open_page

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 740}
# The page's content is at most 1200px wide, less its padding: a wide board gets about 1168px.
WIDE_BOARD_MIN = 1000
# The big boards are as tall as the screen, with a column beside them: narrower than the wide ones.
BIG_BOARD_MIN = 800
BIG_BOARDS = ("thewall", "greatwall")
# Names as long as people's names often are, so that the tables are measured with real content.
NAMES = ["annabelle", "benedikt", "caroline", "dominique", "evangeline", "fernando"]
# Games registered by the test suite itself (tests/support/) are not the site's.
GAMES = [slug for slug in registry.slugs() if not registry.ENGINES[slug].startswith("tests.")]

# Every word of every table cell in the page's main part that is drawn across two lines, or is wider
# than its cell's content box, whatever the cell's overflow-wrap and word-break say.
SPLIT_WORDS = """() => {
  const problems = [];
  const range = document.createRange();
  for (const cell of document.querySelectorAll("main table th, main table td")) {
    const style = getComputedStyle(cell);
    if (!cell.getClientRects().length) continue;
    const inner = cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      // A word ends at white space, or just after a hyphen or a dash, where a line may break.
      for (const match of node.data.matchAll(/[^\\s\\-\\u2010\\u2013\\u2014]+[\\-\\u2010\\u2013\\u2014]?/g)) {
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const rects = [...range.getClientRects()].filter((r) => r.width > 0);
        if (!rects.length) continue;  // not drawn (a header for screen readers only, a hidden label)
        const lines = new Set(rects.map((r) => Math.round(r.top)));
        const width = range.getBoundingClientRect().width;
        if (lines.size > 1 || width > inner + 0.5) {
          const table = cell.closest("table");
          const where = table.dataset.testid || table.className;
          problems.push(`"${match[0]}" in a ${cell.tagName.toLowerCase()} of ${where}`
            + ` (${style.overflowWrap}, ${style.wordBreak}): on ${lines.size} line(s),`
            + ` ${width.toFixed(1)}px wide in ${inner.toFixed(1)}px`);
        }
      }
    }
  }
  return problems;
}"""
PAGE_WIDTH = "() => document.documentElement.scrollWidth"
BOARD_WIDTH = "() => document.querySelector('#board svg').getBoundingClientRect().width"
FRAME = """() => {
  const frame = document.getElementById("board-frame");
  const style = getComputedStyle(frame);
  return {clientWidth: frame.clientWidth, scrollWidth: frame.scrollWidth, clientHeight: frame.clientHeight,
          scrollHeight: frame.scrollHeight, overflowX: style.overflowX, overflowY: style.overflowY,
          right: frame.getBoundingClientRect().right};
}"""
# Whether the focused element is drawn inside the zoomed frame's visible part and on the screen.
FOCUSED_IN_VIEW = """() => {
  const el = document.activeElement;
  const box = el.getBoundingClientRect();
  const frame = document.getElementById("board-frame").getBoundingClientRect();
  const inside = (outer) => box.left >= outer.left - 1 && box.right <= outer.right + 1
    && box.top >= outer.top - 1 && box.bottom <= outer.bottom + 1;
  return {target: el.dataset ? el.dataset.target : null, inFrame: inside(frame),
          onScreen: inside({left: 0, top: 0, right: innerWidth, bottom: innerHeight})};
}"""
TARGET_IN_FRAME = """(target) => {
  const box = document.querySelector(`#board [data-target="${target}"]`).getBoundingClientRect();
  const frame = document.getElementById("board-frame").getBoundingClientRect();
  return box.top >= frame.top && box.bottom <= frame.bottom
    && box.left >= frame.left && box.right <= frame.right;
}"""


def make_users(django_user_model, count: int) -> list:
    return [
        django_user_model.objects.create_user(username=name, email=f"{name}@example.com", password=PASSWORD)
        for name in NAMES[:count]
    ]


def match_in_play(
    game: str, users: list, *, options: dict | None = None, moves: int = 4, seed: int = 7
) -> Match:
    match = services.match_create(
        creator=users[0], game=game, seat_count=len(users), name="A table", options=options or {}
    )
    for user in users[1:]:
        services.seat_join(match_id=match.pk, user=user)
    match = play_random_moves(match_id=match.pk, rng=random.Random(seed), moves=moves)
    assert match.status == Match.Status.ACTIVE
    return match


def player_to_move(match: Match):
    """The first seat awaited (the first seat while a chance step is pending)."""
    match.refresh_from_db()
    return match.seats.get(position=min(match.engine.actors(match.engine_state), default=0)).user


def assert_whole_words(page) -> None:
    problems = page.evaluate(SPLIT_WORDS)
    assert not problems, f"{page.url}:\n" + "\n".join(problems)


def legal_moves(page) -> list[dict]:
    return json.loads(page.locator("#legal-moves").text_content())


def seat_moves(match: Match) -> list[tuple[int, str]]:
    return [
        (move.seat.position, move.notation)
        for move in Move.objects.filter(match=match, seat__isnull=False).order_by("seq")
    ]


# --- the desktop: room for the wide boards -----------------------------------------------------------
@pytest.mark.parametrize(
    ("game", "options", "wide"),
    [
        ("thewall", {}, "big"),
        ("greatwall", {}, "big"),
        ("wildlings", {}, True),
        ("stairways", {"boards": "3"}, True),
        ("stairways", {}, False),
        ("wallgo", {}, False),
    ],
)
def test_a_wide_board_takes_the_whole_width_on_a_desktop_and_a_square_one_keeps_its_column(
    live_server, browser, django_user_model, game, options, wide
):
    base = live_server.url
    engine = registry.get_engine(game)
    users = make_users(django_user_model, max(engine.min_players, 2))
    match = match_in_play(game, users, options=options)
    context, page = open_page(browser, base, DESKTOP, player_to_move(match))
    page.goto(base + match.get_absolute_url())
    board = page.locator("#board svg").bounding_box()
    players = page.locator("[data-testid=seats]").bounding_box()
    if wide == "big":
        assert board["width"] >= BIG_BOARD_MIN, f"{game}: the board is {board['width']:.0f}px wide"
        assert board["height"] <= DESKTOP["height"], f"{game}: the board is {board['height']:.0f}px tall"
        # The move form beside it, and the side panels below it.
        form = page.locator("#move-form").bounding_box()
        assert form["x"] >= board["x"] + board["width"] and form["y"] < board["y"] + board["height"]
        assert players["y"] >= board["y"] + board["height"]
    elif wide:
        assert board["width"] >= WIDE_BOARD_MIN, f"{game}: the board is {board['width']:.0f}px wide"
        # The side panels come below the board, not squeezed beside it.
        assert players["y"] >= board["y"] + board["height"]
    else:
        # A square board reads well at its column's width, with the players' table beside it.
        assert 400 <= board["width"] <= 700, board
        assert players["x"] >= board["x"] + board["width"] and players["y"] < board["y"] + board["height"]
    assert page.evaluate(PAGE_WIDTH) <= DESKTOP["width"]
    context.close()


# --- the phone: a zoom switch on the board ---------------------------------------------------------
def test_the_wall_zooms_on_a_phone_and_is_still_played_by_keyboard_and_by_click_and_the_choice_stays(
    live_server, browser, django_user_model
):
    base = live_server.url
    ann, ben = make_users(django_user_model, 2)
    match = services.match_create(creator=ann, game="thewall", seat_count=2, name="Night at the Wall")
    services.seat_join(match_id=match.pk, user=ben)
    context, page = open_page(browser, base, PHONE, ann)  # ann leads Jon Snow, who moves first
    page.goto(base + match.get_absolute_url())
    width = PHONE["width"]
    # Pinch-zoom is the browser's and stays allowed.
    viewport_meta = page.get_attribute("meta[name=viewport]", "content")
    assert "user-scalable=no" not in viewport_meta and "maximum-scale" not in viewport_meta

    zoom = page.get_by_role("button", name="Zoom in")
    # A big board opens zoomed where fitted it would be too small to read; the switch fits it.
    assert zoom.get_attribute("aria-pressed") == "true"
    zoom.click()
    assert zoom.get_attribute("aria-pressed") == "false"
    assert page.evaluate(BOARD_WIDTH) <= width
    # The switch is a button of its own: reached with Tab, pressed with Enter.
    zoom.focus()
    page.keyboard.press("Enter")
    assert zoom.get_attribute("aria-pressed") == "true"
    assert page.evaluate(BOARD_WIDTH) >= 2 * width
    frame = page.evaluate(FRAME)
    assert (frame["overflowX"], frame["overflowY"]) == ("auto", "auto")
    assert frame["right"] <= width and frame["clientWidth"] < width
    assert frame["scrollWidth"] >= 2 * width and frame["scrollHeight"] > frame["clientHeight"]
    assert page.evaluate(PAGE_WIDTH) == width

    # A move by keyboard on the zoomed board: Jon Snow to the Horn's hex; each place taken with
    # Shift+Tab from the move field is scrolled into the frame's view and onto the screen.
    assert {"path": ["h1210", "h1110"], "text": "1210-1110"} in [
        {"path": m["path"], "text": m["text"]} for m in legal_moves(page)
    ]
    for target in ["h1210", "h1110"]:
        page.locator("#id_move").focus()
        for _ in range(200):
            page.keyboard.press("Shift+Tab")
            focused = page.evaluate(FOCUSED_IN_VIEW)
            if focused["target"] == target:
                break
        else:
            raise AssertionError(f"{target} never took the focus")
        assert focused == {"target": target, "inFrame": True, "onScreen": True}
        page.keyboard.press("Enter")
    assert page.input_value("#id_move") == "1210-1110"
    assert page.evaluate("() => document.activeElement.id") == "move-submit"
    page.keyboard.press("Enter")
    page.wait_for_load_state()
    assert "Played 1210-1110." in page.text_content(".messages")

    # The page came back zoomed, and does after a reload too.
    for _ in range(2):
        assert page.get_by_role("button", name="Zoom in").get_attribute("aria-pressed") == "true"
        assert page.evaluate(BOARD_WIDTH) >= 2 * width
        assert page.evaluate(PAGE_WIDTH) == width
        page.reload()

    # A move by click on the zoomed board: Samwell Tarly defends. The button for it is beside the board
    # (below it on a phone), out of the frame.
    page.click('#board [data-target="h1010"]')
    assert not page.evaluate(TARGET_IN_FRAME, "opt-defend")
    page.click('#board [data-target="opt-defend"]')
    assert page.input_value("#id_move") == "1010 defend"
    page.click("#move-submit")
    page.wait_for_load_state()
    assert "Played 1010 defend." in page.text_content(".messages")
    assert seat_moves(match) == [(0, "1210-1110"), (0, "1010 defend")]

    # Back to the screen's width, with Space this time; that is remembered too.
    zoom = page.get_by_role("button", name="Zoom in")
    zoom.focus()
    page.keyboard.press(" ")
    assert zoom.get_attribute("aria-pressed") == "false"
    assert page.evaluate(BOARD_WIDTH) <= width
    page.reload()
    assert page.get_by_role("button", name="Zoom in").get_attribute("aria-pressed") == "false"
    assert page.evaluate(BOARD_WIDTH) <= width
    context.close()


@pytest.mark.parametrize("game", GAMES)
def test_every_board_has_the_zoom_switch_and_the_page_never_scrolls_sideways_when_zoomed(
    live_server, browser, django_user_model, game
):
    base = live_server.url
    engine = registry.get_engine(game)
    users = make_users(django_user_model, max(engine.min_players, 2))
    match = match_in_play(game, users)
    context, page = open_page(browser, base, PHONE, users[-1])  # a seat that need not be to move
    page.goto(base + match.get_absolute_url())
    zoom = page.get_by_role("button", name="Zoom in")
    # The big boards open zoomed on a phone; the others wait for the switch.
    assert zoom.get_attribute("aria-pressed") == ("true" if game in BIG_BOARDS else "false")
    if game not in BIG_BOARDS:
        zoom.click()
    frame = page.evaluate(FRAME)
    assert page.evaluate(BOARD_WIDTH) >= 2 * frame["clientWidth"] - 1  # twice the frame's width at least
    assert frame["scrollWidth"] > frame["clientWidth"] and frame["right"] <= PHONE["width"]
    assert page.evaluate(PAGE_WIDTH) == PHONE["width"]
    # A frame that scrolls is reachable from the keyboard even with nothing to click inside it.
    assert page.get_attribute("#board-frame", "tabindex") == "0"
    # Another game's board keeps its own choice.
    other = next(slug for slug in GAMES if slug != game)
    assert page.evaluate("(key) => localStorage.getItem(key)", f"wallsite.board-zoom.{other}") is None
    context.close()


# --- the phone: tables without broken words ---------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_no_word_of_a_match_pages_tables_is_broken_on_a_phone(live_server, browser, django_user_model, game):
    base = live_server.url
    engine = registry.get_engine(game)
    # As many seats as the game takes, up to four: the most rows and names the panels show at once.
    users = make_users(django_user_model, max(engine.min_players, min(engine.max_players, 4)))
    match = match_in_play(game, users)
    context, page = open_page(browser, base, PHONE, player_to_move(match))
    page.goto(base + match.get_absolute_url())
    assert page.locator("main table").count() >= 2  # the players, and the game's own
    assert_whole_words(page)
    assert page.evaluate(PAGE_WIDTH) == PHONE["width"]
    context.close()


@pytest.mark.parametrize("game", GAMES)
def test_a_very_long_player_name_never_widens_a_page_on_a_phone(
    live_server, browser, django_user_model, game
):
    base = live_server.url
    long_name = "Bartholomew_Fitzgerald_Montgomery_of_the_Nights_Watch"
    bart = django_user_model.objects.create_user(username=long_name, email="b@example.com", password=PASSWORD)
    engine = registry.get_engine(game)
    users = [*make_users(django_user_model, max(engine.min_players, 2) - 1), bart]
    match = match_in_play(game, users)
    context, page = open_page(browser, base, PHONE, users[0])
    for path in (match.get_absolute_url(), "/me/matches/", f"/players/{long_name}/"):
        page.goto(base + path)
        assert page.get_by_text(long_name).first.is_visible()
        assert page.evaluate(PAGE_WIDTH) == PHONE["width"], path
    context.close()


def test_my_matches_and_the_lobby_show_whole_words_and_every_deadline_on_a_phone(
    live_server, browser, django_user_model
):
    base = live_server.url
    users = make_users(django_user_model, 4)
    me = users[0]
    days = timedelta(days=3)
    # Matches awaiting me (with a clock and without), one awaiting another player, and open tables.
    for game, name, limit in [
        ("thewall", "Night at the Wall, the long watch", days),
        ("wallgo", "Territory of the north", days),
        ("wallgo", "No clock", None),
    ]:
        match = services.match_create(creator=me, game=game, seat_count=2, name=name, move_time_limit=limit)
        services.seat_join(match_id=match.pk, user=users[1])
    other = services.match_create(
        creator=users[1], game="wallgo", seat_count=2, name="Their move", move_time_limit=days
    )
    services.seat_join(match_id=other.pk, user=me)
    services.match_create(
        creator=me, game="wildlings", seat_count=3, name="Waiting for two", move_time_limit=days
    )
    services.match_create(creator=users[2], game="stairways", seat_count=2, name="Open stairs")

    context, page = open_page(browser, base, PHONE, me)
    page.goto(f"{base}/me/matches/")
    rows = page.locator("[data-testid=my-matches] tbody tr")
    assert rows.count() == 5
    # Every match in play names its deadline: the two awaiting me and the one awaiting another player.
    deadlines = page.locator("[data-testid=deadline] time")
    assert deadlines.count() == 3
    for index in range(deadlines.count()):
        box = deadlines.nth(index).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
        # Said what it is, beside it.
        label = deadlines.nth(index).locator("xpath=ancestor::td").locator(".cell-label")
        assert label.is_visible() and label.text_content() == "Deadline"
    assert page.locator("[data-testid=deadline]", has_text="no time limit").is_visible()
    # Every row fits the screen, and the table is still a table to screen readers.
    for index in range(rows.count()):
        box = rows.nth(index).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    assert page.get_by_role("table").get_by_role("columnheader", name="Deadline").count() == 1
    assert page.get_by_role("cell", name="Territory of the north").count() == 1
    assert_whole_words(page)
    assert page.evaluate(PAGE_WIDTH) == PHONE["width"]

    page.goto(f"{base}/")
    assert page.locator("[data-testid=open-matches] tbody tr").count() == 2
    assert_whole_words(page)
    assert page.evaluate(PAGE_WIDTH) == PHONE["width"]

    # On a desktop the same page is an ordinary table, labels hidden.
    context.close()
    context, page = open_page(browser, base, DESKTOP, me)
    page.goto(f"{base}/me/matches/")
    assert page.locator("[data-testid=my-matches] thead").is_visible()
    assert page.locator("[data-testid=my-matches] .cell-label:visible").count() == 0
    context.close()
