"""The Great Wall: Black Powder (seed 004): defend three wall sections against the Horde, year by year.

The seed is the Black Powder expansion; the compact base game under it follows GAMES.md section 5. The
rules digest with every card, number and decision, and the notation, is ``seeds/greatwall.md``; the card
data is in ``cards.py`` and the picture in ``svg.py``.

How the state runs: a year is a list of tasks in ``agenda`` (Spring's draw, Summer's Command cards,
Autumn's clerks, the Winter steps). ``_run`` works them off. A task that needs a player's decision
becomes ``pending`` (its options are that seat's legal moves); a task that needs chance (the Horde
draw, a Rocket card, an Advisor draw, every step of the game-controlled general) becomes ``chance``
and waits for ``resolve_chance``. Decisions that rules set off in the middle of another (a Spearman
into a Tower, then a War Machine shot, then saving Killed soldiers) are tasks put at the front.
"""

from __future__ import annotations

import math
import random
import re
from typing import Any, ClassVar

from games.engines.base import (
    Engine,
    Event,
    IllegalMove,
    Move,
    Option,
    Preview,
    State,
    View,
    plain_copy,
    waiting_for,
)
from games.engines.greatwall import svg as svg_module
from games.engines.greatwall.cards import (
    ADVISOR_COPIES,
    ADVISOR_HAND,
    ADVISOR_ORDER,
    ADVISORS,
    ARCHER_SUPPORT_HONOR,
    ASSAULT_ROWS,
    BALLISTA_WOUNDS,
    BARRACKS_ORDERS,
    BASE_HORDES,
    BASE_SOLDIERS,
    CANNON_SHOT,
    CLAN_NAMES,
    CLAN_SPECIAL,
    CLANS,
    CLERKS,
    COMMAND_NAMES,
    COMMAND_ORDER,
    COMMAND_TEXT,
    COMMANDS,
    DEFENCE_PER_LEVEL,
    FIRING_SPOTS,
    HORDE_COPIES,
    HORDE_ORDER,
    HORDES,
    LEVEL_COST,
    LEVEL_HONOR,
    LOCATION_GAIN,
    LOCATION_NAMES,
    LOCATIONS,
    MACHINE_BUILD_HONOR,
    MACHINE_MODELS,
    MACHINE_NAMES,
    MACHINE_ORDER,
    MACHINES,
    MACHINES_PER_SECTION,
    MAX_LEVEL,
    NEW_HORDES,
    OVERSEER_MAX,
    REMOVED_TYPES,
    RESOURCES,
    ROCKET_CARDS,
    ROCKET_ORDER,
    ROWS,
    SECTION_TOWERS,
    SECTIONS,
    SETUP_UPGRADES,
    SHAME_BASE,
    SHAME_PENALTY,
    SHAME_PER_SEAT,
    SNAKE_TOKENS,
    SOLDIER_NAMES,
    SOLDIER_ORDER,
    SOLDIERS,
    SPECIAL_COUNT,
    START_LEVEL,
    START_RESERVE,
    START_RESOURCES,
    START_SUPPLY,
    TANK_ANCHORS,
    TOWER_SECTIONS,
    TOWERS,
    YEARS,
)
from games.engines.palette import SEAT_NAMES

NEUTRAL_NAME = "The Imperial general"  # the game-controlled general of 1-2 player games
# The prompt above the board: chance steps, the decisions as the deciding general is asked them, and
# as the others wait for them.
_CHANCE_PROMPT = {
    "spring": "The Horde cards of spring are being drawn",
    "counsel": "Advisor cards are being drawn",
    "rocket": "A Rocket card is being drawn",
}
_ASK = {
    "overseer": "Choose a location whose Overseer you upgrade.",
    "place": "Place a War Machine model not yet on the wall on a section with room for it.",
    "builders": "Builders' Encampment: build a wall level or a War Machine you can pay for, or nothing.",
    "fortify": "Choose a section below the top level for the Fortifier's free wall level.",
    "bomber": "Drop your Bomber on a free vital spot of the first-row card, or keep it on the wall.",
    "save": "Choose how many of your Killed soldiers to save, at one chi each.",
}
_WAITING = {
    "overseer": "to upgrade an Overseer",
    "place": "to place a War Machine",
    "clerk": "to send a clerk",
    "barracks": "to give Barracks orders",
    "builders": "to build",
    "fortify": "to choose a section to fortify",
    "tower": "to man a Tower",
    "shoot": "to shoot a War Machine",
    "fire": "to fire at the Horde",
    "bomber": "to drop a Bomber",
    "save": "to save Killed soldiers",
}
MOVE_HINT = (
    "Moves: overseer wood, place cannon B, command tribute, clerk barracks, advisor sage, recruit archer, "
    "attack spearman B1-5, attack archer B2-4, build level A, build rocket C, tower 2, shoot cannon B1, "
    "wound A1-3, drop B1-5, save 1, done."
)
DECISIONS = ("overseer", "place", "clerk", "barracks", "builders", "tower", "shoot", "fire", "bomber", "save")


def _who(state: State, general: int) -> str:
    if general == state["neutral"]:
        return NEUTRAL_NAME
    return SEAT_NAMES[general % len(SEAT_NAMES)].capitalize()


def _sec(s: int) -> str:
    return SECTIONS[s]


def _a(name: str) -> str:
    return ("an " if name[0] in "AEIOU" else "a ") + name


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _cost_text(cost: dict[str, int]) -> str:
    return ", ".join(f"{cost[r]} {r}" for r in RESOURCES if cost.get(r)) or "nothing"


def _active(state: State) -> list[int]:
    return [s for s in range(state["seats"]) if s not in state["eliminated"]]


def _soldier_types(state: State, seat: int) -> list[str]:
    special = CLAN_SPECIAL[state["clans"][seat]]
    return [t for t in SOLDIER_ORDER if t in BASE_SOLDIERS or t == special]


def _can_pay(state: State, seat: int, cost: dict[str, int]) -> bool:
    have = state["res"][seat]
    return all(have[r] >= n for r, n in cost.items())


def _pay(state: State, seat: int, cost: dict[str, int]) -> None:
    for r, n in cost.items():
        state["res"][seat][r] -= n


def _gain(state: State, seat: int, what: str, n: int) -> None:
    if what == "honor":
        state["honor"][seat] = max(0, state["honor"][seat] + n)
    else:
        state["res"][seat][what] += n


def _shame(state: State, seat: int, why: str, events: list[Event]) -> None:
    """Take one Shame token from the pool; an empty pool ends the game after the current step."""
    if state["shame_pool"] <= 0:
        return
    state["shame_pool"] -= 1
    state["shame"][seat] += 1
    events.append(
        Event(
            kind="shame",
            text=f"{_who(state, seat)} takes a Shame token ({why}); {state['shame_pool']} left in the pool.",
            data={"seat": seat, "pool": state["shame_pool"]},
        )
    )
    if state["shame_pool"] == 0 and state["ending"] is None:
        state["ending"] = "shame_ran_out"


def _score(state: State, seat: int) -> int:
    # Decision: no floor at 0. With one, most games ended with every score at 0 (a draw), hiding which
    # general defended better in a hard year.
    return state["honor"][seat] - SHAME_PENALTY * state["shame"][seat]


# --- Horde cards ---------------------------------------------------------------------------------------
def _new_card(kind: str) -> dict[str, Any]:
    return {"type": kind, "cover": [None] * 9}


def _spots(card: dict[str, Any]) -> tuple[int, ...]:
    return HORDES[card["type"]]["spots"]


def _free_spots(card: dict[str, Any]) -> list[int]:
    return [k for k in _spots(card) if card["cover"][k - 1] is None]


def _fully_covered(card: dict[str, Any]) -> bool:
    return all(card["cover"][k - 1] is not None for k in _spots(card))


def _is_soldier(mark: list[Any] | None) -> bool:
    """Soldiers and Snake Clan tokens (which count as soldiers); a wound ("w") is not one."""
    return mark is not None and mark[0] in ("s", "t", "k")


def _soldiers_on(card: dict[str, Any]) -> list[tuple[int, str]]:
    """(owner, type) of every soldier on a card: a Tank once, a Snake token as "snake"."""
    out: list[tuple[int, str]] = []
    tanks: set[tuple[int, int]] = set()
    for mark in card["cover"]:
        if mark is None or mark[0] == "w":
            continue
        if mark[0] == "s":
            out.append((mark[1], mark[2]))
        elif mark[0] == "k":
            out.append((mark[1], "snake"))
        elif (mark[1], mark[2]) not in tanks:
            tanks.add((mark[1], mark[2]))
            out.append((mark[1], "tank"))
    return out


def _tank_block(card: dict[str, Any], anchor: int) -> list[int]:
    block = (anchor, anchor + 1, anchor + 3, anchor + 4)
    return [k for k in block if k in _spots(card)]


def _adjacent(k: int) -> list[int]:
    row, col = divmod(k - 1, 3)
    out = []
    for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
        r, c = row + dr, col + dc
        if 0 <= r < 3 and 0 <= c < 3:
            out.append(r * 3 + c + 1)
    return out


def _reward(state: State, seat: int, card: dict[str, Any], k: int, events: list[Event]) -> None:
    what = HORDES[card["type"]]["rewards"].get(k)
    if what is None:
        return
    _gain(state, seat, what, 1)
    events.append(
        Event(
            kind="reward",
            text=f"{_who(state, seat)} gains 1 {what} from the vital spot.",
            data={"seat": seat, "gain": what},
        )
    )


# --- the wall --------------------------------------------------------------------------------------------
def _rotation(state: State) -> list[int]:
    return [(state["pointer"] + i) % 3 for i in range(3)]


def _place_horde(state: State, kind: str, events: list[Event]) -> None:
    """Front rows first, sections in rotation; a Siege Trebuchet only ever takes a 3rd row."""
    rows = [ROWS - 1] if kind == "trebuchet" else list(range(ROWS))
    for r in rows:
        for s in _rotation(state):
            section = state["sections"][s]
            if section["rows"][r] is None:
                section["rows"][r] = _new_card(kind)
                state["pointer"] = (s + 1) % 3
                events.append(
                    Event(
                        kind="horde",
                        text=f"{HORDES[kind]['name']} arrive before section {_sec(s)}, row {r + 1}.",
                        data={"type": kind, "section": s, "row": r + 1},
                    )
                )
                return
    state["horde_discard"] = sorted([*state["horde_discard"], kind], key=HORDE_ORDER.index)
    state["stats"]["raids"] += 1
    field = _in_field(state)
    fewest = min((field[s] for s in _active(state)), default=0)
    events.append(
        Event(
            kind="raid",
            text=f"{HORDES[kind]['name']} find no free place before the wall and raid the land; every player "
            "loses 1 Honor.",
            data={"type": kind},
        )
    )
    for seat in _active(state):
        _gain(state, seat, "honor", -1)
        if field[seat] == fewest:
            _shame(state, seat, "a Raid, with the fewest soldiers in the field", events)


