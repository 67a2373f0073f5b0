"""Two people play The Wall in a real Chromium, one browser context each, clicking on the server-drawn
hex map: ann leads the Watch's side (Jon Snow and Mance Rayder), ben the Others (the Great Other and
Waymar Royce). Two rounds of leader turns, with a unit selected by its hex, its reachable hexes and
attack targets highlighted, actions picked from the buttons, a melee attack on each side whose dice a
chance step rolls between turns (run by the task queue, eagerly inside the live server here), the unit
cards following every change, and the wandering Wildlings' spawn at the start of Mance's second turn.

Test setup: before Mance's attack the match's server-side dice are seeded so that the attack hits
(``tests/support/thewall.py`` tries seeds on the engine itself); the position is the one every match
starts from, and every move is clicked in the browser.
"""

from __future__ import annotations

import json
import re

import pytest

from games.models import Match, Move
from tests.e2e.browsing import sign_up
from tests.support.thewall import dice_arrange, kinds, position_after

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

MATCH_NAME = "Night at Castle Black"
NO_RANGE = "\u2013"  # the panel's dash for a unit without range
JON_UNITS = {"h1210", "h1010", "h0310", "h1910", "h0909", "h1309", "h2010"}  # the setup's, seeds/thewall.md


def choices(page) -> list[dict]:
    return json.loads(page.locator("#legal-moves").text_content())


def offered(page) -> set[str]:
    """The board elements highlighted as the next click."""
    return set(
        page.locator("#board [data-target].choosable").evaluate_all("els => els.map(e => e.dataset.target)")
    )


def click(page, target: str) -> None:
    element = page.locator(f'#board [data-target="{target}"]')
    assert "choosable" in (element.get_attribute("class") or ""), f"{target} is not offered"
    element.click()


def play(page, text: str) -> None:
    """The clicks so far have written ``text`` into the move field: send it."""
    assert page.input_value("#id_move") == text
    page.click("#move-submit")
    page.wait_for_load_state()
    assert f"Played {text}." in page.text_content(".messages")


def next_clicks(page, *prefix: str) -> set[str]:
    """What the page's list of legal moves says may follow ``prefix`` (the server's own answer)."""
    n = len(prefix)
    return {m["path"][n] for m in choices(page) if m["path"][:n] == list(prefix) and len(m["path"]) > n}


def status(page) -> str:
    return " ".join(page.text_content("[data-testid=match-status]").split())


def wall_status(page) -> str:
    return " ".join(page.text_content("[data-testid=thewall-status]").split())


def card(page, hex_: str) -> dict[str, str]:
    """The unit card (a row of the side panel's unit tables) of the unit on ``hex_``."""
    rows = page.locator('[data-testid^="unit-"]').evaluate_all(
        "rows => rows.map(r => [...r.cells].map(c => c.textContent.trim().replace(/\\s+/g, ' ')))"
    )
    found = [row for row in rows if row[1] == hex_]
    assert len(found) == 1, (hex_, rows)
    keys = ("name", "hex", "att", "def", "mov", "rng", "life", "marks")
    return dict(zip(keys, found[0], strict=True))


def board_unit(page, name: str) -> str:
    """The description the board gives of the unit called ``name`` (its tooltip)."""
    titles = page.locator("#board svg g.unit > title").all_text_contents()
    found = [title for title in titles if title.startswith(f"{name} on ")]
    assert len(found) == 1, (name, titles)
    return found[0]


def log_lines(page) -> list[dict]:
    """The game log as the page shows it: per line its number, player, notation and event texts."""
    return page.locator("[data-testid=log] li").evaluate_all(
        """els => els.map(li => ({
            seq: li.value,
            player: li.querySelector("strong").textContent.trim(),
            notation: li.querySelector("code").textContent.trim(),
            events: [...li.querySelectorAll(".event")].map(e => e.textContent.trim()),
        }))"""
    )


