"""Two people play Walls and Stairways in a real Chromium: the match is made with the layout editor of
the creation form, then played for four turns by clicking on the server-drawn board."""

from __future__ import annotations

import json
import re

import pytest
from django.core.cache import cache

from games.models import Match, Move
from tests.e2e.browsing import sign_up
from tests.support.stairways import Picture, board_read, position_arrange

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

MATCH_NAME = "Stairway duel"
FIELD = "id_opt_stairways_layout_json"
# The layout editor's drawing (static/js/editors.js): squares of EDITOR_CELL inside EDITOR_PAD.
EDITOR_CELL = 40
EDITOR_PAD = 22
FILES = "abcdefgh"
TO_SVG_SCREEN = """(svg, [x, y]) => {
  const point = svg.createSVGPoint();
  point.x = x;
  point.y = y;
  const screen = point.matrixTransform(svg.getScreenCTM());
  return [screen.x, screen.y];
}"""
EDITOR_MARKS = """svg => [...svg.querySelectorAll("text[fill='#fff']")].map(
  (t) => [t.textContent, parseFloat(t.getAttribute("x")), parseFloat(t.getAttribute("y"))])"""

# Dealt in place of the shuffled hands (see the test's docstring).
ANN_HAND = ["H1", "H7", "C5", "C9", "D1", "D6", "S3", "S4"]
BEN_HAND = ["H3", "H9", "C2", "C7", "D8", "S2", "S6", "S10"]
TREASURE = {"g1": [1, 0], "g2": [0, 1]}  # a jewel on g1, a sword on g2: out of every token's sight


def look(page, url: str | None = None) -> Picture:
    """The board as the page shows it now (after loading ``url`` afresh, when given)."""
    if url is not None:
        page.goto(url)
    return board_read(page.locator("#board svg").evaluate("svg => svg.outerHTML"))


def status(page) -> str:
    return " ".join(page.text_content("[data-testid=match-status]").split())


def log(page) -> str:
    return " ".join(page.inner_text("[data-testid=log]").split())


def hand(page) -> list[str]:
    return page.text_content("[data-testid=my-hand]").split()


def panel(page, testid: str) -> str:
    return " ".join(page.text_content(f"[data-testid={testid}]").split())


def waiting(page) -> None:
    """The page of a player who is not awaited: no move form, no click script at work."""
    assert status(page) == "Waiting for the other players."
    assert page.locator("#move-form").count() == 0
    assert look(page).offered == set()


def play(page, *path: str, text: str) -> None:
    """Click the path's targets one after another, each one offered when its turn comes, then Play."""
    for target in path:
        offered = look(page).offered
        assert target in offered, f"{target} is not offered; the page offers {sorted(offered)}"
        page.locator(f'#board [data-target="{target}"]').first.click()
    assert page.input_value("#id_move") == text
    page.click("#move-submit")
    page.wait_for_load_state()
    assert f"Played {text}." in page.text_content(".messages")


def offered_after(page, *path: str) -> set[str]:
    """What the page offers once ``path`` is clicked; then the clicks are cleared again."""
    for target in path:
        page.locator(f'#board [data-target="{target}"]').first.click()
    offered = look(page).offered
    page.click("#move-clear")
    assert page.input_value("#id_move") == ""
    return offered


def editor_click(page, square: str) -> None:
    """Click the middle of ``square`` on the layout editor's board, as a person would with the mouse."""
    board = page.locator("[data-testid=layout-board]")
    board.scroll_into_view_if_needed()
    x = EDITOR_PAD + FILES.index(square[0]) * EDITOR_CELL + EDITOR_CELL / 2
    y = EDITOR_PAD + (8 - int(square[1])) * EDITOR_CELL + EDITOR_CELL / 2
    page.mouse.click(*board.evaluate(TO_SVG_SCREEN, [x, y]))