def _in_field(state: State) -> list[int]:
    """Soldiers (and Snake Clan tokens) of each player on Horde cards and Firing spots."""
    field = [0] * state["seats"]
    for section in state["sections"]:
        for owner, _ in section["firing"]:
            field[owner] += 1
        for card in section["rows"]:
            if card is not None:
                for owner, _ in _soldiers_on(card):
                    field[owner] += 1
    return field


def _draw_hordes(state: State, count: int, rng: random.Random, events: list[Event]) -> None:
    for _ in range(count):
        deck = state["horde_deck"]
        if not deck:
            if not state["horde_discard"]:
                events.append(Event(kind="horde", text="The Horde deck and its discards are empty."))
                return
            deck.extend(state["horde_discard"])
            deck.sort(key=HORDE_ORDER.index)
            state["horde_discard"] = []
            events.append(
                Event(kind="shuffle", text=f"The Horde discards ({len(deck)}) are shuffled into a new deck.")
            )
        kind = deck.pop(rng.randrange(len(deck)))
        _place_horde(state, kind, events)


def _destroy_level(state: State, s: int, why: str, events: list[Event]) -> None:
    section = state["sections"][s]
    if section["level"] <= 0:
        return
    section["level"] -= 1
    moved = section["firing"]
    section["rest"].extend(moved)
    section["firing"] = []
    note = f"; {_plural(len(moved), 'soldier')} on its Firing spots go to the Rest Zone" if moved else ""
    events.append(
        Event(
            kind="destroy",
            text=f"{why} destroys a wall level of section {_sec(s)} (level {section['level']} left){note}.",
            data={"section": s, "level": section["level"]},
        )
    )
    if all(sec["level"] == 0 for sec in state["sections"]) and state["ending"] is None:
        state["ending"] = "wall_fell"


def _power(section: dict[str, Any]) -> int:
    """The Offensive Power against a section: the Hordes of its first two rows (the third row waits)."""
    return sum(HORDES[c["type"]]["power"] for c in section["rows"][:ASSAULT_ROWS] if c is not None)


def _defence(section: dict[str, Any]) -> int:
    """Two per wall level and one per soldier on a Firing spot; Siege Ladders in the first row make it 0."""
    front = section["rows"][0]
    if front is not None and front["type"] == "ladders":
        return 0
    return DEFENCE_PER_LEVEL * section["level"] + len(section["firing"])


def _kill(state: State, killed: dict[int, list[str]]) -> None:
    """Killed soldiers wait for their owners' decisions to Save them (tasks at the front, Tea order)."""
    tasks = [
        {"task": "save", "seat": g, "killed": sorted(killed[g], key=SOLDIER_ORDER.index)}
        for g in state["tea"]
        if killed.get(g)
    ]
    state["agenda"][:0] = tasks


def _soldier_wound(state: State, seat: int, kind: str, s: int, r: int, k: int, events: list[Event]) -> None:
    card = state["sections"][s]["rows"][r - 1]
    if kind == "crossbowman" and state["snakes"] > 0:
        state["snakes"] -= 1
        card["cover"][k - 1] = ["k", seat]
        what = "a Snake Clan token"
    else:
        card["cover"][k - 1] = ["w"]
        what = "a wound"
    events.append(
        Event(
            kind="wound",
            text=f"{_who(state, seat)}'s {SOLDIER_NAMES[kind]} puts {what} on {HORDES[card['type']]['name']} "
            f"({_sec(s)}{r}-{k}).",
            data={"seat": seat, "section": s, "row": r, "spot": k},
        )
    )


def _machine_wounds(
    state: State, seat: int, machine: str, s: int, r: int, pattern: tuple[int, ...], events: list[Event]
) -> None:
    """A War Machine's wounds: a wound on a wounded or missing spot is wasted, a soldier under one is Killed
    (a Tank is immune), and killing other players' soldiers costs the shooter one Shame token."""
    card = state["sections"][s]["rows"][r - 1]
    landed: list[int] = []
    wasted = 0
    killed: dict[int, list[str]] = {}
    for k in pattern:
        mark = card["cover"][k - 1]
        if k not in _spots(card) or (mark is not None and mark[0] in ("w", "k", "t")):
            wasted += 1
            continue
        if mark is not None:  # a soldier
            killed.setdefault(mark[1], []).append(mark[2])
        card["cover"][k - 1] = ["w"]
        landed.append(k)
    name = HORDES[card["type"]]["name"]
    spots = ", ".join(map(str, landed)) or "none"
    events.append(
        Event(
            kind="shot",
            text=f"The {MACHINE_NAMES[machine]} hits {name} ({_sec(s)}{r}): wounds on {spots}"
            + (f", {wasted} wasted" if wasted else "")
            + ".",
            data={"section": s, "row": r, "spots": landed, "wasted": wasted},
        )
    )
    if not killed:
        return
    for owner in sorted(killed):
        listed = ", ".join(SOLDIER_NAMES[t] for t in killed[owner])
        events.append(
            Event(
                kind="killed",
                text=f"{_who(state, owner)} loses {listed} to the shot.",
                data={"seat": owner, "soldiers": killed[owner]},
            )
        )
    if any(owner != seat for owner in killed):
        _shame(state, seat, "its shot killed another player's soldier", events)
    _kill(state, killed)


def _machines_left(state: State, kind: str) -> int:
    # Destroyed machines go back beside the board, so only the ones on the wall are missing.
    return MACHINE_MODELS - sum(sec["machines"].count(kind) for sec in state["sections"])


def _build_level(state: State, seat: int, s: int, bonus: int, events: list[Event], why: str) -> None:
    section = state["sections"][s]
    section["level"] += 1
    _gain(state, seat, "honor", LEVEL_HONOR + bonus)
    events.append(
        Event(
            kind="build",
            text=f"{_who(state, seat)} builds a wall level in section {_sec(s)} ({why}; now level "
            f"{section['level']}) and gains {LEVEL_HONOR + bonus} Honor.",
            data={"seat": seat, "section": s, "level": section["level"]},
        )
    )
    if all(sec["level"] >= MAX_LEVEL for sec in state["sections"]) and state["ending"] is None:
        state["ending"] = "wall_completed"
    state["agenda"].insert(
        0, {"task": "tower", "seat": seat, "towers": list(SECTION_TOWERS[s]), "must": False}
    )


# --- the steps of a year -------------------------------------------------------------------------------
def _start_year(state: State) -> None:
    state["agenda"] = [
        {"task": "spring"},
        {"task": "summer"},
        {"task": "autumn"},
        {"task": "firing"},
        {"task": "defeat"},
        {"task": "assault"},
        {"task": "siege"},
        {"task": "advance"},
        {"task": "year_end"},
    ]


def _task_spring(state: State, task: dict[str, Any], events: list[Event]) -> None:
    state["season"] = "spring"
    if state["year"] == 1:
        return  # the setup draw was this year's Spring
    state["chance"] = {"kind": "spring"}


def _task_summer(state: State, task: dict[str, Any], events: list[Event]) -> None:
    state["season"] = "summer"
    state["committed"] = [None] * state["generals"]
    state["revealed"] = None
    events.append(
        Event(kind="season", text=f"Summer of year {state['year']}: every general chooses a Command card.")
    )
    state["pending"] = {"kind": "command", "seat": None}


def _available_commands(state: State, general: int) -> list[str]:
    return [c for c in COMMAND_ORDER if c != state["resting"][general]]


def _reveal(state: State, events: list[Event]) -> None:
    """All Command cards face up: the new Tea order, then each card's effect."""
    played = list(state["committed"])
    state["pending"] = None
    old = list(state["tea"])
    state["tea"] = sorted(old, key=lambda g: (-(COMMANDS[played[g]] if played[g] else 0), old.index(g)))
    shown = ", ".join(
        f"{_who(state, g)} {COMMAND_NAMES[played[g]]}" for g in range(state["generals"]) if played[g]
    )
    order = ", ".join(_who(state, g) for g in state["tea"])
    events.append(
        Event(
            kind="reveal",
            text=f"Command cards revealed: {shown}. Tea order: {order}.",
            data={"cards": played, "tea": list(state["tea"])},
        )
    )
    state["revealed"] = played
    state["resting"] = played
    state["committed"] = [None] * state["generals"]
    counsel: list[int] = []
    tasks: list[dict[str, Any]] = []
    for g in state["tea"]:
        card = played[g]
        if card is None or g == state["neutral"] or g in state["eliminated"]:
            continue
        if card == "tribute":
            _gain(state, g, "wood", 1)
            _gain(state, g, "gold", 1)
            events.append(
                Event(
                    kind="gain", text=f"{_who(state, g)} gains 1 wood and 1 gold (Tribute).", data={"seat": g}
                )
            )
        elif card == "meditation":
            tasks.append({"task": "overseer", "seat": g, "cap": OVERSEER_MAX})
        elif card == "counsel":
            counsel.append(g)
    state["agenda"][:0] = tasks
    if counsel:
        state["chance"] = {"kind": "counsel", "seats": counsel}


def _task_autumn(state: State, task: dict[str, Any], events: list[Event]) -> None:
    state["season"] = "autumn"
    state["placed"] = [[] for _ in LOCATIONS]
    events.append(Event(kind="season", text=f"Autumn of year {state['year']}: clerks go out in Tea order."))
    state["agenda"][:0] = [
        {"task": "clerk", "seat": g, "advised": False} for _ in range(CLERKS) for g in state["tea"]
    ]


def _capacity(state: State) -> int:
    return 2 if state["generals"] <= 3 else 3


def _open_locations(state: State) -> list[str]:
    cap = _capacity(state)
    return [loc for i, loc in enumerate(LOCATIONS) if len(state["placed"][i]) < cap]


def _task_firing(state: State, task: dict[str, Any], events: list[Event]) -> None:
    state["season"] = "winter"
    events.append(Event(kind="season", text=f"Winter of year {state['year']}: the Firing phase."))
    tasks = []
    for g in state["tea"]:
        for s, section in enumerate(state["sections"]):
            for owner, kind in section["firing"]:
                if owner == g:
                    tasks.append({"task": "fire", "seat": g, "sec": s, "type": kind})
    state["agenda"][:0] = tasks


def _claimer(state: State, card: dict[str, Any]) -> int | None:
    counts: dict[int, int] = {}
    for owner, _ in _soldiers_on(card):
        counts[owner] = counts.get(owner, 0) + 1
    if not counts:
        return None
    best = max(counts.values())
    return next(g for g in state["tea"] if counts.get(g) == best)