def test_two_leaders_a_side_play_two_rounds_with_an_attack_each_and_see_the_dice(live_server, new_page):
    base = live_server.url
    ann, ben = new_page(), new_page()
    sign_up(ann, base, "ann")
    sign_up(ben, base, "ben")
    ann.click("text=New match")
    ann.select_option("#id_game", "thewall")
    ann.fill("#id_seat_count", "2")
    ann.fill("#id_name", MATCH_NAME)
    ann.click("form[data-testid=create-form] button[type=submit]")
    match_url = ann.url
    ben.goto(f"{base}/")
    ben.click(f"text={MATCH_NAME}")
    ben.click("[data-testid=join]")
    match = Match.objects.get(name=MATCH_NAME)
    assert match.status == Match.Status.ACTIVE

    def look(page):
        page.goto(match_url)
        return page

    # --- round 1, Jon Snow (ann) -----------------------------------------------------------------------
    look(ann)
    assert status(ann) == "Your move."
    assert wall_status(ann).startswith("Round 1 of 20: Jon Snow's turn, 0 of 4 unit turns used.")
    assert status(look(ben)) == "Waiting for the other players."
    assert ben.locator("#move-form").count() == 0
    # Jon's units are offered, and the two buttons a leader's turn may start with.
    assert offered(ann) == JON_UNITS | {"opt-recruit", "end"}
    assert card(ann, "1210") == {
        "name": "Jon Snow", "hex": "1210", "att": "4", "def": "5", "mov": "3", "rng": "3", "life": "4/4",
        "marks": "kills true Others",
    }  # fmt: skip

    # Selecting Jon Snow highlights where he can go (and ranging one hex farther) and his own actions.
    click(ann, "h1210")
    reach = offered(ann)
    assert reach == next_clicks(ann, "h1210")
    assert {"h1110", "h1111", "h1109", "h1108", "opt-defend"} <= reach  # the Horn's hex; the keep is a door
    assert not {"h1210", "h1209", "h1010", "h0909"} & reach  # himself, the Wall from a castle, units
    assert "chosen" in ann.locator('#board [data-target="h1210"]').get_attribute("class")
    click(ann, "h1110")
    play(ann, "1210-1110")
    assert card(ann, "1110")["name"] == "Jon Snow"
    assert "used" in card(ann, "1110")["marks"]
    assert "Jon Snow moves 1210 to 1110." in ann.text_content("[data-testid=log]")
    assert wall_status(ann).startswith("Round 1 of 20: Jon Snow's turn, 1 of 4 unit turns used.")
    assert "h1110" not in offered(ann)  # each unit once a turn

    # Samwell Tarly defends: unit, then the action's button.
    click(ann, "h1010")
    assert "opt-defend" in offered(ann)
    click(ann, "opt-defend")
    play(ann, "1010 defend")
    sam = card(ann, "1010")
    assert (sam["name"], sam["def"]) == ("Samwell Tarly", "6")  # 4, +1 in a castle, +1 defending
    assert "defending" in sam["marks"]
    click(ann, "end")
    play(ann, "end")
    assert status(ann) == "Waiting for the other players."

    # --- round 1, the Great Other (ben) ----------------------------------------------------------------
    look(ben)
    assert status(ben) == "Your move."
    assert wall_status(ben).startswith("Round 1 of 20: The Great Other's turn")
    assert offered(ben) == {"h1102", "h0403", "h1803", "end"}
    click(ben, "h0403")
    reach = offered(ben)
    assert reach == next_clicks(ben, "h0403")
    assert {"h0404", "h0505", "h0502", "opt-defend"} <= reach
    assert not {"h0605", "h0403"} & reach  # a friend's hex is passed, never stopped on
    click(ben, "h0404")
    play(ben, "0403-0404")
    assert card(ben, "0404")["name"] == "White Walker 1"
    click(ben, "end")
    play(ben, "end")

    # --- round 1, Mance Rayder (ann): a Wildling moves up and attacks a Wight ----------------------------
    look(ann)
    assert wall_status(ann).startswith("Round 1 of 20: Mance Rayder's turn, 0 of 4 unit turns used.")
    assert card(ann, "0605") == {
        "name": "Wight (Wildling) 1", "hex": "0605", "att": "2", "def": "3", "mov": "3", "rng": NO_RANGE,
        "life": "3/3", "marks": "",
    }  # fmt: skip
    expected = dice_arrange(
        match,
        position_after(match, ["0507-0506x0605"]),
        lambda events: kinds(events) == ["dice", "wound"],
    )
    dice_text = expected[0].text

    click(ann, "h0507")
    reach = offered(ann)
    assert reach == next_clicks(ann, "h0507")
    assert {"h0506", "h0505", "h0606", "h0508", "opt-defend"} <= reach
    assert "h0605" not in reach  # two hexes away: an attack needs a hex to stand on first
    click(ann, "h0506")
    assert offered(ann) == {"h0605"}  # the attack target, highlighted once the Wildling stands next to it
    assert ann.input_value("#id_move") == "0507-0506"  # the move alone would do too
    click(ann, "h0605")
    assert offered(ann) == {"opt-sneak-attack"}  # the sneak attack is the other action on offer
    assert ann.input_value("#id_move") == "0507-0506x0605"
    play(ann, "0507-0506x0605")

    # The chance step has rolled the dice between the two unit turns: in the log, on the panel and on the
    # board, and the Wight has lost a life point and, with it, a point of every stat.
    assert re.fullmatch(
        r"Wildling 1 attacks Wight \(Wildling\) 1: \d \+ 2 = \d+ against \d \+ 3 = \d+: hit\.", dice_text
    )
    attack, chance = log_lines(ann)[-2:]
    assert (attack["player"], attack["notation"]) == ("ann", "0507-0506x0605")
    assert attack["events"] == ["Wildling 1 from 0506 attacks Wight (Wildling) 1 on 0605."]
    assert (chance["player"], chance["notation"]) == ("", "")
    assert chance["events"] == [dice_text, "Wight (Wildling) 1 loses 1 life point (2 left)."]
    assert chance["seq"] == attack["seq"] + 1
    assert " ".join(ann.text_content("[data-testid=thewall-dice]").split()) == f"Last dice: {dice_text}"
    assert ann.text_content("#board svg text.dice") == f"Dice: {dice_text}"
    assert wall_status(ann).startswith("Round 1 of 20: Mance Rayder's turn, 1 of 4 unit turns used.")
    for page in (ann, look(ben)):
        assert card(page, "0605") == {
            "name": "Wight (Wildling) 1", "hex": "0605", "att": "1", "def": "2", "mov": "2", "rng": NO_RANGE,
            "life": "2/3", "marks": "",
        }  # fmt: skip
        assert board_unit(page, "Wight (Wildling) 1") == (
            "Wight (Wildling) 1 on 0605: attack 1, defence 2, movement 2, range -, life 2/3"
        )
        assert board_unit(page, "Wildling 1").startswith("Wildling 1 on 0506: attack 2, defence 4,")
        assert dice_text in page.text_content("[data-testid=log]")
    assert card(ann, "0506")["name"] == "Wildling 1"

    # Mance Rayder defends, then the turn ends.
    look(ann)
    click(ann, "h1107")
    click(ann, "opt-defend")
    play(ann, "1107 defend")
    assert "defending" in card(ann, "1107")["marks"]
    click(ann, "end")
    play(ann, "end")

    # --- round 1, Waymar Royce (ben): the wounded Wight strikes back from where it stands ------------------
    look(ben)
    assert wall_status(ben).startswith("Round 1 of 20: Waymar Royce's turn")
    assert "h0605" in offered(ben)
    click(ben, "h0605")
    reach = offered(ben)
    assert reach == next_clicks(ben, "h0605")
    assert "h0506" in reach  # the Wildling next to it: an attack target at once
    assert {"h0604", "h0705", "h0706", "h0606", "h0505", "opt-defend"} <= reach
    click(ben, "h0506")
    assert offered(ben) == set()  # an attack alone: nothing more to pick
    play(ben, "0605x0506")
    attack, chance = log_lines(ben)[-2:]
    assert (attack["player"], attack["notation"], chance["player"]) == ("ben", "0605x0506", "")
    assert attack["events"] == ["Wight (Wildling) 1 attacks Wildling 1 on 0506."]
    rolled = re.fullmatch(
        r"Wight \(Wildling\) 1 attacks Wildling 1: \d \+ 1 = \d+ against \d \+ 4 = \d+: (hit|held)\.",
        chance["events"][0],
    )
    assert rolled, chance["events"]
    hit = rolled[1] == "hit"
    assert chance["events"][1:] == (["Wildling 1 loses 1 life point (2 left)."] if hit else [])
    assert ben.text_content("#board svg text.dice") == f"Dice: {chance['events'][0]}"
    assert card(ben, "0506")["life"] == ("2/3" if hit else "3/3")
    assert card(ben, "0605")["life"] == "2/3"
    click(ben, "end")
    play(ben, "end")

    # --- round 2: Jon Snow and the Great Other end their turns at once; Mance's turn starts with the
    # wandering Wildlings' spawn, a chance step of its own ---------------------------------------------
    look(ann)
    assert wall_status(ann).startswith("Round 2 of 20: Jon Snow's turn, 0 of 4 unit turns used.")
    sam = card(ann, "1010")
    assert sam["def"] == "5" and "defending" not in sam["marks"]  # defending lasts until its next turn
    assert "used" not in card(ann, "1110")["marks"]
    click(ann, "end")
    play(ann, "end")
    look(ben)
    assert wall_status(ben).startswith("Round 2 of 20: The Great Other's turn")
    assert "Wandering groups still to come: 6." in ben.text_content("[data-testid=thewall-notes]")
    assert ben.locator("[data-testid=wanderers]").count() == 0
    click(ben, "end")
    play(ben, "end")

    lines = log_lines(ben)
    spawned = [line for line in lines if any(text.startswith("Spawn roll") for text in line["events"])]
    assert len(spawned) == 1, lines
    (spawn,) = spawned
    assert spawn == lines[-1] and (spawn["player"], spawn["notation"]) == ("", "")
    assert re.fullmatch(r"Spawn roll [1-6]: spawn point \d{4}.*", spawn["events"][0])
    appeared = [
        re.fullmatch(r"Wandering Wildlings 1 appear on (\d{4}) \(5 groups left\)\.", t)
        for t in spawn["events"]
    ]
    (where,) = [m[1] for m in appeared if m]
    assert "Round 2: Mance Rayder's turn." in lines[-2]["events"]
    for page in (ben, look(ann)):
        assert "Wandering groups still to come: 5." in page.text_content("[data-testid=thewall-notes]")
        assert board_unit(page, "Wandering Wildlings 1").startswith(f"Wandering Wildlings 1 on {where}:")
    assert status(ann) == "Your move."
    assert wall_status(ann).startswith("Round 2 of 20: Mance Rayder's turn, 0 of 4 unit turns used.")

    # Exactly once: the whole log, reloaded, has the one spawn; so has the database.
    ann.goto(f"{match_url}log/")
    whole = ann.text_content("[data-testid=log]")
    assert whole.count("Spawn roll") == 1 and whole.count("Wandering Wildlings 1 appear on") == 1
    chance_steps = Move.objects.filter(match=match, seat__isnull=True).order_by("seq")
    spawn_kinds = [[e["kind"] for e in step.events if e["kind"] == "spawn"] for step in chance_steps]
    assert spawn_kinds == [[], [], ["spawn"]]  # the two attacks' dice, then the spawn
