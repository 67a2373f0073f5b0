"""Walls and Stairways (seed 002): lure heroes through a moving maze, up your own stairway.

The rules digest with every decision and the notation is ``seeds/stairways.md``; the geometry (walls,
wall moves, lines of sight) is in ``board.py`` and the starting layouts in ``layouts.py``.

How a turn runs inside the state: the player to move plays cards, bids for wonders and gives them away
until "end". Everything the rules then do by themselves (tokens running to treasure, the draw, monster
movement, the crowded variant's new walls, passing the turn) is a list of tasks, ``agenda``, worked off
by ``_run``. A task that needs a decision stops with ``pending`` set; the decision is a move of the seat
named there, and ``_run`` goes on from it. The draw is the one task that needs chance.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any, ClassVar

from games.engines.base import Engine, Event, IllegalMove, Move, Option, State, View
from games.engines.palette import SEAT_NAMES
from games.engines.stairways import svg as svg_module
from games.engines.stairways.board import (
    EAST_WEST,
    EDGE_BIT,
    EDGE_ORDER,
    EDGES,
    INDEX,
    NEIGHBOURS,
    NORTH_SOUTH,
    SLIDES_OFF,
    SQUARE_SET,
    SQUARES,
    WALL_MOVES,
    canonical_wall,
    distances,
    in_sight,
    route,
    walls_mask,
)
from games.engines.stairways.layouts import (
    PIECE_SETS,
    PRESETS,
    layout_validate,
    normalised,
    preset,
)

SUITS = "HCDS"
SUIT_SET = frozenset(SUITS)  # a string test would let "" and "HC" through
SUIT_WORDS = {"H": "hearts", "C": "clubs", "D": "diamonds", "S": "spades"}
SUIT_ONE = {"H": "heart", "C": "club", "D": "diamond", "S": "spade"}
VALUES = tuple(range(1, 11))
CARDS: tuple[str, ...] = tuple(f"{s}{v}" for s in SUITS for v in VALUES)
CARD_ORDER: dict[str, int] = {c: i for i, c in enumerate(CARDS)}
COPIES = 2  # two decks
HAND_SIZE = 8
DRAW = 4
CROWD_POOL = 20  # walls waiting beside the board in "It's Getting Crowded"
STALL_ROUNDS = 10  # full rounds with no hero dying or escaping end the game (see the digest)
GIANT_START = 10  # the mortal giant's jewels and swords at the start
POINTS_HERO, POINTS_JEWEL, POINTS_SWORD = 5, 2, 1

CHOICES = ("treasure", "attack", "rats", "respawn")  # decisions of the player whose turn it is

MOVE_HINT = (
    "Moves: H5 c3e-c4e (a heart or club moves a wall), D7 e4 / S3 e4 (a jewel or sword), bid S7, "
    "claim S, block S9, yield, give H to blue, choose e4, wall c3n, end."
)


def _who(seat: int) -> str:
    return SEAT_NAMES[seat % len(SEAT_NAMES)].capitalize()


def _value(card: str) -> int:
    return int(card[1:])


def _sorted_cards(cards: list[str]) -> list[str]:
    return sorted(cards, key=CARD_ORDER.__getitem__)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _treasure_text(pile: list[int]) -> str:
    return f"the treasure there ({_loot(*pile)}) is discarded"


def _loot(jewels: int, swords: int) -> str:
    if not jewels and not swords:
        return "nothing"
    parts = [_plural(jewels, "jewel")] if jewels else []
    if swords:
        parts.append(_plural(swords, "sword"))
    return " and ".join(parts)


# --- state helpers -------------------------------------------------------------------------------------
def _copy(state: State) -> State:
    """A copy deep enough that changing it never touches ``state``."""
    new = dict(state)
    new["options"] = dict(state["options"])
    new["turns"] = list(state["turns"])
    new["walls"] = list(state["walls"])
    new["stairways"] = list(state["stairways"])
    new["heroes"] = [dict(h) for h in state["heroes"]]
    new["giant"] = None if state["giant"] is None else dict(state["giant"])
    new["rats"] = [dict(r) for r in state["rats"]]
    new["treasure"] = {sq: list(t) for sq, t in state["treasure"].items()}
    new["wonders"] = dict(state["wonders"])
    new["hands"] = [list(h) for h in state["hands"]]
    new["pile"] = list(state["pile"])
    new["discards"] = list(state["discards"])
    bid = state["bid"]
    new["bid"] = None if bid is None else {**bid, "cards": list(bid["cards"]), "block": list(bid["block"])}
    new["agenda"] = list(state["agenda"])
    pending = state["pending"]
    new["pending"] = None if pending is None else {**pending, "options": list(pending["options"])}
    wave = state["wave"]
    new["wave"] = (
        None
        if wave is None
        else {"assign": dict(wave["assign"]), "ask": [[t, list(o)] for t, o in wave["ask"]]}
    )
    plan = state["rat_plan"]
    new["rat_plan"] = (
        None
        if plan is None
        else {"steps": [list(s) for s in plan["steps"]], "ask": [[r, list(o)] for r, o in plan["ask"]]}
    )
    new["crowd"] = None if state["crowd"] is None else list(state["crowd"])
    new["respawn"] = list(state["respawn"])
    new["eliminated"] = list(state["eliminated"])
    new["last"] = None if state["last"] is None else dict(state["last"])
    return new


def _active(state: State) -> list[int]:
    return [s for s in range(state["seats"]) if s not in state["eliminated"]]


def _mask(state: State) -> int:
    return walls_mask(state["walls"])


def _true(state: State) -> bool:
    return state["options"]["los"] == "true"


def _on_floor(state: State) -> list[int]:
    return [i for i, h in enumerate(state["heroes"]) if h["fate"] == "floor"]


def _giant_square(state: State) -> str | None:
    giant = state["giant"]
    return giant["square"] if giant is not None and giant["alive"] else None


def _rats_at(state: State, sq: str) -> list[int]:
    return [i for i, r in enumerate(state["rats"]) if r["square"] == sq]


def _heroes_at(state: State, sq: str) -> list[int]:
    return [i for i, h in enumerate(state["heroes"]) if h["square"] == sq and h["fate"] == "floor"]


def _hero_name(i: int) -> str:
    return f"Hero {i + 1}"


def _token_square(state: State, token: str) -> str:
    if token == "giant":
        return state["giant"]["square"]
    return state["heroes"][int(token) - 1]["square"]


def _token_name(token: str) -> str:
    return "The giant" if token == "giant" else _hero_name(int(token) - 1)


def _escaped_count(state: State) -> int:
    return sum(1 for h in state["heroes"] if h["fate"] == "escaped")


def _scores(state: State) -> list[int]:
    scores = [0] * state["seats"]
    for hero in state["heroes"]:
        if hero["fate"] == "escaped":
            scores[hero["stairway"]] += (
                POINTS_HERO + POINTS_JEWEL * hero["jewels"] + POINTS_SWORD * hero["swords"]
            )
    return scores


def _first_turn(state: State) -> bool:
    return state["turns"][state["current"]] == 1


def _awaiting(state: State) -> tuple[str, int | None]:
    """What the game waits for: (kind, seat). Kinds: over, chance, a pending decision's kind, response,
    bidding, play."""
    if state["phase"] == "over":
        return "over", None
    pending = state["pending"]
    if pending is not None:
        return pending["kind"], pending["seat"]
    if state["agenda"]:
        return "chance", None  # _run only stops on an open agenda for the draw
    bid = state["bid"]
    if bid is not None:
        if bid["stage"] == "response":
            return "response", bid["owner"]
        return "bidding", bid["seat"]
    return "play", state["current"]


# --- the rules' own steps -----------------------------------------------------------------------------
def _kill_hero(state: State, i: int, why: str, events: list[Event]) -> None:
    hero = state["heroes"][i]
    carried = _loot(hero["jewels"], hero["swords"])
    where = hero["square"]
    hero.update(fate="dead", square=None, jewels=0, swords=0)
    lost = "" if carried == "nothing" else f"; what it carried ({carried}) is lost"
    events.append(
        Event(kind="death", text=f"{_hero_name(i)} dies on {where} ({why}){lost}.", data={"hero": i + 1})
    )


def _rat_fight(state: State, sq: str, fighters: list[int], events: list[Event]) -> None:
    """The heroes on ``sq`` fight every rat there together: swords against rats."""
    groups = _rats_at(state, sq)
    if not groups or not fighters:
        return
    rats = sum(state["rats"][g]["size"] for g in groups)
    heroes = state["heroes"]
    swords = sum(heroes[i]["swords"] for i in fighters)
    names = " and ".join(_hero_name(i) for i in fighters)
    if swords >= rats:
        for g in groups:
            state["rats"][g]["square"] = None
        text = f"{names} kill{'s' if len(fighters) == 1 else ''} {_plural(rats, 'rat')} on {sq}"
        if state["options"]["super_rats"] == "yes":
            # Wounds: one sword per rat, taken from whoever carries the most.
            for _ in range(rats):
                top = max(fighters, key=lambda i: (heroes[i]["swords"], -i))
                heroes[top]["swords"] -= 1
            state["respawn"].extend(groups)
            text += f" and lose {_plural(rats, 'sword')} to wounds"
        events.append(Event(kind="fight", text=text + ".", data={"square": sq, "won": True}))
        return
    events.append(
        Event(
            kind="fight",
            text=f"{names} fight{'s' if len(fighters) == 1 else ''} {_plural(rats, 'rat')} on {sq} "
            f"with {_plural(swords, 'sword')} and lose{'s' if len(fighters) == 1 else ''}.",
            data={"square": sq, "won": False},
        )
    )
    for i in fighters:
        _kill_hero(state, i, "killed by rats", events)


def _giant_fight(state: State, sq: str, events: list[Event]) -> None:
    """A hero sharing a square with the giant dies, unless the giant is mortal and out-sworded."""
    giant = state["giant"]
    if giant is None or not giant["alive"] or giant["square"] != sq:
        return
    here = _heroes_at(state, sq)
    if not here:
        return
    heroes = state["heroes"]
    if state["options"]["mortal_giant"] != "yes":
        for i in here:
            _kill_hero(state, i, "crushed by the giant", events)
        return
    if any(heroes[i]["swords"] > giant["swords"] for i in here):
        loot = (giant["jewels"], giant["swords"])
        giant.update(alive=False, square=None, jewels=0, swords=0)
        if len(here) == 1:
            heroes[here[0]]["jewels"] += loot[0]
            heroes[here[0]]["swords"] += loot[1]
            gain = f"; {_hero_name(here[0])} takes its {_loot(*loot)}"
        else:
            gain = f"; what it carried ({_loot(*loot)}) is lost among several victors"
        events.append(Event(kind="fight", text=f"The giant is killed on {sq}{gain}.", data={"square": sq}))
        return
    gained = [0, 0]
    for i in here:
        gained[0] += heroes[i]["jewels"]
        gained[1] += heroes[i]["swords"]
        heroes[i]["jewels"] = heroes[i]["swords"] = 0
        _kill_hero(state, i, "beaten by the giant", events)
    giant["jewels"] += gained[0]
    giant["swords"] += gained[1]
    if any(gained):
        events.append(Event(kind="fight", text=f"The giant takes {_loot(*gained)}.", data={"square": sq}))


def _resolve_squares(state: State, squares: list[str], events: list[Event]) -> None:
    """Whatever meets on these squares: the giant first, then rats, then a hero on a stairway escapes."""
    stairways = state["stairways"]
    for sq in squares:
        _giant_fight(state, sq, events)
        here = _heroes_at(state, sq)
        if here and _rats_at(state, sq):
            _rat_fight(state, sq, here, events)
        if sq in stairways:
            owner = stairways.index(sq)
            for i in _heroes_at(state, sq):
                hero = state["heroes"][i]
                hero.update(fate="escaped", square=None, stairway=owner)
                events.append(
                    Event(
                        kind="escape",
                        text=f"{_hero_name(i)} escapes up {_who(owner)}'s stairway with "
                        f"{_loot(hero['jewels'], hero['swords'])}.",
                        data={"hero": i + 1, "seat": owner},
                    )
                )


def _push(state: State, swept: str, to: str, events: list[Event]) -> None:
    moved = []
    for i in _heroes_at(state, swept):
        state["heroes"][i]["square"] = to
        moved.append(_hero_name(i))
    giant = state["giant"]
    if giant is not None and giant["alive"] and giant["square"] == swept:
        giant["square"] = to
        moved.append("the giant")
    for g in _rats_at(state, swept):
        state["rats"][g]["square"] = to
        moved.append(f"rat group {g + 1}")
    if moved:
        events.append(
            Event(
                kind="push",
                text=f"The wall sweeps {swept}: {', '.join(moved)} pushed to {to}.",
                data={"from": swept, "to": to},
            )
        )
        _resolve_squares(state, [to], events)


def _sightings(state: State) -> list[tuple[str, list[str]]]:
    """Every token with treasure in sight and the treasure squares it sees (its own square included)."""
    treasure = sorted(state["treasure"], key=INDEX.__getitem__)
    if not treasure:
        return []
    walls = _mask(state)
    true_los = _true(state)
    tokens = [(str(i + 1), state["heroes"][i]["square"]) for i in _on_floor(state)]
    giant = _giant_square(state)
    if giant is not None:
        tokens.append(("giant", giant))
    out = []
    for token, sq in tokens:
        seen = [t for t in treasure if in_sight(sq, t, walls, true_los)]
        if seen:
            out.append((token, seen))
    return out


def _take(state: State, token: str, sq: str, pile: list[int], events: list[Event]) -> None:
    jewels, swords = pile
    if token == "giant":
        giant = state["giant"]
        if state["options"]["mortal_giant"] == "yes":
            giant["jewels"] += jewels
            giant["swords"] += swords
            text = f"The giant takes {_loot(jewels, swords)} on {sq}."
        else:
            text = f"The giant reaches {sq}; {_treasure_text(pile)}."
    else:
        hero = state["heroes"][int(token) - 1]
        hero["jewels"] += jewels
        hero["swords"] += swords
        text = f"{_token_name(token)} picks up {_loot(jewels, swords)} on {sq}."
    events.append(Event(kind="treasure", text=text, data={"token": token, "square": sq}))


def _execute_wave(state: State, assign: dict[str, str], events: list[Event]) -> None:
    """Every token with a target runs to it at once; heroes fight the rats on their way, then the
    treasure goes to a lone arrival or is discarded when several arrive."""
    walls = _mask(state)
    true_los = _true(state)
    heroes = state["heroes"]
    starts = {token: _token_square(state, token) for token in assign}
    ways: dict[str, list[str]] = {}
    for token, target in assign.items():
        if token != "giant":
            passed = route(starts[token], target, walls, true_los)
            ways[token] = passed + ([target] if target != starts[token] else [])
    for token in sorted(assign, key=lambda t: (t == "giant", t)):
        if starts[token] != assign[token]:
            events.append(
                Event(
                    kind="move",
                    text=f"{_token_name(token)} runs from {starts[token]} to the treasure on "
                    f"{assign[token]}.",
                    data={"token": token, "from": starts[token], "to": assign[token]},
                )
            )
    # Rats on the way, in the order the heroes reach them; all heroes passing the same rats fight them
    # together.
    first: dict[str, int] = {}
    for way in ways.values():
        for step, sq in enumerate(way):
            if _rats_at(state, sq):
                first[sq] = min(first.get(sq, step), step)
    for sq in sorted(first, key=lambda s: (first[s], INDEX[s])):
        fighters = [
            int(t) - 1
            for t, way in sorted(ways.items())
            if sq in way and heroes[int(t) - 1]["fate"] == "floor"
        ]
        if fighters and _rats_at(state, sq):
            for i in fighters:
                heroes[i]["square"] = sq
            _rat_fight(state, sq, fighters, events)
    arrived: dict[str, list[str]] = {}
    for token, target in sorted(assign.items()):
        if token == "giant":
            state["giant"]["square"] = target
        elif heroes[int(token) - 1]["fate"] == "floor":
            heroes[int(token) - 1]["square"] = target
        else:
            continue
        arrived.setdefault(target, []).append(token)
    for sq in sorted(arrived, key=INDEX.__getitem__):
        pile = state["treasure"].pop(sq)
        tokens = arrived[sq]
        if len(tokens) == 1:
            _take(state, tokens[0], sq, pile, events)
        else:
            names = " and ".join(_token_name(t) for t in tokens)
            events.append(
                Event(
                    kind="treasure",
                    text=f"{names} reach {sq} together; {_treasure_text(pile)}.",
                    data={"square": sq},
                )
            )
    _resolve_squares(state, sorted(arrived, key=INDEX.__getitem__), events)


def _giant_targets(state: State) -> list[str]:
    giant = _giant_square(state)
    if giant is None:
        return []
    walls = _mask(state)
    true_los = _true(state)
    squares = {state["heroes"][i]["square"] for i in _on_floor(state)}
    return sorted((sq for sq in squares if in_sight(giant, sq, walls, true_los)), key=INDEX.__getitem__)


def _giant_attack(state: State, sq: str, events: list[Event]) -> None:
    start = state["giant"]["square"]
    state["giant"]["square"] = sq
    events.append(
        Event(kind="giant", text=f"The giant sees a hero and charges from {start} to {sq}.", data={"to": sq})
    )
    _resolve_squares(state, [sq], events)


def _rat_options(state: State) -> list[tuple[int, list[str]]]:
    """For each rat group that moves: the first steps of its shortest ways to the one nearest hero."""
    hero_squares = sorted({state["heroes"][i]["square"] for i in _on_floor(state)}, key=INDEX.__getitem__)
    if not hero_squares:
        return []
    walls = _mask(state)
    maps = {sq: distances(sq, walls) for sq in hero_squares}
    walled = set(state["walls"])
    out = []
    for g, group in enumerate(state["rats"]):
        at = group["square"]
        if at is None:
            continue
        near = [(d[at], sq) for sq, d in maps.items() if at in d]
        if not near:
            continue  # no hero to smell
        best = min(d for d, _ in near)
        targets = [sq for d, sq in near if d == best]
        if len(targets) > 1 or best == 0:
            continue  # torn between two heroes: the rats stay
        dist = maps[targets[0]]
        steps = [nb for edge, nb in NEIGHBOURS[at] if edge not in walled and dist.get(nb) == best - 1]
        out.append((g, sorted(steps, key=INDEX.__getitem__)))
    return out


def _move_rats(state: State, steps: list[list[Any]], events: list[Event]) -> None:
    landed = []
    for g, sq in steps:
        start = state["rats"][g]["square"]
        state["rats"][g]["square"] = sq
        landed.append(sq)
        events.append(
            Event(
                kind="rats",
                text=f"Rat group {g + 1} ({state['rats'][g]['size']}) creeps from {start} to {sq}.",
                data={"rats": g + 1, "from": start, "to": sq},
            )
        )
    _resolve_squares(state, sorted(set(landed), key=INDEX.__getitem__), events)


def _empty_edges(state: State) -> list[str]:
    taken = set(state["walls"])
    return [e for e in EDGES if e not in taken]


def _pending_options(state: State) -> list[str]:
    pending = state["pending"]
    if pending["kind"] == "crowd":
        return _empty_edges(state)
    return pending["options"]


def _choose(state: State, option: str, events: list[Event]) -> None:
    """Carry out the pending decision with ``option`` (already checked to be one of its options)."""
    pending = state["pending"]
    kind = pending["kind"]
    seat = pending["seat"]
    state["pending"] = None
    if kind == "treasure":
        wave = state["wave"]
        token, _ = wave["ask"].pop(0)
        wave["assign"][token] = option
        events.append(
            Event(
                kind="choose",
                text=f"{_who(seat)} sends {'the giant' if token == 'giant' else _token_name(token)} "
                f"towards {option}.",
                data={"seat": seat, "token": token, "square": option},
            )
        )
    elif kind == "attack":
        state["agenda"].pop(0)
        state["agenda"].insert(0, "settle")
        _giant_attack(state, option, events)
    elif kind == "rats":
        plan = state["rat_plan"]
        g, _ = plan["ask"].pop(0)
        plan["steps"].append([g, option])
    elif kind == "respawn":
        g = state["respawn"].pop(0)
        state["rats"][g]["square"] = option
        events.append(
            Event(
                kind="rats",
                text=f"Rat group {g + 1} comes back on the stairway {option}.",
                data={"rats": g + 1, "to": option},
            )
        )
    elif kind == "crowd":
        state["crowd"].pop(0)
        state["walls"] = sorted([*state["walls"], option], key=EDGE_ORDER.__getitem__)
        state["pool"] -= 1
        events.append(
            Event(
                kind="wall",
                text=f"{_who(seat)} adds a wall on {option} "
                f"({_plural(state['pool'], 'wall')} left beside the board).",
                data={"seat": seat, "wall": option},
            )
        )


def _drop_bid(state: State) -> None:
    """An unfinished bid or block goes to the discards (the cards were shown, so nothing is hidden)."""
    bid = state["bid"]
    if bid is not None:
        state["discards"] = _sorted_cards(state["discards"] + bid["cards"] + bid["block"])
        state["bid"] = None


def _end(state: State, reason: str, events: list[Event]) -> None:
    state["phase"] = "over"
    state["end_reason"] = reason
    state["pending"] = None
    state["agenda"] = []
    state["wave"] = state["rat_plan"] = state["crowd"] = None
    state["respawn"] = []
    _drop_bid(state)
    scores = _scores(state)
    listed = ", ".join(f"{_who(s)} {p}" for s, p in enumerate(scores))
    events.append(
        Event(
            kind="end",
            text=f"Game over: {reason}. Scores: {listed}.",
            data={"reason": reason, "scores": scores},
        )
    )


def _run(state: State, events: list[Event]) -> None:
    """Work off the agenda until a decision or the draw is needed, or the turn is back to its player."""
    while True:
        if state["phase"] == "over":
            return
        if not _on_floor(state):
            _end(state, "every hero has escaped or died", events)
            return
        if len(_active(state)) < 2:
            _end(state, "only one player is left", events)
            return
        pending = state["pending"]
        if pending is not None:
            if pending["seat"] not in state["eliminated"]:
                return
            # The seat has left: its decisions are taken for it, the first option each time.
            if pending["kind"] == "crowd":
                state["pending"] = None
                state["crowd"].pop(0)
            else:
                _choose(state, _pending_options(state)[0], events)
            continue
        if state["respawn"]:
            g = state["respawn"][0]
            options = sorted(set(state["stairways"]), key=INDEX.__getitem__)
            state["pending"] = {
                "kind": "respawn",
                "seat": state["current"],
                "rats": g + 1,
                "options": options,
            }
            continue
        agenda = state["agenda"]
        if not agenda:
            if state["current"] in state["eliminated"]:
                # The player to move has left: its turn ends as if it had said "end", without the draw.
                _drop_bid(state)
                agenda.extend(["giant", "rats", "crowd", "next"])
                continue
            return
        task = agenda[0]
        if task == "draw":
            return
        if task == "settle":
            _task_settle(state, events)
        elif task == "giant":
            targets = _giant_targets(state)
            if not targets:
                agenda.pop(0)
            elif len(targets) == 1:
                agenda[0] = "settle"
                _giant_attack(state, targets[0], events)
            else:
                state["pending"] = {"kind": "attack", "seat": state["current"], "options": targets}
        elif task == "rats":
            _task_rats(state, events)
        elif task == "crowd":
            _task_crowd(state)
        elif task == "next":
            agenda.pop(0)
            _next_turn(state, events)
        else:  # pragma: no cover - the agenda only holds the tasks above
            raise AssertionError(task)


def _task_settle(state: State, events: list[Event]) -> None:
    if state["wave"] is None:
        sightings = _sightings(state)
        if not sightings:
            state["agenda"].pop(0)
            return
        state["wave"] = {
            "assign": {token: seen[0] for token, seen in sightings if len(seen) == 1},
            "ask": [[token, seen] for token, seen in sightings if len(seen) > 1],
        }
    wave = state["wave"]
    if wave["ask"]:
        token, options = wave["ask"][0]
        state["pending"] = {
            "kind": "treasure",
            "seat": state["current"],
            "token": token,
            "from": _token_square(state, token),
            "options": list(options),
        }
        return
    state["wave"] = None
    _execute_wave(state, wave["assign"], events)  # "settle" stays: the runners may see more treasure


def _task_rats(state: State, events: list[Event]) -> None:
    if state["rat_plan"] is None:
        options = _rat_options(state)
        state["rat_plan"] = {
            "steps": [[g, steps[0]] for g, steps in options if len(steps) == 1],
            "ask": [[g, steps] for g, steps in options if len(steps) > 1],
        }
    plan = state["rat_plan"]
    if plan["ask"]:
        g, options = plan["ask"][0]
        state["pending"] = {
            "kind": "rats",
            "seat": state["current"],
            "rats": g + 1,
            "from": state["rats"][g]["square"],
            "options": list(options),
        }
        return
    state["rat_plan"] = None
    state["agenda"].pop(0)
    _move_rats(state, sorted(plan["steps"]), events)


def _task_crowd(state: State) -> None:
    if state["crowd"] is None:
        if state["options"]["crowded"] != "yes":
            state["agenda"].pop(0)
            return
        seats = state["seats"]
        state["crowd"] = [
            s for k in range(seats) if (s := (state["current"] + k) % seats) not in state["eliminated"]
        ]
    if not state["crowd"] or state["pool"] <= 0 or not _empty_edges(state):
        state["crowd"] = None
        state["agenda"].pop(0)
        return
    state["pending"] = {"kind": "crowd", "seat": state["crowd"][0], "options": []}


def _next_turn(state: State, events: list[Event]) -> None:
    floor = len(_on_floor(state))
    state["quiet"] = 0 if floor < state["floor_at_start"] else state["quiet"] + 1
    active = _active(state)
    if state["quiet"] >= STALL_ROUNDS * len(active):
        _end(state, f"{STALL_ROUNDS} full rounds passed with no hero escaping or dying", events)
        return
    seats = state["seats"]
    nxt = next(
        s for k in range(1, seats + 1) if (s := (state["current"] + k) % seats) not in state["eliminated"]
    )
    state["current"] = nxt
    state["turns"][nxt] += 1
    state["floor_at_start"] = floor
    events.append(Event(kind="turn", text=f"{_who(nxt)}'s turn.", data={"seat": nxt}))


def _draw(state: State, seat: int, count: int, rng: random.Random, events: list[Event]) -> None:
    drawn: list[str] = []
    pile = state["pile"]
    for _ in range(count):
        if not pile:
            if not state["discards"]:
                break
            pile.extend(state["discards"])
            state["discards"] = []
            pile.sort(key=CARD_ORDER.__getitem__)
            events.append(
                Event(
                    kind="shuffle",
                    text=f"The draw pile is empty: {_plural(len(pile), 'discarded card')} are shuffled "
                    "into a new one.",
                    data={"cards": len(pile)},
                )
            )
        drawn.append(pile.pop(rng.randrange(len(pile))))
    state["hands"][seat] = _sorted_cards(state["hands"][seat] + drawn)
    events.append(
        Event(
            kind="draw",
            text=f"{_who(seat)} draws {_plural(len(drawn), 'card')}.",
            data={"seat": seat, "count": len(drawn)},
        )
    )
    if drawn:
        events.append(
            Event(
                kind="draw",
                text=f"You draw {', '.join(_sorted_cards(drawn))}.",
                data={"seat": seat, "cards": _sorted_cards(drawn)},
                visible_to=frozenset({seat}),
            )
        )


# --- moves: shapes and notation -----------------------------------------------------------------------
def _card(text: Any) -> str:
    if not isinstance(text, str) or text not in CARD_ORDER:
        raise IllegalMove(f"{text!r} is not a card; cards are a suit H, C, D or S and a value 1 to 10.")
    return text


def _square(text: Any) -> str:
    if not isinstance(text, str) or text not in SQUARE_SET:
        raise IllegalMove(f"{text!r} is not a square; squares run from a1 to h8.")
    return text


def _edge(text: Any) -> str:
    edge = canonical_wall(text) if isinstance(text, str) else None
    if edge is None or edge != text:
        raise IllegalMove(f"{text!r} is not a wall between two squares (such as c3e or c3n).")
    return edge


def _shape(move: Any) -> str:
    """The kind of a well-formed move dict; anything else is refused with a reason."""
    if isinstance(move, dict):
        keys = set(move)
        if keys == {"play", "wall", "to"}:
            _card(move["play"])
            _edge(move["wall"])
            if move["to"] != "off":
                _edge(move["to"])
            return "wall_move"
        if keys == {"play", "square"}:
            _card(move["play"])
            _square(move["square"])
            return "treasure_move"
        if keys == {"bid"}:
            _card(move["bid"])
            return "bid"
        if keys == {"claim"} and move["claim"] in SUIT_SET:
            return "claim"
        if keys == {"block"}:
            _card(move["block"])
            return "block"
        if keys == {"yield"} and move["yield"] is True:
            return "yield"
        if keys == {"give", "to"} and move["give"] in SUIT_SET and type(move["to"]) is int:
            return "give"
        if keys == {"choose"}:
            _square(move["choose"])
            return "choose"
        if keys == {"place"}:
            _edge(move["place"])
            return "place"
        if keys == {"end"} and move["end"] is True:
            return "end"
    raise IllegalMove(f"That is not a Walls and Stairways move. {MOVE_HINT}")


_SUIT_WORDS = (
    (r"hearts?|♥|♡", "h"),
    (r"clubs?|♣|♧", "c"),
    (r"diamonds?|♦|♢", "d"),
    (r"spades?|♠|♤", "s"),
)
_CARD = r"([hcds])\s*(10|[1-9]|a)"
_SQ = r"([a-h][1-8])"
_WALL = r"([a-h][1-8][nesw])"
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("wall_move", re.compile(rf"{_CARD}\s*[:,]?\s*{_WALL}\s*(?:-+>?|>|to)\s*({_WALL[1:-1]}|off)")),
    ("treasure_move", re.compile(rf"{_CARD}\s*(?:[:@,]|on|at)?\s*{_SQ}")),
    ("bid", re.compile(rf"bid\s*{_CARD}")),
    ("claim", re.compile(r"claim\s*([hcds])(?:\s+[\d+ ]*)?")),
    ("block", re.compile(rf"block\s*{_CARD}")),
    ("yield", re.compile(r"yield|pass")),
    ("give", re.compile(r"give\s*([hcds])\s+(?:to\s+)?(\w+)")),
    ("choose", re.compile(rf"(?:choose|go|to)?\s*{_SQ}")),
    ("place", re.compile(rf"(?:wall|place|add)\s*{_WALL}")),
    ("end", re.compile(r"end(?:\s+(?:of\s+)?turn)?|done")),
)


def _card_text(suit: str, value: str) -> str:
    return f"{suit.upper()}{1 if value == 'a' else int(value)}"


def _seat_of(word: str) -> int:
    names = [n.lower() for n in SEAT_NAMES]
    if word in names:
        return names.index(word)
    raise IllegalMove(f"{word!r} is not a seat; name it by its colour ({', '.join(names[:4])}).")


def _wall_text(text: str) -> str:
    edge = canonical_wall(text)
    if edge is None:
        raise IllegalMove(f"{text} is not a wall between two squares; the rim of the board holds no walls.")
    return edge


# --- the engine ---------------------------------------------------------------------------------------
class Stairways(Engine):
    slug = "stairways"
    title = "Walls and Stairways"
    min_players = 2
    max_players = 4
    notation_example = "H5 c3e-c4e (a heart slides a wall), D7 e4 (a jewel on e4), bid S7, claim S, end"
    options: ClassVar[dict[str, Option]] = {
        "layout": Option(label="Layout", choices=dict(PRESETS), default="classic"),
        "pieces": Option(label="Pieces", choices=dict(PIECE_SETS), default="first_game"),
        "los": Option(
            label="Line of sight",
            choices={
                "row": "Same row or column, no wall between (first game)",
                "true": "True line of sight: any straight line between the squares",
            },
            default="row",
        ),
        "mortal_giant": Option(
            label="The Mortal Giant",
            choices={"no": "No", "yes": "Yes: the giant carries treasure"},
            default="no",
        ),
        "super_rats": Option(
            label="Never-ending Super-vicious Rats",
            choices={"no": "No", "yes": "Yes: rats wound their killers and come back"},
            default="no",
        ),
        "crowded": Option(
            label="It's Getting Crowded",
            choices={"no": "No", "yes": "Yes: new walls every turn, growing draws"},
            default="no",
        ),
    }
    svg = svg_module

    # --- setup -------------------------------------------------------------------------------------
    def resolve_options(self, options: dict[str, str] | None, *, seats: int | None = None) -> dict[str, str]:
        """As the base class, plus ``layout_json``: a custom layout as JSON text, which sets the layout
        to "custom" (the presets' piece sets do not apply to it)."""
        given = dict(options or {})
        text = given.pop("layout_json", None)
        custom = given.get("layout") == "custom"
        if custom:
            given.pop("layout")
        resolved = super().resolve_options(given, seats=seats)
        if text is None:
            if custom:
                raise ValueError("Layout: a custom layout needs its JSON text in layout_json.")
            return resolved
        if not isinstance(text, str):
            raise ValueError("Layout: layout_json must be JSON text.")
        try:
            layout = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"Layout: the custom layout is not valid JSON ({exc}).") from None
        errors = layout_validate(layout, seats)
        if errors:
            raise ValueError("Layout: " + " ".join(errors))
        resolved["layout"] = "custom"
        resolved["layout_json"] = json.dumps(normalised(layout), sort_keys=True)
        return resolved

    def new_state(self, *, seats: int, options: dict[str, str], rng: random.Random) -> State:
        resolved = self.resolve_options(options, seats=seats)
        if resolved["layout"] == "custom":
            layout = json.loads(resolved["layout_json"])
        else:
            layout = preset(resolved["layout"], seats, resolved["pieces"])
        deck = [c for c in CARDS for _ in range(COPIES)]
        rng.shuffle(deck)
        hands = [_sorted_cards(deck[k * HAND_SIZE : (k + 1) * HAND_SIZE]) for k in range(seats)]
        mortal = resolved["mortal_giant"] == "yes"
        giant = None
        if layout["giant"] is not None:
            start = GIANT_START if mortal else 0
            giant = {"square": layout["giant"], "alive": True, "jewels": start, "swords": start}
        return {
            "seats": seats,
            "options": resolved,
            "layout": layout["name"],
            "phase": "play",
            "current": 0,
            "turns": [1] + [0] * (seats - 1),
            "quiet": 0,
            "floor_at_start": len(layout["heroes"]),
            "walls": sorted(layout["walls"], key=EDGE_ORDER.__getitem__),
            "pool": CROWD_POOL if resolved["crowded"] == "yes" else 0,
            "stairways": list(layout["stairways"]),
            "heroes": [
                {"square": sq, "fate": "floor", "jewels": 0, "swords": 0, "stairway": None}
                for sq in layout["heroes"]
            ],
            "giant": giant,
            "rats": [{"square": r["square"], "size": r["size"]} for r in layout["rats"]],
            "treasure": {},
            "wonders": dict.fromkeys(SUITS),
            "hands": hands,
            "pile": _sorted_cards(deck[seats * HAND_SIZE :]),
            "discards": [],
            "bid": None,
            "agenda": [],
            "pending": None,
            "wave": None,
            "rat_plan": None,
            "crowd": None,
            "respawn": [],
            "eliminated": [],
            "last": None,
            "end_reason": None,
        }

    # --- whose input is awaited ---------------------------------------------------------------------
    def actors(self, state: State) -> frozenset[int]:
        kind, seat = _awaiting(state)
        if seat is None or kind in ("over", "chance"):
            return frozenset()
        return frozenset({seat})

    def chance_pending(self, state: State) -> bool:
        return _awaiting(state)[0] == "chance"

    def resolve_chance(self, state: State, rng: random.Random) -> tuple[State, list[Event]]:
        if not self.chance_pending(state):
            raise IllegalMove("No chance step is pending.")
        new = _copy(state)
        new["agenda"].pop(0)
        events: list[Event] = []
        seat = new["current"]
        if seat not in new["eliminated"]:
            count = new["turns"][seat] if new["options"]["crowded"] == "yes" else DRAW
            _draw(new, seat, count, rng, events)
        _run(new, events)
        return new, events

    # --- moves --------------------------------------------------------------------------------------
    def legal_moves(self, state: State, seat: int) -> list[Move]:
        kind, who = _awaiting(state)
        if who != seat or kind in ("over", "chance"):
            return []
        hand = state["hands"][seat]
        if kind == "play":
            return self._play_moves(state, seat)
        if kind == "bidding":
            suit = state["bid"]["suit"]
            cards = sorted({c for c in hand if c[0] == suit}, key=CARD_ORDER.__getitem__)
            return [*({"bid": c} for c in cards), {"claim": suit}]
        if kind == "response":
            bid = state["bid"]
            suit = bid["suit"]
            need = sum(map(_value, bid["cards"])) - sum(map(_value, bid["block"]))
            mine = [c for c in hand if c[0] == suit]
            moves: list[Move] = []
            if sum(map(_value, mine)) >= need:  # only a block that can still succeed is offered
                moves = [{"block": c} for c in sorted(set(mine), key=CARD_ORDER.__getitem__)]
            return [*moves, {"yield": True}]
        if kind == "crowd":
            return [{"place": e} for e in _empty_edges(state)]
        options = state["pending"]["options"]
        if _first_turn(state):
            options = [o for o in options if self._escape_free(self._after_choice(state, o), state)]
        return [{"choose": o} for o in options]

    def _play_moves(self, state: State, seat: int) -> list[Move]:
        owned = {s for s, o in state["wonders"].items() if o == seat}
        cards = sorted(set(state["hands"][seat]), key=CARD_ORDER.__getitem__)
        restricted = _first_turn(state)
        effects: dict[str, list[dict[str, str]]] = {}
        moves: list[Move] = []
        for card in cards:
            suit = card[0]
            if suit not in owned:
                moves.append({"bid": card})
                continue
            if suit not in effects:
                effects[suit] = self._effects(state, suit, restricted)
            moves.extend({"play": card, **effect} for effect in effects[suit])
        for suit in SUITS:
            if suit in owned:
                moves.extend({"give": suit, "to": other} for other in _active(state) if other != seat)
        moves.append({"end": True})
        return moves

    def _effects(self, state: State, suit: str, restricted: bool) -> list[dict[str, str]]:
        """What a card of ``suit`` can do now: wall moves or treasure squares."""
        out: list[dict[str, str]] = []
        if suit in "HC":
            kind = NORTH_SOUTH if suit == "H" else EAST_WEST
            taken = set(state["walls"])
            crowded = state["options"]["crowded"] == "yes"
            for wall in state["walls"]:
                if wall not in kind:
                    continue
                for dest, _, _ in WALL_MOVES[wall]:
                    if dest not in taken:
                        out.append({"wall": wall, "to": dest})
                if crowded and SLIDES_OFF[wall]:
                    out.append({"wall": wall, "to": "off"})
        else:
            blocked = {state["heroes"][i]["square"] for i in _on_floor(state)}
            giant = _giant_square(state)
            if giant is not None:
                blocked.add(giant)
            out = [{"square": sq} for sq in SQUARES if sq not in blocked]
        if restricted:
            out = [e for e in out if self._effect_is_safe(state, suit, e)]
        return out

    # The first-turn rule: no move of the player whose first turn it is may put a hero on a stairway,
    # counting everything the move sets off up to the end of its chain, through the player's own
    # choices (a move is allowed when some way of making them keeps every hero off the stairways).
    def _effect_is_safe(self, state: State, suit: str, effect: dict[str, str]) -> bool:
        # Cheap screen first: only a hero that is pushed or comes to see treasure can move at all (the
        # giant running to treasure moves no hero), so without one there is nothing to simulate.
        true_los = _true(state)
        heroes = {i: state["heroes"][i]["square"] for i in _on_floor(state)}
        if suit in "DS":
            walls = _mask(state)
            targets = [effect["square"]]
        else:
            wall, dest = effect["wall"], effect["to"]
            walls = _mask(state) & ~EDGE_BIT[wall] | (0 if dest == "off" else EDGE_BIT[dest])
            for to, swept, pushed in WALL_MOVES[wall]:
                if to == dest and swept is not None:
                    for i, sq in heroes.items():
                        if sq == swept:
                            if pushed in state["stairways"]:
                                return False
                            heroes[i] = pushed
            targets = list(state["treasure"])
        if not any(in_sight(h, t, walls, true_los) for h in heroes.values() for t in targets):
            return True
        card = next(c for c in CARDS if c[0] == suit)
        after = _copy(state)
        events: list[Event] = []
        self._do_card(after, state["current"], {"play": card, **effect}, events, discard=False)
        _run(after, events)
        return self._escape_free(after, state)

    def _after_choice(self, state: State, option: str) -> State:
        after = _copy(state)
        _choose(after, option, [])
        _run(after, [])
        return after

    def _escape_free(self, after: State, before: State) -> bool:
        if _escaped_count(after) > _escaped_count(before):
            return False
        pending = after["pending"]
        if pending is None or pending["kind"] not in CHOICES:
            return True
        return any(self._escape_free(self._after_choice(after, o), before) for o in pending["options"])

    def apply(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        if state["phase"] == "over":
            raise IllegalMove("The game is over.")
        if not isinstance(seat, int) or not 0 <= seat < state["seats"] or seat in state["eliminated"]:
            raise IllegalMove("You are not playing in this game.")
        if self.chance_pending(state):
            raise IllegalMove("Wait: the cards are being drawn.")
        shape = _shape(move)
        if seat not in self.actors(state):
            raise IllegalMove("It is not your turn to act.")
        if not self._is_legal(state, seat, shape, move):
            raise IllegalMove(self._why_not(state, seat, shape, move))
        new = _copy(state)
        events: list[Event] = []
        text = self.format_move(move)
        if shape in ("wall_move", "treasure_move"):
            self._do_card(new, seat, move, events, discard=True)
        elif shape == "bid":
            self._do_bid(new, seat, move["bid"], events)
        elif shape == "claim":
            self._do_claim(new, seat, events)
        elif shape == "block":
            self._do_block(new, seat, move["block"], events)
        elif shape == "yield":
            self._do_yield(new, seat, events)
        elif shape == "give":
            new["wonders"][move["give"]] = move["to"]
            events.append(
                Event(
                    kind="wonder",
                    text=f"{_who(seat)} gives the {SUIT_ONE[move['give']]} wonder to {_who(move['to'])}.",
                    data={"seat": seat, "suit": move["give"], "to": move["to"]},
                )
            )
        elif shape in ("choose", "place"):
            _choose(new, move.get("choose", move.get("place")), events)
        else:  # end
            new["agenda"] = ["draw", "giant", "rats", "crowd", "next"]
            events.append(Event(kind="end_turn", text=f"{_who(seat)} ends the turn.", data={"seat": seat}))
        new["last"] = {"seat": seat, "text": text}
        _run(new, events)
        return new, [Event(kind="move", text=text, data={"seat": seat, "move": dict(move)}), *events]

    def _is_legal(self, state: State, seat: int, shape: str, move: Move) -> bool:
        """Whether ``legal_moves`` lists ``move``, without listing every card play to find out."""
        kind, _ = _awaiting(state)
        if kind != "play":
            return move in self.legal_moves(state, seat)
        if shape == "end":
            return True
        if shape == "bid":
            card = move["bid"]
            return card in state["hands"][seat] and state["wonders"][card[0]] != seat
        if shape == "give":
            return (
                state["wonders"][move["give"]] == seat and move["to"] in _active(state) and move["to"] != seat
            )
        if shape not in ("wall_move", "treasure_move"):
            return False
        card = move["play"]
        suit = card[0]
        if card not in state["hands"][seat] or state["wonders"][suit] != seat:
            return False
        effect = {k: v for k, v in move.items() if k != "play"}
        if suit in "HC":
            wall, dest = move.get("wall"), move.get("to")
            if wall not in state["walls"] or wall not in (NORTH_SOUTH if suit == "H" else EAST_WEST):
                return False
            if dest == "off":
                ok = state["options"]["crowded"] == "yes" and SLIDES_OFF[wall]
            else:
                ok = dest not in state["walls"] and any(d == dest for d, _, _ in WALL_MOVES[wall])
        else:
            sq = move.get("square")
            ok = sq is not None and sq != _giant_square(state) and not _heroes_at(state, sq)
        return ok and (not _first_turn(state) or self._effect_is_safe(state, suit, effect))

    def _why_not(self, state: State, seat: int, shape: str, move: Move) -> str:
        kind, _ = _awaiting(state)
        if kind == "response" and shape not in ("block", "yield"):
            return "Answer the claim first: block it with cards of its suit, or yield."
        if kind == "bidding" and shape not in ("bid", "claim"):
            return f"Finish your bid first: add cards of its suit, or claim {state['bid']['suit']}."
        if kind in CHOICES and shape != "choose":
            return f"Choose a square first: {', '.join(state['pending']['options'])}."
        if kind == "crowd" and shape != "place":
            return "Add your new wall first (wall c3n)."
        if shape in ("wall_move", "treasure_move", "bid", "block"):
            card = move.get("play") or move.get("bid") or move.get("block")
            if card not in state["hands"][seat]:
                return f"You do not hold {card}."
            if shape in ("wall_move", "treasure_move") and state["wonders"][card[0]] != seat:
                return f"You need the {SUIT_ONE[card[0]]} wonder to play {SUIT_WORDS[card[0]]}."
            if shape == "wall_move":
                wall = move["wall"]
                if wall not in state["walls"]:
                    return f"There is no wall on {wall}."
                if (card[0] == "H") != (wall in NORTH_SOUTH):
                    return "Hearts move north-south walls (…e); clubs move east-west walls (…n)."
                return f"The wall on {wall} cannot move to {move['to']}."
            if shape == "treasure_move" and card[0] in "HC":
                return "Hearts and clubs move walls; diamonds and spades place treasure."
            if _first_turn(state) and shape in ("wall_move", "treasure_move"):
                return "No hero may reach a stairway during its player's first turn."
            if shape == "treasure_move":
                return f"Treasure may not be placed on {move['square']}: a hero or the giant stands there."
            if shape == "bid" and state["wonders"][card[0]] == seat:
                return "You already own that wonder."
        if kind in CHOICES and _first_turn(state):
            return "No hero may reach a stairway during its player's first turn."
        return f"That move is not possible now. {MOVE_HINT}"

    def _do_card(self, state: State, seat: int, move: Move, events: list[Event], *, discard: bool) -> None:
        card = move["play"]
        if discard:
            state["hands"][seat].remove(card)
            state["discards"] = _sorted_cards([*state["discards"], card])
        if "square" in move:
            sq = move["square"]
            pile = state["treasure"].setdefault(sq, [0, 0])
            pile[0 if card[0] == "D" else 1] += 1
            what = "a jewel" if card[0] == "D" else "a sword"
            events.append(
                Event(kind="place", text=f"{_who(seat)} plays {card}: {what} on {sq}.", data={"square": sq})
            )
        else:
            wall, dest = move["wall"], move["to"]
            walls = [w for w in state["walls"] if w != wall]
            if dest == "off":
                state["pool"] += 1
                text = f"{_who(seat)} plays {card}: the wall on {wall} slides off the board."
            else:
                walls.append(dest)
                text = f"{_who(seat)} plays {card}: the wall on {wall} moves to {dest}."
            state["walls"] = sorted(walls, key=EDGE_ORDER.__getitem__)
            events.append(Event(kind="wall", text=text, data={"wall": wall, "to": dest}))
            for to, swept, pushed in WALL_MOVES[wall]:
                if to == dest and swept is not None and pushed is not None:
                    _push(state, swept, pushed, events)
        state["agenda"] = ["settle"]

    def _do_bid(self, state: State, seat: int, card: str, events: list[Event]) -> None:
        state["hands"][seat].remove(card)
        bid = state["bid"]
        if bid is None:
            bid = state["bid"] = {
                "seat": seat,
                "suit": card[0],
                "cards": [],
                "stage": "bidding",
                "owner": None,
                "block": [],
            }
        bid["cards"] = _sorted_cards([*bid["cards"], card])
        total = sum(map(_value, bid["cards"]))
        events.append(
            Event(
                kind="bid",
                text=f"{_who(seat)} bids {card} for the {SUIT_ONE[card[0]]} wonder (bid now {total}).",
                data={"seat": seat, "card": card, "total": total},
            )
        )

    def _do_claim(self, state: State, seat: int, events: list[Event]) -> None:
        bid = state["bid"]
        suit = bid["suit"]
        total = sum(map(_value, bid["cards"]))
        owner = state["wonders"][suit]
        if owner is None:
            state["wonders"][suit] = seat
            state["discards"] = _sorted_cards(state["discards"] + bid["cards"])
            state["bid"] = None
            events.append(
                Event(
                    kind="wonder",
                    text=f"{_who(seat)} claims the unowned {SUIT_ONE[suit]} wonder with {total}.",
                    data={"seat": seat, "suit": suit, "total": total},
                )
            )
            return
        bid["stage"] = "response"
        bid["owner"] = owner
        events.append(
            Event(
                kind="claim",
                text=f"{_who(seat)} bids {total} for {_who(owner)}'s {SUIT_ONE[suit]} wonder; "
                f"{_who(owner)} may block with {SUIT_WORDS[suit]} worth {total} or more.",
                data={"seat": seat, "suit": suit, "total": total, "owner": owner},
            )
        )

    def _do_block(self, state: State, seat: int, card: str, events: list[Event]) -> None:
        state["hands"][seat].remove(card)
        bid = state["bid"]
        bid["block"] = _sorted_cards([*bid["block"], card])
        total = sum(map(_value, bid["cards"]))
        blocked = sum(map(_value, bid["block"]))
        if blocked < total:
            events.append(
                Event(
                    kind="block",
                    text=f"{_who(seat)} answers with {card} ({blocked} of {total}).",
                    data={"seat": seat, "card": card},
                )
            )
            return
        state["discards"] = _sorted_cards(state["discards"] + bid["cards"] + bid["block"])
        state["bid"] = None
        events.append(
            Event(
                kind="block",
                text=f"{_who(seat)} adds {card} and blocks with {blocked} against {total}: "
                f"the {SUIT_ONE[bid['suit']]} wonder stays.",
                data={"seat": seat, "card": card, "blocked": True},
            )
        )

    def _do_yield(self, state: State, seat: int, events: list[Event]) -> None:
        bid = state["bid"]
        state["wonders"][bid["suit"]] = bid["seat"]
        state["discards"] = _sorted_cards(state["discards"] + bid["cards"] + bid["block"])
        state["bid"] = None
        events.append(
            Event(
                kind="wonder",
                text=f"{_who(seat)} yields: {_who(bid['seat'])} takes the {SUIT_ONE[bid['suit']]} wonder.",
                data={"seat": bid["seat"], "suit": bid["suit"]},
            )
        )

    # --- notation -----------------------------------------------------------------------------------
    def parse_move(self, text: str) -> Move:
        if not isinstance(text, str):
            raise IllegalMove(MOVE_HINT)
        cleaned = " ".join(text.strip().lower().split())
        for pattern, letter in _SUIT_WORDS:
            cleaned = re.sub(rf"(?<![a-z]){pattern}(?![a-z])", letter, cleaned)
        for kind, regex in _PATTERNS:
            m = regex.fullmatch(cleaned)
            if m is None:
                continue
            if kind == "wall_move":
                dest = m[4] if m[4] == "off" else _wall_text(m[4])
                return {"play": _card_text(m[1], m[2]), "wall": _wall_text(m[3]), "to": dest}
            if kind == "treasure_move":
                return {"play": _card_text(m[1], m[2]), "square": m[3]}
            if kind in ("bid", "block"):
                return {kind: _card_text(m[1], m[2])}
            if kind == "claim":
                return {"claim": m[1].upper()}
            if kind == "yield":
                return {"yield": True}
            if kind == "give":
                return {"give": m[1].upper(), "to": _seat_of(m[2])}
            if kind == "choose":
                return {"choose": m[1]}
            if kind == "place":
                return {"place": _wall_text(m[1])}
            return {"end": True}
        raise IllegalMove(f"{text.strip()!r} is not a move. {MOVE_HINT}")

    def format_move(self, move: Move) -> str:
        shape = _shape(move)
        if shape == "wall_move":
            return f"{move['play']} {move['wall']}-{move['to']}"
        if shape == "treasure_move":
            return f"{move['play']} {move['square']}"
        if shape in ("bid", "block"):
            return f"{shape} {move[shape]}"
        if shape == "claim":
            return f"claim {move['claim']}"
        if shape == "yield":
            return "yield"
        if shape == "give":
            return f"give {move['give']} to {SEAT_NAMES[move['to'] % len(SEAT_NAMES)]}"
        if shape == "choose":
            return f"choose {move['choose']}"
        if shape == "place":
            return f"wall {move['place']}"
        return "end"

    def click_path(self, move: Move) -> list[str]:
        shape = _shape(move)
        if shape == "wall_move":
            dest = "off" if move["to"] == "off" else f"edge-{move['to']}"
            return [f"card-{move['play']}", f"wall-{move['wall']}", dest]
        if shape == "treasure_move":
            return [f"card-{move['play']}", f"sq-{move['square']}"]
        if shape == "bid":
            return [f"wonder-{move['bid'][0]}", f"card-{move['bid']}"]
        if shape == "claim":
            return ["claim"]
        if shape == "block":
            return [f"card-{move['block']}"]
        if shape == "yield":
            return ["yield"]
        if shape == "give":
            return [f"wonder-{move['give']}", f"give-{move['to']}"]
        if shape == "choose":
            return [f"sq-{move['choose']}"]
        if shape == "place":
            return [f"edge-{move['place']}"]
        return ["end"]

    # --- what may be known --------------------------------------------------------------------------
    def public_view(self, state: State) -> View:
        kind, who = _awaiting(state)
        bid = state["bid"]
        pending = state["pending"]
        options = {k: v for k, v in state["options"].items() if k != "layout_json"}
        giant = state["giant"]
        return {
            "game": self.slug,
            "size": 8,
            "seats": state["seats"],
            "options": options,
            "layout": state["layout"],
            "phase": state["phase"],
            "awaiting": kind,
            "to_act": who,
            "current": state["current"],
            "turns": list(state["turns"]),
            "first_turn": state["phase"] != "over" and _first_turn(state),
            "quiet": state["quiet"],
            "walls": list(state["walls"]),
            "pool": state["pool"],
            "stairways": list(state["stairways"]),
            "heroes": [{"number": i + 1, **h} for i, h in enumerate(state["heroes"])],
            "giant": None if giant is None else dict(giant),
            "rats": [{"number": g + 1, **r} for g, r in enumerate(state["rats"])],
            "treasure": {
                sq: {"jewels": t[0], "swords": t[1]}
                for sq, t in sorted(state["treasure"].items(), key=lambda i: INDEX[i[0]])
            },
            "wonders": dict(state["wonders"]),
            "hand_sizes": [len(h) for h in state["hands"]],
            "pile_size": len(state["pile"]),
            "discards": list(state["discards"]),
            "bid": None
            if bid is None
            else {
                **bid,
                "cards": list(bid["cards"]),
                "block": list(bid["block"]),
                "total": sum(map(_value, bid["cards"])),
                "blocked": sum(map(_value, bid["block"])),
            },
            "pending": None if pending is None else {**pending, "options": list(pending["options"])},
            "scores": _scores(state),
            "escaped": [
                sum(1 for h in state["heroes"] if h["fate"] == "escaped" and h["stairway"] == s)
                for s in range(state["seats"])
            ],
            "eliminated": list(state["eliminated"]),
            "last": None if state["last"] is None else dict(state["last"]),
            "end_reason": state["end_reason"],
        }

    def private_view(self, state: State, seat: int) -> dict[str, Any]:
        if not 0 <= seat < state["seats"]:
            return {}
        return {"hand": list(state["hands"][seat])}

    def sample_hidden(self, state: State, seat: int | None, rng: random.Random) -> State:
        # Hidden: the other hands and the pile (its order does not exist: draws are random). Pool them
        # and deal them back with every size kept; the discards and bids are public and stay.
        new = _copy(state)
        others = [s for s in range(state["seats"]) if s != seat]
        pool = list(new["pile"])
        for other in others:
            pool += new["hands"][other]
        # Sorted first, so that for a given rng the sample depends on what the seat can see and
        # nothing else (the pool's order would otherwise echo which hand holds which card).
        pool.sort()
        rng.shuffle(pool)
        for other in others:
            size = len(state["hands"][other])
            new["hands"][other] = _sorted_cards(pool[:size])
            pool = pool[size:]
        new["pile"] = _sorted_cards(pool)
        return new

    def outcome(self, state: State) -> list[float] | None:
        if state["phase"] != "over":
            return None
        return [float(s) for s in _scores(state)]

    def skip(self, state: State, seat: int, rng: random.Random) -> tuple[State, list[Event]]:
        """A seat out of time: a response yields, a decision is made at random among its options, and a
        turn ends (an unfinished bid is lost to the discards)."""
        if seat not in self.actors(state):
            raise IllegalMove("It is not that seat's turn.")
        kind, _ = _awaiting(state)
        note = Event(
            kind="skip",
            text=f"{_who(seat)} is out of time.",
            data={"seat": seat, "reason": "timeout"},
        )
        if kind == "response":
            new, events = self.apply(state, seat, {"yield": True})
            return new, [note, *events]
        if kind in (*CHOICES, "crowd"):
            new, events = self.apply(state, seat, rng.choice(self.legal_moves(state, seat)))
            return new, [note, *events]
        new = _copy(state)
        events = [note]
        bid = new["bid"]
        if bid is not None:
            _drop_bid(new)
            events.append(
                Event(kind="bid", text=f"The unfinished bid ({', '.join(bid['cards'])}) is discarded.")
            )
        new["agenda"] = ["draw", "giant", "rats", "crowd", "next"]
        events.append(Event(kind="end_turn", text=f"{_who(seat)}'s turn ends.", data={"seat": seat}))
        _run(new, events)
        return new, events

    def eliminate(self, state: State, seat: int) -> tuple[State, list[Event]]:
        if state["phase"] == "over":
            raise IllegalMove("The game is over.")
        if not 0 <= seat < state["seats"] or seat in state["eliminated"]:
            raise IllegalMove("That seat is not in the game.")
        new = _copy(state)
        events: list[Event] = []
        gone = list(new["hands"][seat])
        new["hands"][seat] = []
        new["discards"] = _sorted_cards(new["discards"] + gone)
        new["eliminated"] = sorted([*new["eliminated"], seat])
        lost = [s for s, o in new["wonders"].items() if o == seat]
        for suit in lost:
            new["wonders"][suit] = None
        wonders = f"; its wonders ({', '.join(lost)}) are unowned again" if lost else ""
        events.append(
            Event(
                kind="eliminate",
                text=f"{_who(seat)} leaves the game: its hand is discarded{wonders}. Its stairway stays.",
                data={"seat": seat, "cards": len(gone)},
            )
        )
        bid = new["bid"]
        if bid is not None:
            if bid["seat"] == seat:
                _drop_bid(new)
            elif bid["stage"] == "response" and bid["owner"] == seat:
                self._do_yield_for_leaver(new, events)
        if new["crowd"] is not None and seat in new["crowd"]:
            pending = new["pending"]
            if pending is not None and pending["kind"] == "crowd" and pending["seat"] == seat:
                new["pending"] = None
            new["crowd"].remove(seat)
        if new["current"] == seat and new["agenda"] and new["agenda"][0] == "draw":
            new["agenda"].pop(0)
        _run(new, events)
        return new, events

    @staticmethod
    def _do_yield_for_leaver(state: State, events: list[Event]) -> None:
        bid = state["bid"]
        state["wonders"][bid["suit"]] = bid["seat"]
        state["discards"] = _sorted_cards(state["discards"] + bid["cards"] + bid["block"])
        state["bid"] = None
        events.append(
            Event(
                kind="wonder",
                text=f"{_who(bid['seat'])} takes the {SUIT_ONE[bid['suit']]} wonder: its owner has left.",
                data={"seat": bid["seat"], "suit": bid["suit"]},
            )
        )