def _task_defeat(state: State, task: dict[str, Any], events: list[Event]) -> None:
    """Defeat the first fully covered Horde card, then come back for the next (a Tower shot wounds more)."""
    for s, section in enumerate(state["sections"]):
        for r, card in enumerate(section["rows"]):
            if card is None or not _fully_covered(card):
                continue
            info = HORDES[card["type"]]
            claimer = _claimer(state, card)
            section["rows"][r] = None
            for owner, kind in _soldiers_on(card):
                if kind == "snake":
                    state["snakes"] += 1
                else:
                    section["rest"].append([owner, kind])
            state["horde_discard"] = sorted([*state["horde_discard"], card["type"]], key=HORDE_ORDER.index)
            state["stats"]["defeated"] += 1
            who = "nobody claims it" if claimer is None else f"{_who(state, claimer)} claims it"
            events.append(
                Event(
                    kind="defeat",
                    text=f"{info['name']} before section {_sec(s)} are defeated; {who}.",
                    data={"section": s, "row": r + 1, "type": card["type"], "claimer": claimer},
                )
            )
            if claimer is not None:
                _gain(state, claimer, "honor", info["honor"])
                events.append(
                    Event(
                        kind="honor",
                        text=f"{_who(state, claimer)} gains {info['honor']} Honor.",
                        data={"seat": claimer, "honor": info["honor"]},
                    )
                )
            for owner, kind in section["firing"]:
                if kind == "archer":  # Bombers and Crossbowmen give no support Honor
                    _gain(state, owner, "honor", ARCHER_SUPPORT_HONOR)
                    events.append(
                        Event(
                            kind="honor",
                            text=f"{_who(state, owner)}'s Archer on section {_sec(s)} earns "
                            f"{ARCHER_SUPPORT_HONOR} Honor.",
                            data={"seat": owner, "honor": ARCHER_SUPPORT_HONOR},
                        )
                    )
            tasks: list[dict[str, Any]] = []
            if claimer is not None:
                tasks.append(
                    {"task": "tower", "seat": claimer, "towers": list(SECTION_TOWERS[s]), "must": False}
                )
            tasks.append({"task": "defeat"})
            state["agenda"][:0] = tasks
            return


def _task_assault(state: State, task: dict[str, Any], events: list[Event]) -> None:
    manned = list(state["towers"])  # who stood in the Towers when the Assault began
    breached = [False, False, False]
    killed: dict[int, list[str]] = {}
    for s, section in enumerate(state["sections"]):
        cards = [c for c in section["rows"] if c is not None]
        power = _power(section)
        ladders = section["rows"][0] is not None and section["rows"][0]["type"] == "ladders"
        defence = _defence(section)
        if power <= defence:
            if cards:
                events.append(
                    Event(
                        kind="assault",
                        text=f"Section {_sec(s)} holds: Offensive Power {power} against Defence {defence}.",
                        data={"section": s, "power": power, "defence": defence, "breach": False},
                    )
                )
            continue
        breached[s] = True
        state["stats"]["breaches"] += 1
        events.append(
            Event(
                kind="assault",
                text=f"Section {_sec(s)} is breached: Offensive Power {power} against Defence {defence}"
                + (" (Siege Ladders in the first row)" if ladders else "")
                + "; every player loses 1 Honor.",
                data={"section": s, "power": power, "defence": defence, "breach": True},
            )
        )
        defenders = {owner for c in cards for owner, _ in _soldiers_on(c)}
        defenders |= {owner for owner, _ in section["firing"]}
        for seat in _active(state):
            _gain(state, seat, "honor", -1)
            if seat not in defenders:
                _shame(state, seat, f"none of its soldiers defended section {_sec(s)}", events)
        for c in cards:
            soldiers = [(o, k) for o, k in _soldiers_on(c) if k != "snake"]
            # Wounds and soldiers leave the card; Snake Clan tokens stay.
            c["cover"] = [m if m is not None and m[0] == "k" else None for m in c["cover"]]
            for owner, kind in soldiers:
                if ladders:
                    killed.setdefault(owner, []).append(kind)
                else:
                    section["rest"].append([owner, kind])
        if ladders:
            for owner, kind in section["firing"] + section["rest"]:
                killed.setdefault(owner, []).append(kind)
            section["firing"] = []
            section["rest"] = []
            lost = section["machines"]
            section["machines"] = []
            if lost:
                events.append(
                    Event(
                        kind="destroy",
                        text=f"The Siege Ladders destroy the War Machines on section {_sec(s)}: "
                        + ", ".join(MACHINE_NAMES[m] for m in lost)
                        + ".",
                        data={"section": s, "machines": lost},
                    )
                )
            if killed:
                events.append(
                    Event(
                        kind="killed",
                        text=f"Every soldier on section {_sec(s)} and in its Rest Zone is Killed.",
                        data={"section": s},
                    )
                )
        for t in SECTION_TOWERS[s]:
            owner = state["towers"][t]
            if owner is not None:
                state["towers"][t] = None
                state["reserve"][owner]["spearman"] += 1
                events.append(
                    Event(
                        kind="tower",
                        text=f"{_who(state, owner)}'s Spearman leaves Tower {t + 1}.",
                        data={"seat": owner, "tower": t + 1},
                    )
                )
    for t, owner in enumerate(manned):
        if owner is None or owner in state["eliminated"]:
            continue
        held = [s for s in TOWER_SECTIONS[t] if not breached[s]]
        fell = [s for s in TOWER_SECTIONS[t] if breached[s]]
        if held:
            _gain(state, owner, "honor", 2 * len(held))
            events.append(
                Event(
                    kind="tower",
                    text=f"{_who(state, owner)} gains {2 * len(held)} Honor for its Spearman in Tower "
                    f"{t + 1}.",
                    data={"seat": owner, "tower": t + 1, "honor": 2 * len(held)},
                )
            )
        for _ in fell:
            _shame(state, owner, f"a breach beside its Tower {t + 1}", events)
    _kill(state, killed)


def _task_siege(state: State, task: dict[str, Any], events: list[Event]) -> None:
    """After the Assault: Battering Rams move up a row and ram the wall, Trebuchets hurl stones."""
    for s, section in enumerate(state["sections"]):
        rows = section["rows"]
        rams = [r for r in range(ROWS) if rows[r] is not None and rows[r]["type"] == "ram"]
        for r in rams:
            if r > 0:
                rows[r - 1], rows[r] = rows[r], rows[r - 1]
                events.append(
                    Event(
                        kind="ram",
                        text=f"The Battering Ram before section {_sec(s)} moves up to row {r}.",
                        data={"section": s, "row": r},
                    )
                )
                r -= 1
            if r == 0:
                _destroy_level(state, s, "The Battering Ram", events)
        if rows[ROWS - 1] is not None and rows[ROWS - 1]["type"] == "trebuchet":
            _destroy_level(state, s, "The Siege Trebuchet", events)


def _task_advance(state: State, task: dict[str, Any], events: list[Event]) -> None:
    for s, section in enumerate(state["sections"]):
        rows = section["rows"]
        fixed = ROWS - 1 if rows[ROWS - 1] is not None and rows[ROWS - 1]["type"] == "trebuchet" else None
        movers = [c for i, c in enumerate(rows) if c is not None and i != fixed]
        free = [i for i in range(ROWS) if i != fixed]
        new: list[Any] = [None] * ROWS
        if fixed is not None:
            new[fixed] = rows[fixed]
        for i, card in zip(free, movers, strict=False):
            new[i] = card
        if new != rows:
            section["rows"] = new
            events.append(
                Event(
                    kind="advance", text=f"The Hordes before section {_sec(s)} close up.", data={"section": s}
                )
            )


def _task_year_end(state: State, task: dict[str, Any], events: list[Event]) -> None:
    for section in state["sections"]:
        for owner, kind in section["rest"]:
            state["reserve"][owner][kind] += 1
        section["rest"] = []
    events.append(
        Event(kind="season", text=f"Year {state['year']} ends; rested soldiers return to their reserves.")
    )
    if state["year"] >= YEARS:
        state["ending"] = "time_ran_out"
        return
    state["year"] += 1
    _start_year(state)


# --- decisions: options and effects ----------------------------------------------------------------------
def _options(state: State, p: dict[str, Any]) -> list[Move]:
    """The moves of the decision ``p`` (a pending dict); "done" last where the decision may be declined."""
    kind, seat = p["kind"], p["seat"]
    if kind == "overseer":
        levels = state["overseers"][seat]
        return [{"overseer": loc} for loc in LOCATIONS if levels[loc] < p["cap"]]
    if kind == "place":
        placed = {m for sec in state["sections"] for m in sec["machines"]}
        return [
            {"place": m, "sec": s}
            for m in MACHINE_ORDER
            if m not in placed
            for s in range(3)
            if len(state["sections"][s]["machines"]) < MACHINES_PER_SECTION
        ]
    if kind == "clerk":
        moves: list[Move] = [{"clerk": loc} for loc in _open_locations(state)]
        if not p["advised"]:
            moves += [
                {"advisor": a}
                for a in sorted(set(state["hands"][seat]), key=ADVISOR_ORDER.index)
                if _advisor_playable(state, seat, a)
            ]
        return moves
    if kind == "barracks":
        moves = []
        for t in _soldier_types(state, seat):
            if state["supply"][seat][t] > 0 and _can_pay(state, seat, SOLDIERS[t]["cost"]):
                moves.append({"recruit": t})
        for t in _soldier_types(state, seat):
            if state["reserve"][seat][t] > 0:
                moves += _attack_options(state, t)
        return [*moves, {"done": True}] if moves else []
    if kind == "builders":
        moves = []
        if _can_pay(state, seat, LEVEL_COST):
            moves += [
                {"build": "level", "sec": s} for s in range(3) if state["sections"][s]["level"] < MAX_LEVEL
            ]
        for m in MACHINE_ORDER:
            if _machines_left(state, m) > 0 and _can_pay(state, seat, MACHINES[m]["build"]):
                moves += [
                    {"build": m, "sec": s}
                    for s in range(3)
                    if len(state["sections"][s]["machines"]) < MACHINES_PER_SECTION
                ]
        return [*moves, {"done": True}] if moves else []
    if kind == "fortify":
        return [{"build": "level", "sec": s} for s in range(3) if state["sections"][s]["level"] < MAX_LEVEL]
    if kind == "tower":
        if state["reserve"][seat]["spearman"] <= 0:
            return []
        moves = [{"tower": t + 1} for t in p["towers"] if state["towers"][t] != seat]
        if not moves:
            return []
        return moves if p["must"] else [*moves, {"done": True}]
    if kind == "shoot":
        moves = _shot_options(state, seat, p)
        if not moves:
            return []
        return moves if p["must"] else [*moves, {"done": True}]
    if kind == "fire":
        s = p["sec"]
        return [
            {"wound": s, "row": r + 1, "spot": k}
            for r, card in enumerate(state["sections"][s]["rows"])
            if card is not None
            for k in _free_spots(card)
        ]
    if kind == "bomber":
        s = p["sec"]
        if [seat, "bomber"] not in state["sections"][s]["firing"]:
            return []
        card = state["sections"][s]["rows"][0]
        moves = [] if card is None else [{"drop": s, "spot": k} for k in _free_spots(card)]
        return [*moves, {"done": True}] if moves else []
    if kind == "save":
        most = min(state["res"][seat]["chi"], len(p["killed"]))
        return [{"save": n} for n in range(most + 1)]
    raise AssertionError(kind)  # pragma: no cover