def editor_marks(page) -> dict[str, str]:
    """Square -> the mark the editor draws there (H hero, G giant, R4 rats, S1 first stairway...)."""
    marks = {}
    for label, x, y in page.locator("[data-testid=layout-board]").evaluate(EDITOR_MARKS):
        column = int((x - EDITOR_PAD) // EDITOR_CELL)
        row = int((y - 4 - EDITOR_PAD) // EDITOR_CELL)
        marks[f"{FILES[column]}{8 - row}"] = label
    return marks


def editor_layout(page) -> dict:
    return json.loads(page.input_value(f"#{FIELD}"))


# A club's own board: the classic walls of an older preset, with the heroes in the middle of the maze.
CLUB_LAYOUT = {
    "walls": [
        "a2n", "b2e", "b5e", "b6n", "b7e", "c4e", "c5n", "c6e", "d3n", "d6n",
        "e1e", "e1n", "e5e", "e5n", "f2n", "f3e", "f8e", "g4e", "g6n", "h3n",
    ],
    "stairways": ["a1", "h8"],
    "heroes": ["d5", "e4"],
    "giant": "b7",
    "rats": [{"square": "c2", "size": 4}, {"square": "g6", "size": 4}],
}  # fmt: skip


def make_the_match_with_the_layout_editor(ann, base: str) -> str:
    """Ann looks at the two-player classic preset, pastes her club's own layout instead, tries a hero on
    her own stairway (refused with the reason), then moves hero 2 from e4 to e5, previews the starting
    board and creates the match."""
    ann.click("text=New match")
    ann.select_option("#id_game", "stairways")
    ann.fill("#id_seat_count", "2")
    ann.fill("#id_name", MATCH_NAME)
    editor = ann.locator("fieldset[data-game=stairways] [data-testid=layout-editor]")
    # The editor is drawn by a deferred script, which may run after the game is chosen: wait for it.
    editor.wait_for(state="visible")
    assert "Empty: the preset chosen above is used." in ann.text_content("[data-testid=layout-status]")

    # The preset: each player's hero two steps from home, the monsters shut in the den at the centre.
    ann.select_option("[data-testid=layout-example]", "Classic, first game")
    ann.click("[data-testid=layout-load]")
    layout = editor_layout(ann)
    assert layout["heroes"] == ["a3", "f8"] and layout["stairways"] == ["a1", "h8"]
    assert editor_marks(ann) == {
        "a1": "S1", "h8": "S2", "a3": "H", "f8": "H", "d5": "G", "d4": "R4", "e5": "R4"
    }  # fmt: skip
    walls = len(layout["walls"])
    assert len(ann.locator("[data-testid=layout-board] line[data-wall]").all()) == walls
    status_text = ann.text_content("[data-testid=layout-status]")
    assert f"{walls} walls, 2 heroes, 2 rat groups, 2 stairways" in status_text

    # Her club's layout, pasted over it: the editor draws what the box holds.
    ann.fill(f"#{FIELD}", json.dumps(CLUB_LAYOUT))
    assert editor_marks(ann) == {
        "a1": "S1", "h8": "S2", "d5": "H", "e4": "H", "b7": "G", "c2": "R4", "g6": "R4"
    }  # fmt: skip
    assert len(ann.locator("[data-testid=layout-board] line[data-wall]").all()) == 20
    assert "20 walls, 2 heroes, 2 rat groups, 2 stairways" in ann.text_content("[data-testid=layout-status]")

    # A hero on a stairway: the editor allows it, the server refuses it and says why.
    ann.check(f"#{FIELD}-tool-hero")
    editor_click(ann, "a1")
    assert editor_layout(ann)["heroes"] == ["d5", "e4", "a1"]
    ann.click("[data-testid=preview-button]")
    ann.wait_for_load_state()
    errors = panel(ann, "option-errors")
    assert "Hero 3 starts on the stairway a1; pieces start off the stairways." in errors
    assert ann.locator("[data-testid=preview]").count() == 0
    assert editor_layout(ann)["heroes"] == ["d5", "e4", "a1"]  # the form keeps what was typed

    # Take it away again, and move hero 2 one square north: erase it on e4, put a hero on e5.
    ann.check(f"#{FIELD}-tool-hero")
    editor_click(ann, "a1")
    ann.check(f"#{FIELD}-tool-erase")
    editor_click(ann, "e4")
    ann.check(f"#{FIELD}-tool-hero")
    editor_click(ann, "e5")
    layout = editor_layout(ann)
    assert layout["heroes"] == ["d5", "e5"] and layout["stairways"] == ["a1", "h8"]
    marks = editor_marks(ann)
    assert marks["e5"] == "H" and "e4" not in marks and marks["a1"] == "S1"

    ann.click("[data-testid=preview-button]")
    ann.wait_for_load_state()
    assert ann.locator("[data-testid=option-errors]").count() == 0
    preview = board_read(ann.locator("[data-testid=preview] svg").evaluate("svg => svg.outerHTML"))
    assert preview.heroes == {1: "d5", 2: "e5"}
    assert preview.giant == "b7" and preview.rats == [("c2", 4), ("g6", 4)]
    assert preview.stairways == {"a1": "Orange", "h8": "Blue"}
    assert len(preview.walls) == 20 and "e5e" in preview.walls and preview.offered == set()
    # With two players no monster reaches these heroes before their owners have moved: no warning.
    assert not ann.locator("[data-testid=layout-warning]").is_visible()
    assert Match.objects.count() == 0  # a preview creates nothing

    ann.get_by_role("button", name="Create match").click()
    ann.wait_for_load_state()
    assert "Match created." in ann.text_content(".messages")
    assert status(ann) == "Waiting for players (1/2)."
    return ann.url


def test_two_people_play_walls_and_stairways_by_clicking_on_the_board(live_server, new_page):
    """Ann (seat 0, orange, stairway a1) and Ben (seat 1, blue, stairway h8) play four turns.

    The layout is made in the browser with the creation form's editor: the classic two-player preset
    with hero 2 moved from e4 to e5, beside the wall e5e, so that a heart can pivot that wall through
    its square. Arranged in the database after the match starts, before anyone has played, so that the
    turns come out the same on every run: the two hands (the cards each player needs below; the draw
    pile is the rest of the two decks, and the four cards drawn at each turn's end stay random, as no
    step depends on them), and a jewel on g1 and a sword on g2, out of every hero's and the giant's
    sight, for the hero drawn to treasure to chain on to. Every move is then made by clicking:

    1. Ann claims the unowned heart and diamond wonders; her heart card pivots the wall e5e to e4n,
       which sweeps e5 and pushes hero 2 to e4; her diamond puts a jewel on g4, which draws hero 2 there;
       from g4 it sees both treasures, so Ann picks g2 from the offered squares, and from g2 it chains on
       to g1. After her draw, rat group 2 has two shortest ways to a hero and Ann picks its step.
    2. Ben claims the spade wonder, puts a sword on d4 that draws hero 1, and picks his rats' step.
    3. Ann bids 7 for Ben's spade wonder; Ben answers from his page with his 10 and keeps it; Ann's
       turn goes on, and she ends it.
    4. Ben ends his turn; the rats creep on.
    """
    base = live_server.url
    ann, ben = new_page(), new_page()
    sign_up(ann, base, "ann")
    sign_up(ben, base, "ben")
    url = make_the_match_with_the_layout_editor(ann, base)

    ben.goto(f"{base}/")
    ben.click(f"text={MATCH_NAME}")
    ben.click("[data-testid=join]")
    match = Match.objects.get(name=MATCH_NAME)
    assert match.status == Match.Status.ACTIVE
    assert match.options["layout"] == "custom"
    assert json.loads(match.options["layout_json"])["heroes"] == ["d5", "e5"]
    position_arrange(match, hands=[ANN_HAND, BEN_HAND], treasure=TREASURE)
    # The site never changes a position without a new version, and its page cache is keyed on versions:
    # the pages Ben saw on joining must not be served for the position set in place behind its back.
    cache.clear()

    # --- The start: each sees the same board, and only their own cards. ------------------------------
    board = look(ann, url)
    assert status(ann) == "Your move."
    assert board.heroes == {1: "d5", 2: "e5"} and board.giant == "b7"
    assert board.jewels == {"g1"} and board.swords == {"g2"}
    assert board.status == "Orange to play (first turn: no hero may reach a stairway)."
    assert board.wonders == dict.fromkeys("HCDS", "nobody")
    assert board.cards == hand(ann) == ANN_HAND
    assert "First turn of this player: no hero may be brought onto a stairway." in ann.inner_text("main")
    # Without a wonder, every card can only be bid: the suits' wonders and End turn are offered.
    assert board.offered == {"wonder-H", "wonder-C", "wonder-D", "wonder-S", "end"}
    seen_by_ben = look(ben, url)
    waiting(ben)
    assert seen_by_ben.cards == hand(ben) == BEN_HAND
    assert (seen_by_ben.heroes, seen_by_ben.walls) == (board.heroes, board.walls)
    # The hands share no card, so any of the other's cards on a page would be a leak.
    assert not any(re.search(rf"\b{card}\b", ben.content()) for card in ANN_HAND)
    assert not any(re.search(rf"\b{card}\b", ann.content()) for card in BEN_HAND)

    # --- Turn 1, Ann: two unowned wonders claimed with a single card each. -------------------------------
    assert offered_after(ann, "wonder-H") == {"card-H1", "card-H7"}
    play(ann, "wonder-H", "card-H1", text="bid H1")
    board = look(ann)
    assert board.status == "Orange bids 1 for the \u2665 wonder (H1)"
    assert board.buttons == ["Claim for 1"]
    assert board.offered == {"wonder-H", "claim"}  # another heart for the bid, or the claim
    assert "Orange bids H1 for the heart wonder (bid now 1)." in log(ann)
    play(ann, "claim", text="claim H")
    assert "Orange claims the unowned heart wonder with 1." in log(ann)
    play(ann, "wonder-D", "card-D1", text="bid D1")
    play(ann, "claim", text="claim D")
    board = look(ann)
    assert board.wonders == {"H": "Orange", "C": "nobody", "D": "Orange", "S": "nobody"}
    assert hand(ann) == board.cards == ["H7", "C5", "C9", "D6", "S3", "S4"]
    assert "ann" in panel(ann, "wonder-H") and "ann" in panel(ann, "wonder-D")
    look(ben, url)
    assert "ann" in panel(ben, "wonder-H") and "nobody" in panel(ben, "wonder-S")
    assert "Orange claims the unowned diamond wonder with 1." in log(ben)
    assert panel(ben, "hand-size-0") == "6"

    # --- The pivot: H7 turns the wall e5e about its south end to e4n; it sweeps e5 and pushes hero 2. -----
    walls_before = look(ann).walls
    offered = offered_after(ann, "card-H7")
    assert "wall-e5e" in offered and "wall-c4e" in offered
    assert not any(target.endswith("n") for target in offered)  # hearts move north-south walls only
    assert offered_after(ann, "card-H7", "wall-e5e") == {
        "edge-e4e", "edge-e6e", "edge-e4n", "edge-f4n", "edge-f5n"
    }  # fmt: skip
    play(ann, "card-H7", "wall-e5e", "edge-e4n", text="H7 e5e-e4n")
    for page in (ann, ben):
        board = look(page, url)
        assert board.walls == walls_before - {"e5e"} | {"e4n"}
        assert board.heroes == {1: "d5", 2: "e4"}
        text = log(page)
        assert "Orange plays H7: the wall on e5e moves to e4n." in text
        assert "The wall sweeps e5: Hero 2 pushed to e4." in text
        assert "Hero 2: on e4" in panel(page, "maze")
    waiting(ben)

    # --- The treasure chain: a jewel on g4 draws hero 2; from g4 it sees g1 and g2, Ann picks g2. -------
    play(ann, "card-D6", "sq-g4", text="D6 g4")
    for page in (ann, ben):
        board = look(page, url)
        assert board.heroes == {1: "d5", 2: "g4"} and board.carried == {2: "1\u2666"}
        assert board.jewels == {"g1"} and board.swords == {"g2"}
        assert board.status == "Orange: choose the treasure that hero 2 runs to."
        assert board.sight == {("g4", "g1"), ("g4", "g2")}  # the lines that pull it
        text = log(page)
        assert "Orange plays D6: a jewel on g4. Hero 2 runs from e4 to the treasure on g4." in text
        assert "Hero 2 picks up 1 jewel on g4." in text
    assert status(ann) == "Your move."
    assert look(ann).offered == {"sq-g1", "sq-g2"}
    waiting(ben)

    play(ann, "sq-g2", text="choose g2")
    for page in (ann, ben):
        board = look(page, url)
        assert board.heroes == {1: "d5", 2: "g1"} and board.carried == {2: "2\u2666 1\u2020"}
        assert board.jewels == board.swords == set() and board.sight == set()
        text = log(page)
        assert (
            "Orange sends Hero 2 towards g2. Hero 2 runs from g4 to the treasure on g2. "
            "Hero 2 picks up 1 sword on g2. Hero 2 runs from g2 to the treasure on g1. "
            "Hero 2 picks up 1 jewel on g1."
        ) in text
        assert "Hero 2: on g1, carrying 2 jewels and 1 sword" in panel(page, "maze")
    assert look(ann).status == "Orange to play (first turn: no hero may reach a stairway)."

    # --- Ann ends her turn: she draws four (a chance step, run by the task queue), then her rats' step. --
    play(ann, "end", text="end")
    board = look(ann)
    drawn = re.search(r"You draw ((?:[HCDS]\d+(?:, )?){4})\.", log(ann))
    assert drawn, log(ann)
    kept = ["C5", "C9", "S3", "S4"]
    assert sorted(hand(ann)) == sorted(kept + drawn[1].split(", ")) and board.cards == hand(ann)
    assert board.status == "Orange: choose where rat group 2 creeps."
    assert board.sight == {("g6", "f6"), ("g6", "g5")} and board.offered == {"sq-f6", "sq-g5"}
    assert status(ann) == "Your move."
    look(ben, url)
    waiting(ben)
    assert "Orange ends the turn." in log(ben) and "Orange draws 4 cards." in log(ben)
    assert "You draw" not in log(ben)  # what Ann drew is hers alone
    assert panel(ben, "hand-size-0") == "8"

    play(ann, "sq-g5", text="choose g5")
    for page in (ann, ben):
        board = look(page, url)
        assert board.rats == [("c3", 4), ("g5", 4)]
        text = log(page)
        assert "Rat group 1 (4) creeps from c2 to c3. Rat group 2 (4) creeps from g6 to g5." in text
        assert "Blue's turn." in text
    waiting(ann)
    assert status(ben) == "Your move."
    assert look(ben).status == "Blue to play (first turn: no hero may reach a stairway)."

    # --- Turn 2, Ben: the spade wonder, then a sword on d4 that draws hero 1. ----------------------------
    play(ben, "wonder-S", "card-S2", text="bid S2")
    play(ben, "claim", text="claim S")
    play(ben, "card-S6", "sq-d4", text="S6 d4")
    for page in (ann, ben):
        board = look(page, url)
        assert board.wonders == {"H": "Orange", "C": "nobody", "D": "Orange", "S": "Blue"}
        assert board.heroes == {1: "d4", 2: "g1"} and board.carried == {1: "1\u2020", 2: "2\u2666 1\u2020"}
        text = log(page)
        assert "Blue claims the unowned spade wonder with 2." in text
        assert "Blue plays S6: a sword on d4. Hero 1 runs from d5 to the treasure on d4." in text
        assert "Hero 1 picks up 1 sword on d4." in text
    assert hand(ben) == look(ben).cards == ["H3", "H9", "C2", "C7", "D8", "S10"]

    play(ben, "end", text="end")
    board = look(ben)
    assert board.status == "Blue: choose where rat group 1 creeps."
    assert board.sight == {("c3", "c4"), ("c3", "d3")} and board.offered == {"sq-c4", "sq-d3"}
    assert len(hand(ben)) == 10
    ben_drew = re.search(r"You draw ((?:[HCDS]\d+(?:, )?){4})\.", log(ben))[0]
    play(ben, "sq-c4", text="choose c4")
    for page in (ann, ben):
        board = look(page, url)
        assert board.rats == [("c4", 4), ("g5", 4)]  # rat group 2 is torn between the two heroes
        assert "Rat group 1 (4) creeps from c3 to c4. Orange's turn." in log(page)
    assert ben_drew not in log(ann) and drawn[0] not in log(ben)

    # --- Turn 3, Ann: a bid of 7 for Ben's spade wonder, which Ben blocks from his own page. -------------
    assert status(ann) == "Your move."
    assert look(ann).status == "Orange to play."  # her first turn is over
    play(ann, "wonder-S", "card-S3", text="bid S3")
    play(ann, "wonder-S", "card-S4", text="bid S4")
    play(ann, "claim", text="claim S")
    board = look(ann)
    assert status(ann) == "Waiting for the other players." and ann.locator("#move-form").count() == 0
    assert board.status == "Orange bids 7 for the \u2660 wonder (S3, S4); Blue has blocked 0 so far"
    assert "Orange bids 7 for Blue's spade wonder; Blue may block with spades worth 7 or more." in log(ann)

    board = look(ben, url)
    assert status(ben) == "Your move."
    assert panel(ben, "bid") == "Bid of 7 for the S wonder: S3, S4; blocked 0 so far."
    assert board.buttons == ["Yield the wonder"]
    assert {"card-S10", "yield"} <= board.offered
    assert all(target == "yield" or target.startswith("card-S") for target in board.offered)
    held = hand(ben)
    play(ben, "card-S10", text="block S10")
    for page in (ann, ben):
        board = look(page, url)
        assert board.wonders["S"] == "Blue"
        assert "Blue adds S10 and blocks with 10 against 7: the spade wonder stays." in log(page)
        assert "ben" in panel(page, "wonder-S")
        assert page.locator("[data-testid=bid]").count() == 0
    # The block spends the S10 from the deal; Ben may hold the second deck's S10 from his random draw.
    held.remove("S10")
    assert sorted(hand(ben)) == sorted(held)
    waiting(ben)
    assert status(ann) == "Your move."
    assert look(ann).status == "Orange to play."
    assert sorted(hand(ann)) == sorted(["C5", "C9", *drawn[1].split(", ")])

    play(ann, "end", text="end")
    for page in (ann, ben):
        board = look(page, url)
        assert board.rats == [("c5", 4), ("g5", 4)]
        assert "Orange ends the turn. Orange draws 4 cards." in log(page)
        assert "Rat group 1 (4) creeps from c4 to c5. Blue's turn." in log(page)
    assert len(hand(ann)) == 10

    # --- Turn 4, Ben ends at once; the rats reach d5, next to hero 1. ---------------------------------------
    play(ben, "end", text="end")
    for page in (ann, ben):
        board = look(page, url)
        assert board.rats == [("d5", 4), ("g5", 4)] and board.heroes == {1: "d4", 2: "g1"}
        assert "Rat group 1 (4) creeps from c5 to d5. Orange's turn." in log(page)
        assert panel(page, "hand-size-0") == "10" and panel(page, "hand-size-1") == "13"
    assert status(ann) == "Your move." and status(ben) == "Waiting for the other players."

    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    assert match.engine_state["turns"] == [3, 2] and match.engine_state["current"] == 0
    by_seat = [Move.objects.filter(match=match, seat__position=seat).count() for seat in (0, 1)]
    assert by_seat == [9 + 4, 5 + 1 + 1]  # every one of them clicked on a page
    # The four draws were chance steps the task queue ran, each logged as a move of nobody's.
    assert Move.objects.filter(match=match, seat=None).count() == 4