def _attack_options(state: State, t: str) -> list[Move]:
    info = SOLDIERS[t]
    moves: list[Move] = []
    for s, section in enumerate(state["sections"]):
        if info["kind"] == "cover":
            for r in info["rows"]:
                card = section["rows"][r - 1]
                if card is not None:
                    moves += [{"attack": t, "sec": s, "row": r, "spot": k} for k in _free_spots(card)]
        elif info["kind"] == "tank":
            card = section["rows"][0]
            if card is not None:
                for a in TANK_ANCHORS:
                    block = _tank_block(card, a)
                    if block and not any(_is_soldier(card["cover"][k - 1]) for k in block):
                        moves.append({"attack": t, "sec": s, "row": 1, "spot": a})
        elif section["level"] > 0 and len(section["firing"]) < FIRING_SPOTS:
            targets = [
                {"attack": t, "sec": s, "row": r + 1, "spot": k}
                for r, card in enumerate(section["rows"])
                if card is not None
                for k in _free_spots(card)
            ]
            moves += targets or [{"attack": t, "sec": s}]
    return moves


def _shot_options(state: State, seat: int, p: dict[str, Any]) -> list[Move]:
    moves: list[Move] = []
    for s in p["secs"]:
        section = state["sections"][s]
        for m in MACHINE_ORDER:
            if m not in section["machines"] or (p["only"] is not None and p["only"] != m):
                continue
            if not p["free"] and not _can_pay(state, seat, MACHINES[m]["shot"]):
                continue
            moves += [
                {"shoot": m, "sec": s, "row": r + 1} for r, c in enumerate(section["rows"]) if c is not None
            ]
    return moves


def _advisor_playable(state: State, seat: int, name: str) -> bool:
    if name == "drillmaster":
        return state["supply"][seat]["spearman"] > 0
    if name == "engineer":
        return bool(_shot_options(state, seat, {"secs": [0, 1, 2], "only": None, "free": True}))
    if name == "warden":
        return state["reserve"][seat]["spearman"] > 0 and any(o != seat for o in state["towers"])
    if name == "fortifier":
        return any(sec["level"] < MAX_LEVEL for sec in state["sections"])
    return True


def _play_advisor(state: State, seat: int, name: str, events: list[Event]) -> list[dict[str, Any]]:
    """The Advisor's effect; returns the decisions it sets off."""
    state["hands"][seat].remove(name)
    state["advisor_discard"] = sorted([*state["advisor_discard"], name], key=ADVISOR_ORDER.index)
    card = ADVISORS[name]
    events.append(
        Event(
            kind="advisor",
            text=f"{_who(state, seat)} plays the Advisor {card['name']}: {card['text']}.",
            data={"seat": seat, "advisor": name},
        )
    )
    gains = {
        "quartermaster": {"wood": 2, "stone": 1},
        "treasurer": {"gold": 2},
        "sage": {"chi": 2},
        "powder": {"stone": 2},
    }
    if name in gains:
        for r, n in gains[name].items():
            _gain(state, seat, r, n)
        return []
    if name == "drillmaster":
        state["supply"][seat]["spearman"] -= 1
        state["reserve"][seat]["spearman"] += 1
        return []
    if name == "engineer":
        return [{"task": "shoot", "seat": seat, "secs": [0, 1, 2], "only": None, "free": True, "must": True}]
    if name == "warden":
        return [{"task": "tower", "seat": seat, "towers": list(range(TOWERS)), "must": True}]
    return [{"task": "fortify", "seat": seat}]


def _do(state: State, seat: int, move: Move, events: list[Event]) -> None:
    """Carry out ``move`` (one of the pending decision's options) and clear the decision."""
    p = state["pending"]
    state["pending"] = None
    kind = p["kind"]
    front: list[dict[str, Any]] = []
    if "done" in move:
        if kind == "bomber":
            events.append(
                Event(kind="bomber", text="The Bomber stays on its Firing spot.", data={"seat": seat})
            )
        state["agenda"][:0] = front
        return
    if kind == "overseer":
        loc = move["overseer"]
        state["overseers"][seat][loc] += 1
        events.append(
            Event(
                kind="overseer",
                text=f"{_who(state, seat)} upgrades its Overseer at the {LOCATION_NAMES[loc]} to level "
                f"{state['overseers'][seat][loc]}.",
                data={"seat": seat, "location": loc},
            )
        )
    elif kind == "place":
        _place_machine(state, seat, move["place"], move["sec"], events)
    elif kind == "clerk":
        if "advisor" in move:
            front = _play_advisor(state, seat, move["advisor"], events)
            front.append({"task": "clerk", "seat": seat, "advised": True})
        else:
            front = _send_clerk(state, seat, move["clerk"], events)
    elif kind == "barracks":
        if "recruit" in move:
            t = move["recruit"]
            _pay(state, seat, SOLDIERS[t]["cost"])
            state["supply"][seat][t] -= 1
            state["reserve"][seat][t] += 1
            events.append(
                Event(
                    kind="recruit",
                    text=f"{_who(state, seat)} recruits {_a(SOLDIER_NAMES[t])} for "
                    f"{_cost_text(SOLDIERS[t]['cost'])}.",
                    data={"seat": seat, "soldier": t},
                )
            )
        else:
            front = _attack(state, seat, move, events)
        if p["orders"] > 1:
            front.append({"task": "barracks", "seat": seat, "orders": p["orders"] - 1})
    elif kind in ("builders", "fortify"):
        s = move["sec"]
        what = move["build"]
        if what == "level":
            if kind == "builders":
                _pay(state, seat, LEVEL_COST)
                _build_level(state, seat, s, p["bonus"], events, f"for {_cost_text(LEVEL_COST)}")
            else:
                _build_level(state, seat, s, 0, events, "the Fortifier's work, free")
        else:
            _pay(state, seat, MACHINES[what]["build"])
            state["sections"][s]["machines"] = sorted(
                [*state["sections"][s]["machines"], what], key=MACHINE_ORDER.index
            )
            honor = MACHINE_BUILD_HONOR + p["bonus"]
            _gain(state, seat, "honor", honor)
            events.append(
                Event(
                    kind="build",
                    text=f"{_who(state, seat)} builds {_a(MACHINE_NAMES[what])} on section {_sec(s)} for "
                    f"{_cost_text(MACHINES[what]['build'])} and gains {honor} Honor.",
                    data={"seat": seat, "section": s, "machine": what},
                )
            )
            front = [{"task": "shoot", "seat": seat, "secs": [s], "only": what, "free": False, "must": False}]
    elif kind == "tower":
        t = move["tower"] - 1
        old = state["towers"][t]
        if old is not None:
            state["reserve"][old]["spearman"] += 1
        state["towers"][t] = seat
        state["reserve"][seat]["spearman"] -= 1
        swap = f", sending {_who(state, old)}'s Spearman back" if old is not None else ""
        events.append(
            Event(
                kind="tower",
                text=f"{_who(state, seat)} puts a Spearman in Tower {t + 1}{swap}.",
                data={"seat": seat, "tower": t + 1},
            )
        )
        front = [
            {
                "task": "shoot",
                "seat": seat,
                "secs": list(TOWER_SECTIONS[t]),
                "only": None,
                "free": False,
                "must": False,
            }
        ]
    elif kind == "shoot":
        _shoot(state, seat, move["shoot"], move["sec"], move["row"], p["free"], events)
    elif kind == "fire":
        _soldier_wound(state, seat, p["type"], move["wound"], move["row"], move["spot"], events)
        if p["type"] == "bomber":
            front = [{"task": "bomber", "seat": seat, "sec": p["sec"]}]
    elif kind == "bomber":
        s, k = move["drop"], move["spot"]
        state["sections"][s]["firing"].remove([seat, "bomber"])
        card = state["sections"][s]["rows"][0]
        card["cover"][k - 1] = ["s", seat, "bomber"]
        events.append(
            Event(
                kind="attack",
                text=f"{_who(state, seat)}'s Bomber drops onto {HORDES[card['type']]['name']} "
                f"({_sec(s)}1-{k}).",
                data={"seat": seat, "section": s, "spot": k},
            )
        )
        _reward(state, seat, card, k, events)
    elif kind == "save":
        n = move["save"]
        killed = sorted(p["killed"], key=lambda t: -sum(SOLDIERS[t]["cost"].values()))
        saved, lost = killed[:n], killed[n:]
        state["res"][seat]["chi"] -= n
        for t in saved:
            state["reserve"][seat][t] += 1
        for t in lost:
            state["supply"][seat][t] += 1
        events.append(
            Event(
                kind="save",
                text=f"{_who(state, seat)} saves {_plural(n, 'soldier')} for {n} chi"
                + (f"; {_plural(len(lost), 'soldier')} go back to its supply" if lost else "")
                + ".",
                data={"seat": seat, "saved": saved, "lost": lost},
            )
        )
    state["agenda"][:0] = front


def _place_machine(state: State, general: int, m: str, s: int, events: list[Event]) -> None:
    state["sections"][s]["machines"] = sorted([*state["sections"][s]["machines"], m], key=MACHINE_ORDER.index)
    events.append(
        Event(
            kind="place",
            text=f"{_who(state, general)} places the {MACHINE_NAMES[m]} on section {_sec(s)}.",
            data={"general": general, "machine": m, "section": s},
        )
    )


def _send_clerk(state: State, seat: int, loc: str, events: list[Event]) -> list[dict[str, Any]]:
    state["placed"][LOCATIONS.index(loc)].append(seat)
    level = state["overseers"][seat][loc]
    if loc in LOCATION_GAIN:
        n = LOCATION_GAIN[loc] + level
        _gain(state, seat, loc, n)
        events.append(
            Event(
                kind="clerk",
                text=f"{_who(state, seat)}'s clerk goes to the {LOCATION_NAMES[loc]}: {n} {loc}.",
                data={"seat": seat, "location": loc, "gain": n},
            )
        )
        return []
    events.append(
        Event(
            kind="clerk",
            text=f"{_who(state, seat)}'s clerk goes to the {LOCATION_NAMES[loc]}.",
            data={"seat": seat, "location": loc},
        )
    )
    if loc == "barracks":
        return [{"task": "barracks", "seat": seat, "orders": BARRACKS_ORDERS + level}]
    return [{"task": "builders", "seat": seat, "bonus": level}]


def _attack(state: State, seat: int, move: Move, events: list[Event]) -> list[dict[str, Any]]:
    t, s = move["attack"], move["sec"]
    state["reserve"][seat][t] -= 1
    section = state["sections"][s]
    kind = SOLDIERS[t]["kind"]
    who = f"{_who(state, seat)}'s {SOLDIER_NAMES[t]}"
    if kind == "fire":
        section["firing"].append([seat, t])
        events.append(
            Event(
                kind="attack",
                text=f"{who} takes a Firing spot on section {_sec(s)}.",
                data={"seat": seat, "soldier": t, "section": s},
            )
        )
        if "row" in move:
            _soldier_wound(state, seat, t, s, move["row"], move["spot"], events)
        return [{"task": "bomber", "seat": seat, "sec": s}] if t == "bomber" else []
    r, k = move["row"], move["spot"]
    card = section["rows"][r - 1]
    name = HORDES[card["type"]]["name"]
    if kind == "tank":
        block = _tank_block(card, k)
        fresh = [x for x in block if card["cover"][x - 1] is None]
        for x in block:
            card["cover"][x - 1] = ["t", seat, k]
        events.append(
            Event(
                kind="attack",
                text=f"{who} rolls onto {name} ({_sec(s)}1), covering spots {', '.join(map(str, block))}.",
                data={"seat": seat, "soldier": t, "section": s, "row": r, "spot": k},
            )
        )
        for x in fresh:
            _reward(state, seat, card, x, events)
        return []
    card["cover"][k - 1] = ["s", seat, t]
    events.append(
        Event(
            kind="attack",
            text=f"{who} attacks {name} ({_sec(s)}{r}-{k}).",
            data={"seat": seat, "soldier": t, "section": s, "row": r, "spot": k},
        )
    )
    _reward(state, seat, card, k, events)
    if t == "flamethrower":
        burnt = [x for x in _adjacent(k) if x in _spots(card) and card["cover"][x - 1] is None]
        for x in burnt:
            card["cover"][x - 1] = ["w"]
        if burnt:
            events.append(
                Event(
                    kind="wound",
                    text=f"The flames wound spots {', '.join(map(str, burnt))}.",
                    data={"section": s, "row": r, "spots": burnt},
                )
            )
    return []


def _shoot(state: State, seat: int, m: str, s: int, r: int, free: bool, events: list[Event]) -> None:
    info = MACHINES[m]
    state["stats"]["shots"] += 1
    if not free:
        _pay(state, seat, info["shot"])
    cost = "free" if free or not info["shot"] else f"for {_cost_text(info['shot'])}"
    events.append(
        Event(
            kind="shoot",
            text=f"{_who(state, seat)} shoots the {MACHINE_NAMES[m]} on section {_sec(s)} at row {r} "
            f"({cost}).",
            data={"seat": seat, "machine": m, "section": s, "row": r},
        )
    )
    if info["honor"]:
        _gain(state, seat, "honor", info["honor"])
        events.append(
            Event(
                kind="honor",
                text=f"{_who(state, seat)} gains {info['honor']} Honor for the shot.",
                data={"seat": seat, "honor": info["honor"]},
            )
        )
    if m == "rocket":
        state["chance"] = {"kind": "rocket", "seat": seat, "sec": s, "row": r}
        return
    pattern = CANNON_SHOT[:BALLISTA_WOUNDS] if m == "ballista" else CANNON_SHOT
    _machine_wounds(state, seat, m, s, r, pattern, events)


# --- running the agenda ----------------------------------------------------------------------------------
_STEPS = {
    "spring": _task_spring,
    "summer": _task_summer,
    "autumn": _task_autumn,
    "firing": _task_firing,
    "defeat": _task_defeat,
    "assault": _task_assault,
    "siege": _task_siege,
    "advance": _task_advance,
    "year_end": _task_year_end,
}


def _ask(state: State, task: dict[str, Any], events: list[Event]) -> None:
    """Turn a decision task into the pending decision, unless it has no choice in it."""
    p = {"kind": task["task"], **{k: v for k, v in task.items() if k != "task"}}
    seat = p["seat"]
    if seat == state["neutral"]:
        state["chance"] = {"kind": f"neutral_{p['kind']}"}
        return
    options = _options(state, p)
    if seat in state["eliminated"]:
        if p["kind"] == "place" and options:  # every War Machine type must still be placed
            state["pending"] = p
            _do(state, seat, options[0], events)
        elif p["kind"] == "save" and options:
            state["pending"] = p
            _do(state, seat, {"save": 0}, events)
        return
    if not [m for m in options if "done" not in m]:
        return  # nothing to decide: the step passes
    state["pending"] = p
    if len(options) == 1:
        events.append(
            Event(
                kind="forced",
                text=f"{_who(state, seat)}: {_format(options[0])} (the only choice).",
                data={"seat": seat},
            )
        )
        _do(state, seat, options[0], events)


def _run(state: State, events: list[Event]) -> None:
    while True:
        if state["season"] == "over":
            return
        if state["ending"] is not None:
            _end(state, state["ending"], events)
            return
        if not _active(state):
            _end(state, "left", events)
            return
        if state["chance"] is not None or state["pending"] is not None:
            return
        task = state["agenda"].pop(0)
        step = _STEPS.get(task["task"])
        if step is not None:
            step(state, task, events)
        else:
            _ask(state, task, events)


END_TEXT = {
    "wall_fell": "every wall level is destroyed: the Horde has won and every player loses",
    "shame_ran_out": "the Shame pool has run out",
    "wall_completed": "the Great Wall is complete",
    "time_ran_out": f"time has run out after {YEARS} years",
    "left": "no player is left",
    "alone": "only one player is left",
}


def _end(state: State, reason: str, events: list[Event]) -> None:
    state["season"] = "over"
    state["end_reason"] = reason
    state["ending"] = None
    state["pending"] = None
    state["chance"] = None
    state["agenda"] = []
    if reason == "wall_fell":
        listed = "every player scores -1"
    else:
        listed = ", ".join(f"{_who(state, s)} {_score(state, s)}" for s in range(state["seats"]))
    events.append(
        Event(
            kind="end",
            text=f"Game over: {END_TEXT[reason]}. Scores: {listed}.",
            data={"reason": reason},
        )
    )


# --- notation ---------------------------------------------------------------------------------------
_SPOT = r"([abc])([123])-([1-9])"
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("overseer", re.compile(r"(?:overseer|upgrade) (\w+)")),
    ("place", re.compile(r"place (ballista|cannon|rocket) ([abc])")),
    ("command", re.compile(r"command (\w+)")),
    ("clerk", re.compile(r"clerk (\w+)")),
    ("advisor", re.compile(r"advisor (\w+)")),
    ("recruit", re.compile(r"recruit (\w+)")),
    ("attack_at", re.compile(rf"attack (\w+) {_SPOT}")),
    ("attack", re.compile(r"attack (\w+) ([abc])")),
    ("build", re.compile(r"build (level|ballista|cannon|rocket) ([abc])")),
    ("tower", re.compile(r"tower ([1-4])")),
    ("shoot", re.compile(r"shoot (ballista|cannon|rocket) ([abc])([123])")),
    ("wound", re.compile(rf"wound {_SPOT}")),
    ("drop", re.compile(rf"drop {_SPOT}")),
    ("save", re.compile(r"save (\d)")),
    ("done", re.compile(r"done|pass|stay")),
)
_SHAPES: dict[frozenset[str], dict[str, Any]] = {
    frozenset({"overseer"}): {"overseer": LOCATIONS},
    frozenset({"place", "sec"}): {"place": MACHINE_ORDER, "sec": int},
    frozenset({"command"}): {"command": COMMAND_ORDER},
    frozenset({"clerk"}): {"clerk": LOCATIONS},
    frozenset({"advisor"}): {"advisor": ADVISOR_ORDER},
    frozenset({"recruit"}): {"recruit": SOLDIER_ORDER},
    frozenset({"attack", "sec"}): {"attack": SOLDIER_ORDER, "sec": int},
    frozenset({"attack", "sec", "row", "spot"}): {
        "attack": SOLDIER_ORDER,
        "sec": int,
        "row": int,
        "spot": int,
    },
    frozenset({"build", "sec"}): {"build": ("level", *MACHINE_ORDER), "sec": int},
    frozenset({"tower"}): {"tower": int},
    frozenset({"shoot", "sec", "row"}): {"shoot": MACHINE_ORDER, "sec": int, "row": int},
    frozenset({"wound", "row", "spot"}): {"wound": int, "row": int, "spot": int},
    frozenset({"drop", "spot"}): {"drop": int, "spot": int},
    frozenset({"save"}): {"save": int},
    frozenset({"done"}): {"done": True},
}


def _valid_shape(move: Any) -> bool:
    if not isinstance(move, dict):
        return False
    spec = _SHAPES.get(frozenset(move))
    if spec is None:
        return False
    for key, want in spec.items():
        value = move[key]
        if want is int:
            if type(value) is not int:
                return False
        elif want is True:
            if value is not True:
                return False
        elif not isinstance(value, str) or value not in want:
            return False
    return True


def _format(move: Move) -> str:
    if not _valid_shape(move):
        raise IllegalMove(f"That is not a move of The Great Wall. {MOVE_HINT}")
    if "overseer" in move:
        return f"overseer {move['overseer']}"
    if "place" in move:
        return f"place {move['place']} {_sec(move['sec'])}"
    if "command" in move:
        return f"command {move['command']}"
    if "clerk" in move:
        return f"clerk {move['clerk']}"
    if "advisor" in move:
        return f"advisor {move['advisor']}"
    if "recruit" in move:
        return f"recruit {move['recruit']}"
    if "attack" in move:
        if "row" in move:
            return f"attack {move['attack']} {_sec(move['sec'])}{move['row']}-{move['spot']}"
        return f"attack {move['attack']} {_sec(move['sec'])}"
    if "build" in move:
        return f"build {move['build']} {_sec(move['sec'])}"
    if "tower" in move:
        return f"tower {move['tower']}"
    if "shoot" in move:
        return f"shoot {move['shoot']} {_sec(move['sec'])}{move['row']}"
    if "wound" in move:
        return f"wound {_sec(move['wound'])}{move['row']}-{move['spot']}"
    if "drop" in move:
        return f"drop {_sec(move['drop'])}1-{move['spot']}"
    if "save" in move:
        return f"save {move['save']}"
    return "done"


def _section_of(letter: str) -> int:
    return SECTIONS.lower().index(letter)


def _parse(text: str) -> Move:
    if not isinstance(text, str):
        raise IllegalMove(MOVE_HINT)
    cleaned = " ".join(text.strip().lower().split())
    for kind, regex in _PATTERNS:
        m = regex.fullmatch(cleaned)
        if m is None:
            continue
        if kind in ("overseer", "command", "clerk", "advisor", "recruit"):
            move: Move = {kind: m[1]}
        elif kind in ("place", "build"):
            move = {kind: m[1], "sec": _section_of(m[2])}
        elif kind == "attack_at":
            move = {"attack": m[1], "sec": _section_of(m[2]), "row": int(m[3]), "spot": int(m[4])}
        elif kind == "attack":
            move = {"attack": m[1], "sec": _section_of(m[2])}
        elif kind == "tower":
            move = {"tower": int(m[1])}
        elif kind == "shoot":
            move = {"shoot": m[1], "sec": _section_of(m[2]), "row": int(m[3])}
        elif kind == "wound":
            move = {"wound": _section_of(m[1]), "row": int(m[2]), "spot": int(m[3])}
        elif kind == "drop":
            if m[2] != "1":
                raise IllegalMove("A Bomber drops onto the first row only (drop B1-5).")
            move = {"drop": _section_of(m[1]), "spot": int(m[3])}
        elif kind == "save":
            move = {"save": int(m[1])}
        else:
            move = {"done": True}
        if not _valid_shape(move):
            break
        return move
    raise IllegalMove(f"{text.strip()!r} is not a move of The Great Wall. {MOVE_HINT}")


def _clicks(move: Move) -> list[str]:
    if not _valid_shape(move):
        raise IllegalMove(f"That is not a move of The Great Wall. {MOVE_HINT}")
    if "overseer" in move:
        return [f"loc-{move['overseer']}"]
    if "place" in move:
        return [f"wm-{move['place']}", f"sec-{move['sec']}"]
    if "command" in move:
        return [f"cmd-{move['command']}"]
    if "clerk" in move:
        return [f"loc-{move['clerk']}"]
    if "advisor" in move:
        return [f"adv-{move['advisor']}"]
    if "recruit" in move:
        return [f"sup-{move['recruit']}"]
    if "attack" in move:
        t, s = move["attack"], move["sec"]
        if SOLDIERS[t]["kind"] == "fire":
            path = [f"res-{t}", f"fire-{s}"]
            if "row" in move:
                path.append(f"spot-{s}-{move['row']}-{move['spot']}")
            return path
        if SOLDIERS[t]["kind"] == "tank":
            return [f"res-{t}", f"tank-{s}-{move['spot']}"]
        return [f"res-{t}", f"spot-{s}-{move['row']}-{move['spot']}"]
    if "build" in move:
        first = "build-level" if move["build"] == "level" else f"wm-{move['build']}"
        return [first, f"sec-{move['sec']}"]
    if "tower" in move:
        return [f"tower-{move['tower']}"]
    if "shoot" in move:
        return [f"mach-{move['sec']}-{move['shoot']}", f"horde-{move['sec']}-{move['row']}"]
    if "wound" in move:
        return [f"spot-{move['wound']}-{move['row']}-{move['spot']}"]
    if "drop" in move:
        return [f"spot-{move['drop']}-1-{move['spot']}"]
    if "save" in move:
        return [f"save-{move['save']}"]
    return ["done"]


# --- the engine ----------------------------------------------------------------------------------------
class GreatWall(Engine):
    slug = "greatwall"
    title = "The Great Wall: Black Powder"
    min_players = 1
    max_players = 4
    notation_example = (
        "command tribute, clerk barracks, attack spearman B1-5, build cannon A, shoot cannon A1"
    )
    # Read off the shapes the notation checks against: a name from a list, a number, or True.
    move_fields: ClassVar[dict[str, type | tuple[type, ...]]] = {
        key: bool if want is True else int if want is int else str
        for spec in _SHAPES.values()
        for key, want in spec.items()
    }
    malformed_move = f"That is not a move of The Great Wall. {MOVE_HINT}"
    options: ClassVar[dict[str, Option]] = {
        "clans": Option(
            label="Clans",
            choices={
                "random": "Dealt at random from the five clans",
                "fixed": "In seat order: Monkey, Panda, Dragon, Snake",
            },
            default="random",
        ),
    }
    svg = svg_module

    # --- setup -------------------------------------------------------------------------------------
    def new_state(self, *, seats: int, options: dict[str, str], rng: random.Random) -> State:
        resolved = self.resolve_options(options, seats=seats)
        neutral = seats if seats <= 2 else None
        generals = seats + (1 if neutral is not None else 0)
        clans = list(CLANS[:seats])
        if resolved["clans"] == "random":
            pool = list(CLANS)
            rng.shuffle(pool)
            clans = pool[:seats]
        tea = list(range(generals))
        rng.shuffle(tea)
        removed = sorted(rng.sample(BASE_HORDES, REMOVED_TYPES), key=HORDE_ORDER.index)
        deck = [k for k in HORDE_ORDER if k not in removed or k in NEW_HORDES for _ in range(HORDE_COPIES)]
        advisors = sorted((a for a in ADVISOR_ORDER for _ in range(ADVISOR_COPIES)), key=ADVISOR_ORDER.index)
        hands = []
        for _ in range(seats):
            hand = [advisors.pop(rng.randrange(len(advisors))) for _ in range(ADVISOR_HAND)]
            hands.append(sorted(hand, key=ADVISOR_ORDER.index))
        supply = []
        for s in range(seats):
            mine = {t: 0 for t in SOLDIER_ORDER}
            mine.update(START_SUPPLY)
            mine[CLAN_SPECIAL[clans[s]]] = SPECIAL_COUNT
            supply.append(mine)
        state: State = {
            "seats": seats,
            "options": resolved,
            "neutral": neutral,
            "generals": generals,
            "clans": clans,
            "year": 1,
            "season": "setup",
            "tea": tea,
            "honor": [0] * seats,
            "shame": [0] * seats,
            "shame_pool": SHAME_BASE + SHAME_PER_SEAT * seats,
            "res": [dict(START_RESOURCES) for _ in range(seats)],
            "overseers": [dict.fromkeys(LOCATIONS, 0) for _ in range(seats)],
            "supply": supply,
            "reserve": [{t: START_RESERVE.get(t, 0) for t in SOLDIER_ORDER} for _ in range(seats)],
            "sections": [
                {"level": START_LEVEL, "rows": [None] * ROWS, "firing": [], "rest": [], "machines": []}
                for _ in range(3)
            ],
            "towers": [None] * TOWERS,
            "horde_deck": sorted(deck, key=HORDE_ORDER.index),
            "horde_aside": [k for k in removed for _ in range(HORDE_COPIES)],
            "horde_discard": [],
            "rocket_deck": list(ROCKET_ORDER),
            "rocket_discard": [],
            "advisor_deck": advisors,
            "hands": hands,
            "advisor_discard": [],
            "committed": [None] * generals,
            "resting": [None] * generals,
            "revealed": None,
            "placed": [[] for _ in LOCATIONS],
            "snakes": SNAKE_TOKENS,
            "pointer": 0,
            "agenda": [],
            "pending": None,
            "chance": None,
            "eliminated": [],
            "ending": None,
            "end_reason": None,
            "stats": {"raids": 0, "breaches": 0, "defeated": 0, "shots": 0},
            "last": None,
        }
        _draw_hordes(state, seats + 1, rng, [])
        setup: list[dict[str, Any]] = [
            {"task": "overseer", "seat": g, "cap": 1}
            for g in state["tea"]
            if g != neutral
            for _ in range(SETUP_UPGRADES)
        ]
        order = [state["tea"][i % generals] for i in range(len(MACHINE_ORDER))]
        setup += [{"task": "place", "seat": g} for g in order]
        _start_year(state)
        state["agenda"][:0] = setup
        _run(state, [])
        return state

    # --- whose input is awaited ---------------------------------------------------------------------
    def actors(self, state: State) -> frozenset[int]:
        if state["season"] == "over" or state["chance"] is not None:
            return frozenset()
        p = state["pending"]
        if p is None:
            return frozenset()
        if p["kind"] == "command":
            return frozenset(s for s in _active(state) if state["committed"][s] is None)
        return frozenset({p["seat"]})

    def chance_pending(self, state: State) -> bool:
        return state["season"] != "over" and state["chance"] is not None

    def resolve_chance(self, state: State, rng: random.Random) -> tuple[State, list[Event]]:
        if not self.chance_pending(state):
            raise IllegalMove("No chance step is pending.")
        new = plain_copy(state)
        chance = new["chance"]
        new["chance"] = None
        events: list[Event] = []
        kind = chance["kind"]
        if kind == "spring":
            events.append(
                Event(kind="season", text=f"Spring of year {new['year']}: the Horde deck is drawn.")
            )
            _draw_hordes(new, new["seats"] + 1, rng, events)
        elif kind == "neutral_command":
            g = new["neutral"]
            card = rng.choice(_available_commands(new, g))
            new["committed"][g] = card
            events.append(
                Event(kind="commit", text=f"{NEUTRAL_NAME} chooses a Command card.", data={"seat": g})
            )
            _reveal(new, events)
        elif kind == "counsel":
            for seat in chance["seats"]:
                deck = new["advisor_deck"]
                if not deck and new["advisor_discard"]:
                    deck.extend(new["advisor_discard"])
                    deck.sort(key=ADVISOR_ORDER.index)
                    new["advisor_discard"] = []
                    events.append(
                        Event(kind="shuffle", text="The Advisor discards are shuffled into a new deck.")
                    )
                if not deck:
                    events.append(
                        Event(kind="advisor", text="The Advisor deck is empty.", data={"seat": seat})
                    )
                    continue
                card = deck.pop(rng.randrange(len(deck)))
                new["hands"][seat] = sorted([*new["hands"][seat], card], key=ADVISOR_ORDER.index)
                events.append(
                    Event(
                        kind="advisor",
                        text=f"{_who(new, seat)} draws an Advisor card (Counsel).",
                        data={"seat": seat},
                    )
                )
                events.append(
                    Event(
                        kind="advisor",
                        text=f"You draw the Advisor {ADVISORS[card]['name']}.",
                        data={"seat": seat, "advisor": card},
                        visible_to=frozenset({seat}),
                    )
                )
        elif kind == "neutral_clerk":
            g = new["neutral"]
            loc = rng.choice(_open_locations(new))
            new["placed"][LOCATIONS.index(loc)].append(g)
            events.append(
                Event(
                    kind="clerk",
                    text=f"{NEUTRAL_NAME}'s clerk takes a place at the {LOCATION_NAMES[loc]}.",
                    data={"seat": g, "location": loc},
                )
            )
        elif kind == "neutral_place":
            g = new["neutral"]
            options = _options(new, {"kind": "place", "seat": g})
            move = rng.choice(options)
            _place_machine(new, g, move["place"], move["sec"], events)
        elif kind == "rocket":
            deck = new["rocket_deck"]
            if not deck:
                deck.extend(new["rocket_discard"])
                deck.sort(key=ROCKET_ORDER.index)
                new["rocket_discard"] = []
                events.append(Event(kind="shuffle", text="The Rocket discards are shuffled into a new deck."))
            card = deck.pop(rng.randrange(len(deck)))
            new["rocket_discard"].append(card)
            spots = ROCKET_CARDS[card]
            events.append(
                Event(
                    kind="rocket",
                    text=f"Rocket card {card!r}: wounds on {', '.join(map(str, spots)) or 'nothing'}.",
                    data={"card": card, "spots": list(spots)},
                )
            )
            _machine_wounds(new, chance["seat"], "rocket", chance["sec"], chance["row"], spots, events)
        _run(new, events)
        return new, events

    # --- moves --------------------------------------------------------------------------------------
    def legal_moves(self, state: State, seat: int) -> list[Move]:
        if seat not in self.actors(state):
            return []
        p = state["pending"]
        if p["kind"] == "command":
            return [{"command": c} for c in _available_commands(state, seat)]
        return _options(state, p)

    def apply(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        return self._apply(state, seat, move, listed=False)

    def apply_listed(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        return self._apply(state, seat, move, listed=True)

    def _apply(self, state: State, seat: int, move: Move, *, listed: bool) -> tuple[State, list[Event]]:
        """``listed``: the move comes from ``legal_moves`` (see Engine.apply_listed), so it is not looked
        up among them again."""
        if state["season"] == "over":
            raise IllegalMove("The game is over.")
        if not isinstance(seat, int) or not 0 <= seat < state["seats"] or seat in state["eliminated"]:
            raise IllegalMove("You are not playing in this game.")
        if self.chance_pending(state):
            raise IllegalMove("Wait: the game is drawing cards.")
        if not _valid_shape(move):
            raise IllegalMove(f"That is not a move of The Great Wall. {MOVE_HINT}")
        if seat not in self.actors(state):
            raise IllegalMove("It is not your turn to act.")
        if not listed and move not in self.legal_moves(state, seat):
            raise IllegalMove(self._why_not(state, seat, move))
        new = plain_copy(state)
        text = _format(move)
        if "command" in move:
            new["committed"][seat] = move["command"]
            events = [
                Event(
                    kind="commit",
                    text=f"{_who(new, seat)} has committed a Command card.",
                    data={"seat": seat},
                ),
                Event(
                    kind="commit",
                    text=f"You chose {COMMAND_NAMES[move['command']]}.",
                    data={"seat": seat, "command": move["command"]},
                    visible_to=frozenset({seat}),
                ),
            ]
            if not self.actors(new):
                if new["neutral"] is not None:
                    new["chance"] = {"kind": "neutral_command"}
                else:
                    _reveal(new, events)
            _run(new, events)
            return new, events
        events = [
            Event(kind="move", text=f"{_who(new, seat)}: {text}.", data={"seat": seat, "move": dict(move)})
        ]
        new["last"] = {"seat": seat, "text": text}
        _do(new, seat, move, events)
        _run(new, events)
        return new, events

    def _why_not(self, state: State, seat: int, move: Move) -> str:
        kind = state["pending"]["kind"]
        wanted = {
            "command": "Choose one of your Command cards.",
            "overseer": "Choose a location whose Overseer you upgrade.",
            "place": "Place one of the War Machine types not yet placed on a section with room.",
            "clerk": "Send a clerk to a location with room, or play an Advisor first.",
            "barracks": "Recruit a soldier you can pay for, attack with one from your reserve, or done.",
            "builders": "Build a wall level or a War Machine you can pay for, or done.",
            "fortify": "Choose a section below the top level for the Fortifier's wall level.",
            "tower": "Choose a Tower beside the section (not one your own Spearman holds), or done.",
            "shoot": "Choose a War Machine you can shoot and its target row, or done.",
            "fire": "Choose a free vital spot on a Horde card of this section.",
            "bomber": "Drop the Bomber on a free vital spot of the first-row card, or done to stay.",
            "save": "Choose how many Killed soldiers to save (one chi each).",
        }[kind]
        return f"That move is not possible now. {wanted}"

    def move_visible_to(self, state: State, seat: int, move: Move) -> frozenset[int] | None:
        # A Command card is sealed until every general has chosen: the log shows it to its owner only.
        if isinstance(move, dict) and "command" in move:
            return frozenset({seat})
        return None

    def parse_move(self, text: str) -> Move:
        return _parse(text)

    def format_move(self, move: Move) -> str:
        return _format(move)

    def click_path(self, move: Move) -> list[str]:
        return _clicks(move)

    def move_preview(self, view: View, seat: int, move: Move) -> list[Preview]:
        path = _clicks(move)
        last = path[-1]
        if "attack" in move:
            soldier = SOLDIER_NAMES.get(move["attack"], move["attack"])
            if SOLDIERS[move["attack"]]["kind"] == "fire":
                # The archer takes a Firing spot and wounds the vital spot it aims at, if any.
                shapes: list[Preview] = [{"draw": "label", "at": path[1], "text": soldier}]
                if len(path) > 2:
                    shapes += [{"draw": "arrow", "from": path[1], "to": last}, {"draw": "ring", "at": last}]
                return shapes
            return [{"draw": "label", "at": last, "text": soldier}]
        if "shoot" in move:
            return [{"draw": "arrow", "from": path[0], "to": last}, {"draw": "ring", "at": last}]
        if "wound" in move:
            return [{"draw": "ring", "at": last}, {"draw": "label", "at": last, "text": "Wound"}]
        if "build" in move:
            what = MACHINE_NAMES.get(move["build"], "Wall level")
            return [{"draw": "label", "at": last, "text": f"Build: {what}"}]
        # Command cards, Advisors, saving and declining are buttons beside the picture, not places on it.
        words = {
            "overseer": "Overseer +1",
            "place": MACHINE_NAMES.get(str(move.get("place")), ""),
            "clerk": "Clerk",
            "recruit": "Recruit",
            "tower": SOLDIER_NAMES["spearman"],
            "drop": SOLDIER_NAMES["bomber"],
        }
        for key, text in words.items():
            if key in move and text:
                return [{"draw": "label", "at": last, "text": text}]
        return []

    # --- what may be known --------------------------------------------------------------------------
    def public_view(self, state: State) -> View:
        p = state["pending"]
        pending = None
        if p is not None:
            pending = {k: (list(v) if isinstance(v, list) else v) for k, v in p.items()}
        sections = []
        for s, sec in enumerate(state["sections"]):
            rows = []
            for card in sec["rows"]:
                if card is None:
                    rows.append(None)
                    continue
                info = HORDES[card["type"]]
                rows.append(
                    {
                        "type": card["type"],
                        "name": info["name"],
                        "power": info["power"],
                        "honor": info["honor"],
                        "spots": list(info["spots"]),
                        "rewards": {str(k): v for k, v in sorted(info["rewards"].items())},
                        "cover": [None if m is None else list(m) for m in card["cover"]],
                    }
                )
            sections.append(
                {
                    "name": SECTIONS[s],
                    "level": sec["level"],
                    "rows": rows,
                    "firing": [list(f) for f in sec["firing"]],
                    "rest": [list(f) for f in sec["rest"]],
                    "machines": list(sec["machines"]),
                    "power": _power(sec),
                    "defence": _defence(sec),
                }
            )
        over = state["season"] == "over"
        return {
            "game": self.slug,
            "seats": state["seats"],
            "options": dict(state["options"]),
            "neutral": state["neutral"],
            "generals": state["generals"],
            "clans": list(state["clans"]),
            "year": state["year"],
            "years": YEARS,
            "season": state["season"],
            "tea": list(state["tea"]),
            "honor": list(state["honor"]),
            "shame": list(state["shame"]),
            "shame_pool": state["shame_pool"],
            "scores": [
                -1 if over and state["end_reason"] == "wall_fell" else _score(state, s)
                for s in range(state["seats"])
            ],
            "resources": [dict(r) for r in state["res"]],
            "overseers": [dict(o) for o in state["overseers"]],
            "supply": [dict(x) for x in state["supply"]],
            "reserve": [dict(x) for x in state["reserve"]],
            "sections": sections,
            "towers": list(state["towers"]),
            "machines_left": {m: _machines_left(state, m) for m in MACHINE_ORDER},
            "horde_deck_size": len(state["horde_deck"]),
            "horde_discard": list(state["horde_discard"]),
            "rocket_deck_size": len(state["rocket_deck"]),
            "rocket_discard": list(state["rocket_discard"]),
            "advisor_deck_size": len(state["advisor_deck"]),
            "advisor_discard": list(state["advisor_discard"]),
            "hand_sizes": [len(h) for h in state["hands"]],
            "committed": [c is not None for c in state["committed"]],
            "resting": list(state["resting"]),
            "revealed": None if state["revealed"] is None else list(state["revealed"]),
            "placed": {loc: list(state["placed"][i]) for i, loc in enumerate(LOCATIONS)},
            # The same for the side panel, in board order with names.
            "locations": [
                {"key": loc, "name": LOCATION_NAMES[loc], "clerks": list(state["placed"][i])}
                for i, loc in enumerate(LOCATIONS)
            ],
            "players": [
                {
                    "seat": s,
                    "clan": CLAN_NAMES[state["clans"][s]],
                    "honor": state["honor"][s],
                    "shame": state["shame"][s],
                    "resources": [state["res"][s][r] for r in RESOURCES],
                    "overseers": [
                        {"name": LOCATION_NAMES[loc], "level": state["overseers"][s][loc]}
                        for loc in LOCATIONS
                    ],
                    "soldiers": [
                        {
                            "name": SOLDIER_NAMES[t],
                            "reserve": state["reserve"][s][t],
                            "supply": state["supply"][s][t],
                        }
                        for t in _soldier_types(state, s)
                    ],
                    "advisors": len(state["hands"][s]),
                    "committed": state["committed"][s] is not None,
                    "resting": None if state["resting"][s] is None else COMMAND_NAMES[state["resting"][s]],
                }
                for s in range(state["seats"])
            ],
            "tea_names": [_who(state, g) for g in state["tea"]],
            "capacity": _capacity(state),
            "snakes": state["snakes"],
            "pending": pending,
            "to_act": sorted(self.actors(state)),
            "chance": None if state["chance"] is None else state["chance"]["kind"],
            "eliminated": list(state["eliminated"]),
            "end_reason": state["end_reason"],
            "end_text": None if state["end_reason"] is None else END_TEXT[state["end_reason"]],
            "last": None if state["last"] is None else dict(state["last"]),
        }

    def prompt(self, view: View, seat: int | None) -> str:
        if view["season"] == "over":
            return "The game is over."
        chance = view["chance"]
        if chance is not None:
            what = _CHANCE_PROMPT.get(chance, "The game is drawing cards")
            if chance.startswith("neutral_"):
                what = f"{NEUTRAL_NAME} is taking its turn"
            return f"{what}; play goes on in a moment."
        pending, awaited = view["pending"], view["to_act"]
        if pending is None or not awaited:
            return "The year goes on in a moment."
        kind = pending["kind"]
        if kind == "command":
            if seat in awaited:
                return "Choose your Command card, sealed: the others see only that you have chosen one."
            waiting = waiting_for(awaited, "to choose their Command cards")
            if seat is not None and view["committed"][seat]:
                return f"Your Command card is chosen; {waiting[0].lower()}{waiting[1:]}"
            return waiting
        if seat not in awaited:
            return waiting_for(awaited, _WAITING.get(kind, "to decide"))
        optional = "" if pending.get("must", True) else ", or decline"
        if kind == "clerk":
            advisor = "" if pending["advised"] else ", or first play an Advisor"
            return f"Send a clerk to a location with room{advisor}."
        if kind == "barracks":
            orders = pending["orders"]
            return (
                "Barracks: recruit a soldier, attack with one from your reserve, or stop "
                f"({orders} order{'s' if orders != 1 else ''} left)."
            )
        if kind == "tower":
            return f"Put a Spearman from your reserve in a Tower beside the section{optional}."
        if kind == "shoot":
            return f"Choose a War Machine to shoot and the row it aims at{optional}."
        if kind == "fire":
            soldier, section = SOLDIER_NAMES.get(pending["type"], "soldier"), SECTIONS[pending["sec"]]
            return f"Your {soldier} fires: choose a free vital spot on a Horde card before section {section}."
        return _ASK.get(kind, "Make your choice.")

    def private_view(self, state: State, seat: int) -> dict[str, Any]:
        if not 0 <= seat < state["seats"]:
            return {}
        available = _available_commands(state, seat)
        chosen = state["committed"][seat]
        return {
            "seat": seat,
            "hand": list(state["hands"][seat]),
            "command": chosen,
            "commands": available,
            # For the side panel: the cards with their names and texts.
            "hand_cards": [
                {
                    "key": a,
                    "name": ADVISORS[a]["name"],
                    "text": ADVISORS[a]["text"],
                    "set": ADVISORS[a]["set"],
                }
                for a in state["hands"][seat]
            ],
            "command_cards": [
                {
                    "key": c,
                    "name": COMMAND_NAMES[c],
                    "strength": COMMANDS[c],
                    "text": COMMAND_TEXT[c],
                    "available": c in available,
                    "chosen": c == chosen,
                }
                for c in COMMAND_ORDER
            ],
        }

    def sample_hidden(self, state: State, seat: int | None, rng: random.Random) -> State:
        # Hidden from ``seat``: the other hands, the Advisor deck, the others' sealed Command cards and
        # which Horde cards are in the deck or set aside. Sizes are public and stay.
        new = plain_copy(state)
        others = [s for s in range(state["seats"]) if s != seat]
        pool = sorted(
            [*new["advisor_deck"], *(a for o in others for a in new["hands"][o])], key=ADVISOR_ORDER.index
        )
        rng.shuffle(pool)
        for other in others:
            size = len(new["hands"][other])
            new["hands"][other] = sorted(pool[:size], key=ADVISOR_ORDER.index)
            pool = pool[size:]
        new["advisor_deck"] = sorted(pool, key=ADVISOR_ORDER.index)
        for other in others:
            if new["committed"][other] is not None:
                new["committed"][other] = rng.choice(_available_commands(new, other))
        hordes = sorted([*new["horde_deck"], *new["horde_aside"]], key=HORDE_ORDER.index)
        rng.shuffle(hordes)
        size = len(new["horde_deck"])
        new["horde_deck"] = sorted(hordes[:size], key=HORDE_ORDER.index)
        new["horde_aside"] = sorted(hordes[size:], key=HORDE_ORDER.index)
        return new

    def outcome(self, state: State) -> list[float] | None:
        if state["season"] != "over":
            return None
        if state["end_reason"] == "wall_fell":
            return [-1.0] * state["seats"]
        return [float(_score(state, s)) for s in range(state["seats"])]

    def evaluate(self, state: State) -> list[float]:
        """The search bots' estimate of the final scores (a heuristic of ours, not a rule): Honor less
        the Shame penalty so far, plus what the position is worth before the end: resources and ready
        soldiers (Honor to come), Overseers while years remain, the Horde cards a seat leads on (their
        Honor in proportion to how covered they are), Archers and Tower Spearmen (Honor each Winter),
        and the Shame a seat risks where a section is about to be breached without its soldiers."""
        if state["season"] == "over":
            return list(self.outcome(state) or [])
        seats = state["seats"]
        later = max(0.0, (YEARS - state["year"]) / YEARS)  # the share of the game still to come
        values = [float(state["honor"][s] - SHAME_PENALTY * state["shame"][s]) for s in range(seats)]
        for s in range(seats):
            res = state["res"][s]
            values[s] += 0.3 * (res["wood"] + res["stone"] + res["gold"]) + 0.4 * res["chi"]
            values[s] += 0.6 * sum(state["reserve"][s].values())
            values[s] += 0.5 * later * sum(state["overseers"][s].values())
            values[s] += 0.3 * len(state["hands"][s])
        for t, owner in enumerate(state["towers"]):
            if owner is not None:
                values[owner] += 1.0 * len(TOWER_SECTIONS[t])
        for section in state["sections"]:
            cards = [c for c in section["rows"] if c is not None]
            present: set[int] = set()
            for owner, kind in section["firing"]:
                present.add(owner)
                values[owner] += 0.8 + (0.6 if kind == "archer" else 0.0)
            for card in cards:
                counts = [0] * seats
                for owner, _ in _soldiers_on(card):
                    counts[owner] += 1
                    present.add(owner)
                    values[owner] += 0.5  # its reward is banked; the soldier comes back after
                spots = _spots(card)
                done = sum(1 for k in spots if card["cover"][k - 1] is not None) / len(spots)
                top = max(counts)
                if top:
                    leaders = [o for o in range(seats) if counts[o] == top]
                    for o in leaders:
                        values[o] += HORDES[card["type"]]["honor"] * done * done / len(leaders)
            if cards and _power(section) > _defence(section):
                # A breach costs everybody 1 Honor and a Shame token to each seat with nobody there.
                for o in range(seats):
                    values[o] -= 1.0 + (0.0 if o in present else 1.5)
        # A total defeat levels every score: the nearer it is, the less a lead is worth. Rams in the
        # first row and Trebuchets each destroy a level a Winter; the wall falls when none is left.
        levels = sum(sec["level"] for sec in state["sections"])
        siege = 0.0
        for sec in state["sections"]:
            for r, c in enumerate(sec["rows"]):
                if c is not None and c["type"] in ("ram", "trebuchet"):
                    siege += 1.0 if (r == 0 or c["type"] == "trebuchet") else 0.5
        fall = 1.0 / (1.0 + math.exp(1.5 * (levels - siege) - 0.5))
        return [(1.0 - fall) * v - fall for v in values]

    def balance_stats(self, state: State) -> dict[str, float]:
        reason = state["end_reason"]
        stats = state["stats"]
        return {
            "wall_fell": float(reason == "wall_fell"),
            "shame_ran_out": float(reason == "shame_ran_out"),
            "wall_completed": float(reason == "wall_completed"),
            "time_ran_out": float(reason == "time_ran_out"),
            "player_left": float(reason in ("left", "alone")),
            "years": float(state["year"]),
            "raids": float(stats["raids"]),
            "breaches": float(stats["breaches"]),
            "hordes_defeated": float(stats["defeated"]),
            "wall_levels": float(sum(sec["level"] for sec in state["sections"])),
        }

    def skip(self, state: State, seat: int, rng: random.Random) -> tuple[State, list[Event]]:
        """Out of time: decline where the decision may be declined, otherwise a random legal move."""
        if seat not in self.actors(state):
            raise IllegalMove("It is not that seat's turn.")
        moves = self.legal_moves(state, seat)
        move = {"done": True} if {"done": True} in moves else rng.choice(moves)
        new, events = self.apply(state, seat, move)
        note = Event(kind="skip", text=f"{_who(state, seat)} is out of time.", data={"seat": seat})
        return new, [note, *events]

    def eliminate(self, state: State, seat: int) -> tuple[State, list[Event]]:
        if state["season"] == "over":
            raise IllegalMove("The game is over.")
        if not 0 <= seat < state["seats"] or seat in state["eliminated"]:
            raise IllegalMove("That seat is not in the game.")
        new = plain_copy(state)
        new["eliminated"] = sorted([*new["eliminated"], seat])
        # Its Advisors go back into the deck unseen; its soldiers and Spearmen stay where they stand.
        new["advisor_deck"] = sorted([*new["advisor_deck"], *new["hands"][seat]], key=ADVISOR_ORDER.index)
        new["hands"][seat] = []
        new["committed"][seat] = None
        events = [
            Event(
                kind="eliminate",
                text=f"{_who(new, seat)} leaves the game; its Advisors are shuffled away.",
                data={"seat": seat},
            )
        ]
        active = _active(new)
        if not active:
            _end(new, "left", events)
            return new, events
        if new["seats"] >= 2 and len(active) == 1:
            _end(new, "alone", events)
            return new, events
        p = new["pending"]
        if new["chance"] is None and p is not None:
            if p["kind"] == "command":
                if not self.actors(new):
                    if new["neutral"] is not None:
                        new["chance"] = {"kind": "neutral_command"}
                    else:
                        _reveal(new, events)
            elif p["seat"] == seat:
                new["pending"] = None
                task = {"task": p["kind"], **{k: v for k, v in p.items() if k != "kind"}}
                _ask(new, task, events)
        _run(new, events)
        return new, events
