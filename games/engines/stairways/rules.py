"""Walls and Stairways (seed 002): lure heroes through a moving maze, up your own stairway.

The rules digest with every decision and the notation is ``seeds/stairways.md``; the geometry (walls,
wall moves, lines of sight) is in ``board.py`` and the starting layouts in ``layouts.py``.

How a turn runs inside the state: the player to move plays cards, bids for wonders and gives them away
until "end". Everything the rules then do by themselves (tokens running to treasure, the draw, monster
movement, the crowded variant's new walls, passing the turn) is a list of tasks, ``agenda``, worked off
by ``_run``. A task that needs a decision stops with ``pending`` set; the decision is a move of the seat
named there, and ``_run`` goes on from it. The draw is the one task that needs chance.

With several boards (the option ``boards``) squares and walls of boards 2 and 3 carry their number in
front (``2c3``); the state then also holds the further giants, the teleporters, ``hops`` (tokens that
have moved onto a teleporter and wait for the player to say where they go, worked off by ``_run``
before the agenda) and ``charge`` (cards set aside for a teleporter).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping
from typing import Any, ClassVar

from games.engines.base import (
    Engine,
    Event,
    IllegalMove,
    Move,
    Option,
    OptionsInvalid,
    Preview,
    State,
    TextOption,
    View,
    seat_placeholder,
    waiting_for,
)
from games.engines.palette import SEAT_NAMES
from games.engines.stairways import svg as svg_module
from games.engines.stairways.board import (
    ALL_EDGE_ORDER,
    ALL_WALL_MOVES,
    EDGE_BIT,
    EDGE_BOARD_BIT,
    MAX_BOARDS,
    NEIGHBOURS,
    RIM_SET,
    SLIDES_OFF,
    SPLIT,
    SQUARE_ORDER,
    canonical_edge,
    canonical_square,
    distances,
    edges_of,
    in_sight,
    on_board,
    route,
    split,
    squares_of,
    walls_mask,
)
from games.engines.stairways.layouts import (
    DEPTH_REASON,
    JSON_LIMIT,
    PIECE_SETS,
    PRESETS,
    board_count,
    layout_validate,
    normalised,
    preset,
)

SUITS = "HCDS"
SUIT_SET = frozenset(SUITS)  # a string test would let "" and "HC" through
TELEPORTER = "T"  # the fifth wonder of the Multiple Boards variant
WONDER_SET = frozenset((*SUITS, TELEPORTER))
SUIT_WORDS = {"H": "hearts", "C": "clubs", "D": "diamonds", "S": "spades"}
SUIT_ONE = {"H": "heart", "C": "club", "D": "diamond", "S": "spade", "T": "teleporter"}
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

# Decisions of the player whose turn it is.
CHOICES = ("treasure", "attack", "rats", "respawn", "teleport")

MOVE_HINT = (
    "Moves: H5 c3e-c4e (a heart or club moves a wall), D7 e4 / S3 e4 (a jewel or sword), bid S7, "
    "claim S, block S9, yield, give H to blue, choose e4, wall c3n, end; with several boards also "
    "squares like 2c3, bid H2 for T, charge H2, teleporter 2c3."
)


def _who(seat: int) -> str:
    return SEAT_NAMES[seat % len(SEAT_NAMES)].capitalize()


# What the seat the game waits for is to do, by the kind of step (``_awaiting``), for the others' prompt.
_WAITING = {
    "play": "to play cards or end the turn",
    "bidding": "to finish a bid for a wonder",
    "response": "to block the bid for a wonder or yield it",
    "charging": "to charge the teleporter",
    "crowd": "to add a wall",
    "treasure": "to choose where a token runs",
    "attack": "to choose which hero the giant charges",
    "rats": "to choose where the rats step",
    "respawn": "to choose where the rats come back",
    "teleport": "to choose where a token comes out of a teleporter",
}


def _view_token(view: View, token: str) -> str:
    """A token's name in a sentence, from its key and the view (as ``_token_lower`` from the state)."""
    if token.startswith("giant"):
        return f"giant {token[5:] or 1}" if "boards" in view else "the giant"
    if token.startswith("rats"):
        return f"rat group {token[4:]}"
    return f"hero {token}"


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
    if "giants" in state:  # the Multiple Boards variant's own keys
        new["giants"] = [None if g is None else dict(g) for g in state["giants"]]
        new["teleporters"] = list(state["teleporters"])
        new["hops"] = [list(h) for h in state["hops"]]
        new["charge"] = None if state["charge"] is None else list(state["charge"])
    return new


def _active(state: State) -> list[int]:
    return [s for s in range(state["seats"]) if s not in state["eliminated"]]


def _boards(state: State) -> int:
    return int(state["options"].get("boards", "1"))


def _multi(state: State) -> bool:
    """The Multiple Boards and Teleporters variant (a state stored before it existed has no boards)."""
    return "giants" in state


def _masks(state: State) -> list[int]:
    """The walls of each board as a bitmask over its interior edges."""
    boards = _boards(state)
    if boards == 1:
        return [walls_mask(state["walls"])]
    masks = [0] * boards
    for wall in state["walls"]:
        board, bit = EDGE_BOARD_BIT[wall]
        masks[board] |= bit
    return masks


def _sees(a: str, b: str, masks: list[int], true_los: bool) -> bool:
    """Line of sight between two squares; squares on different boards never see each other."""
    board, la = SPLIT[a]
    other, lb = SPLIT[b]
    return board == other and in_sight(la, lb, masks[board], true_los)


def _route(a: str, b: str, masks: list[int], true_los: bool) -> list[str]:
    board, la = split(a)
    return [on_board(board, sq) for sq in route(la, split(b)[1], masks[board], true_los)]


def _game_squares(state: State) -> tuple[str, ...]:
    return squares_of(_boards(state))


def _true(state: State) -> bool:
    return state["options"]["los"] == "true"


def _on_floor(state: State) -> list[int]:
    return [i for i, h in enumerate(state["heroes"]) if h["fate"] == "floor"]


def _giant(state: State, token: str) -> dict[str, Any] | None:
    """The giant a token names: ``giant`` is board 1's, ``giant2`` and ``giant3`` started on boards 2
    and 3 (the Multiple Boards variant)."""
    if token == "giant":
        return state["giant"]
    return state["giants"][int(token[5:]) - 2]


def _giants(state: State) -> list[tuple[str, dict[str, Any]]]:
    """Every living giant as (token, giant), board 1's first."""
    out = []
    giant = state["giant"]
    if giant is not None and giant["alive"]:
        out.append(("giant", giant))
    for k, other in enumerate(state.get("giants", ())):
        if other is not None and other["alive"]:
            out.append((f"giant{k + 2}", other))
    return out


def _giant_squares(state: State) -> set[str]:
    return {g["square"] for _, g in _giants(state)}


def _giant_tasks(state: State) -> list[str]:
    """Monster movement's giant steps, one per giant that may exist."""
    return ["giant", *(f"giant{k + 2}" for k in range(len(state.get("giants", ()))))]


def _monster_agenda(state: State) -> list[str]:
    return [*_giant_tasks(state), "rats", "crowd", "next"]


def _rats_at(state: State, sq: str) -> list[int]:
    return [i for i, r in enumerate(state["rats"]) if r["square"] == sq]


def _heroes_at(state: State, sq: str) -> list[int]:
    return [i for i, h in enumerate(state["heroes"]) if h["square"] == sq and h["fate"] == "floor"]


def _hero_name(i: int) -> str:
    return f"Hero {i + 1}"


# Tokens, the things that move: heroes by number ("1"), giants ("giant", "giant2") and rat groups
# ("rats1"). A token that is dead or gone has no square.
def _token_square(state: State, token: str) -> str | None:
    if token.startswith("giant"):
        giant = _giant(state, token)
        return None if giant is None else giant["square"]
    if token.startswith("rats"):
        return state["rats"][int(token[4:]) - 1]["square"]
    return state["heroes"][int(token) - 1]["square"]


def _set_square(state: State, token: str, sq: str) -> None:
    if token.startswith("giant"):
        giant = _giant(state, token)
        assert giant is not None
        giant["square"] = sq
    elif token.startswith("rats"):
        state["rats"][int(token[4:]) - 1]["square"] = sq
    else:
        state["heroes"][int(token) - 1]["square"] = sq


def _token_key(token: str) -> tuple[int, int]:
    """Heroes by number, then giants, then rat groups."""
    if token.startswith("giant"):
        return 1, int(token[5:] or 1)
    if token.startswith("rats"):
        return 2, int(token[4:])
    return 0, int(token)


def _token_name(state: State, token: str) -> str:
    """ "The giant" while there is one board (as it always read); numbered giants with several."""
    if token.startswith("giant"):
        return f"Giant {token[5:] or 1}" if _multi(state) else "The giant"
    if token.startswith("rats"):
        return f"Rat group {token[4:]}"
    return _hero_name(int(token) - 1)


def _token_lower(state: State, token: str) -> str:
    name = _token_name(state, token)
    return "the giant" if name == "The giant" else name


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


def _opening(state: State) -> bool:
    """Whether nothing has happened yet: the first seat's first turn, before its first move."""
    return (
        state["phase"] == "play"
        and state["last"] is None
        and sum(state["turns"]) == 1
        and not state["agenda"]
        and state["pending"] is None
        and state["bid"] is None
    )


def _first_turn(state: State) -> bool:
    return state["turns"][state["current"]] == 1


def _awaiting(state: State) -> tuple[str, int | None]:
    """What the game waits for: (kind, seat). Kinds: over, chance, a pending decision's kind, response,
    bidding, charging (cards set aside for a teleporter), play."""
    if state["phase"] == "over":
        return "over", None
    pending = state["pending"]
    if pending is not None:
        return pending["kind"], pending["seat"]
    if state["agenda"]:
        return "chance", None  # _run only stops on an open agenda for the draw
    if state.get("charge") is not None:
        return "charging", state["current"]
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
    """A hero sharing a square with a giant dies, unless the giant is mortal and out-sworded. Several
    giants on one square (only with several boards) meet the heroes there one after the other."""
    for token, giant in _giants(state):
        if giant["square"] == sq:
            _one_giant_fight(state, token, giant, sq, events)


def _one_giant_fight(state: State, token: str, giant: dict[str, Any], sq: str, events: list[Event]) -> None:
    here = _heroes_at(state, sq)
    if not here:
        return
    heroes = state["heroes"]
    name = _token_name(state, token)
    if state["options"]["mortal_giant"] != "yes":
        for i in here:
            _kill_hero(state, i, f"crushed by {_token_lower(state, token)}", events)
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
        events.append(Event(kind="fight", text=f"{name} is killed on {sq}{gain}.", data={"square": sq}))
        return
    gained = [0, 0]
    for i in here:
        gained[0] += heroes[i]["jewels"]
        gained[1] += heroes[i]["swords"]
        heroes[i]["jewels"] = heroes[i]["swords"] = 0
        _kill_hero(state, i, f"beaten by {_token_lower(state, token)}", events)
    giant["jewels"] += gained[0]
    giant["swords"] += gained[1]
    if any(gained):
        events.append(Event(kind="fight", text=f"{name} takes {_loot(*gained)}.", data={"square": sq}))


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


def _arrive(state: State, arrivals: list[tuple[str, str]]) -> None:
    """Tokens that have just moved onto a square with a teleporter (and are still there after what met
    there): the player to move will say, token by token, whether and where each goes on."""
    if not _multi(state) or not state["teleporters"]:
        return
    ports = set(state["teleporters"])
    for token, sq in arrivals:
        if sq in ports and _token_square(state, token) == sq:
            state["hops"].append([token, sq])


def _push(state: State, swept: str, to: str, events: list[Event]) -> None:
    moved = []
    tokens: list[tuple[str, str]] = []
    for i in _heroes_at(state, swept):
        state["heroes"][i]["square"] = to
        moved.append(_hero_name(i))
        tokens.append((str(i + 1), to))
    for token, giant in _giants(state):
        if giant["square"] == swept:
            giant["square"] = to
            moved.append(_token_lower(state, token))
            tokens.append((token, to))
    for g in _rats_at(state, swept):
        state["rats"][g]["square"] = to
        moved.append(f"rat group {g + 1}")
        tokens.append((f"rats{g + 1}", to))
    if moved:
        events.append(
            Event(
                kind="push",
                text=f"The wall sweeps {swept}: {', '.join(moved)} pushed to {to}.",
                data={"from": swept, "to": to},
            )
        )
        _resolve_squares(state, [to], events)
        _arrive(state, tokens)


def _sightings(state: State) -> list[tuple[str, list[str]]]:
    """Every token with treasure in sight and the treasure squares it sees (its own square included)."""
    treasure = sorted(state["treasure"], key=SQUARE_ORDER.__getitem__)
    if not treasure:
        return []
    masks = _masks(state)
    true_los = _true(state)
    tokens = [(str(i + 1), state["heroes"][i]["square"]) for i in _on_floor(state)]
    tokens += [(token, giant["square"]) for token, giant in _giants(state)]
    out = []
    for token, sq in tokens:
        seen = [t for t in treasure if _sees(sq, t, masks, true_los)]
        if seen:
            out.append((token, seen))
    return out


def _take(state: State, token: str, sq: str, pile: list[int], events: list[Event]) -> None:
    jewels, swords = pile
    if token.startswith("giant"):
        giant = _giant(state, token)
        assert giant is not None
        name = _token_name(state, token)
        if state["options"]["mortal_giant"] == "yes":
            giant["jewels"] += jewels
            giant["swords"] += swords
            text = f"{name} takes {_loot(jewels, swords)} on {sq}."
        else:
            text = f"{name} reaches {sq}; {_treasure_text(pile)}."
    else:
        hero = state["heroes"][int(token) - 1]
        hero["jewels"] += jewels
        hero["swords"] += swords
        text = f"{_token_name(state, token)} picks up {_loot(jewels, swords)} on {sq}."
    events.append(Event(kind="treasure", text=text, data={"token": token, "square": sq}))


def _execute_wave(state: State, assign: dict[str, str], events: list[Event]) -> None:
    """Every token with a target runs to it at once; heroes fight the rats on their way, then the
    treasure goes to a lone arrival or is discarded when several arrive."""
    masks = _masks(state)
    true_los = _true(state)
    heroes = state["heroes"]
    starts = {token: _token_square(state, token) or "" for token in assign}
    ways: dict[str, list[str]] = {}
    for token, target in assign.items():
        if not token.startswith("giant"):
            passed = _route(starts[token], target, masks, true_los)
            ways[token] = passed + ([target] if target != starts[token] else [])
    order = sorted(assign, key=_token_key)
    for token in order:
        if starts[token] != assign[token]:
            events.append(
                Event(
                    kind="move",
                    text=f"{_token_name(state, token)} runs from {starts[token]} to the treasure on "
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
    for sq in sorted(first, key=lambda s: (first[s], SQUARE_ORDER[s])):
        fighters = [
            int(t) - 1
            for t in sorted(ways, key=_token_key)
            if sq in ways[t] and heroes[int(t) - 1]["fate"] == "floor"
        ]
        if fighters and _rats_at(state, sq):
            for i in fighters:
                heroes[i]["square"] = sq
            _rat_fight(state, sq, fighters, events)
    arrived: dict[str, list[str]] = {}
    for token in order:
        target = assign[token]
        if token.startswith("giant"):
            _set_square(state, token, target)
        elif heroes[int(token) - 1]["fate"] == "floor":
            heroes[int(token) - 1]["square"] = target
        else:
            continue
        arrived.setdefault(target, []).append(token)
    landed = sorted(arrived, key=SQUARE_ORDER.__getitem__)
    for sq in landed:
        pile = state["treasure"].pop(sq)
        tokens = arrived[sq]
        if len(tokens) == 1:
            _take(state, tokens[0], sq, pile, events)
        else:
            names = " and ".join(_token_name(state, t) for t in tokens)
            events.append(
                Event(
                    kind="treasure",
                    text=f"{names} reach {sq} together; {_treasure_text(pile)}.",
                    data={"square": sq},
                )
            )
    _resolve_squares(state, landed, events)
    _arrive(state, [(t, assign[t]) for t in order if t in arrived.get(assign[t], ())])


def _giant_targets(state: State, token: str) -> list[str]:
    giant = _giant(state, token)
    if giant is None or not giant["alive"]:
        return []
    masks = _masks(state)
    true_los = _true(state)
    at = giant["square"]
    squares = {state["heroes"][i]["square"] for i in _on_floor(state)}
    return sorted((sq for sq in squares if _sees(at, sq, masks, true_los)), key=SQUARE_ORDER.__getitem__)


def _giant_attack(state: State, token: str, sq: str, events: list[Event]) -> None:
    start = _token_square(state, token)
    _set_square(state, token, sq)
    events.append(
        Event(
            kind="giant",
            text=f"{_token_name(state, token)} sees a hero and charges from {start} to {sq}.",
            data={"to": sq} if token == "giant" else {"to": sq, "giant": token},
        )
    )
    _resolve_squares(state, [sq], events)
    _arrive(state, [(token, sq)])


def _rat_options(state: State) -> list[tuple[int, list[str]]]:
    """For each rat group that moves: the first steps of its shortest ways to the one nearest hero on
    its own board (rats smell along the floor only, never through a teleporter)."""
    hero_squares = sorted(
        {state["heroes"][i]["square"] for i in _on_floor(state)}, key=SQUARE_ORDER.__getitem__
    )
    if not hero_squares:
        return []
    masks = _masks(state)
    maps: dict[str, tuple[int, Mapping[str, int]]] = {}
    for sq in hero_squares:
        board, local = split(sq)
        maps[sq] = (board, distances(local, masks[board]))
    out = []
    for g, group in enumerate(state["rats"]):
        at = group["square"]
        if at is None:
            continue
        board, local = split(at)
        near = [(d[local], sq) for sq, (b, d) in maps.items() if b == board and local in d]
        if not near:
            continue  # no hero to smell
        best = min(d for d, _ in near)
        targets = [sq for d, sq in near if d == best]
        if len(targets) > 1 or best == 0:
            continue  # torn between two heroes: the rats stay
        dist = maps[targets[0]][1]
        mask = masks[board]
        steps = [
            on_board(board, nb)
            for edge, nb in NEIGHBOURS[local]
            if not EDGE_BIT[edge] & mask and dist.get(nb) == best - 1
        ]
        out.append((g, sorted(steps, key=SQUARE_ORDER.__getitem__)))
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
    _resolve_squares(state, sorted(set(landed), key=SQUARE_ORDER.__getitem__), events)
    _arrive(state, [(f"rats{g + 1}", sq) for g, sq in steps])


def _teleport(state: State, token: str, start: str, dest: str, events: list[Event]) -> None:
    """A token steps through the teleporter on ``start`` and comes out on ``dest``, where whatever is
    there meets it (a hero on a stairway escapes). It does not step on again from there."""
    _set_square(state, token, dest)
    events.append(
        Event(
            kind="teleport",
            text=f"{_token_name(state, token)} steps into the teleporter on {start} and comes out on {dest}.",
            data={"token": token, "from": start, "to": dest},
        )
    )
    _resolve_squares(state, [dest], events)


def _empty_edges(state: State) -> list[str]:
    taken = set(state["walls"])
    return [e for e in edges_of(_boards(state)) if e not in taken]


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
                text=f"{_who(seat)} sends {_token_lower(state, token)} towards {option}.",
                data={"seat": seat, "token": token, "square": option},
            )
        )
    elif kind == "attack":
        token = state["agenda"].pop(0)
        state["agenda"].insert(0, "settle")
        _giant_attack(state, token, option, events)
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
    elif kind == "teleport":
        token, start = pending["token"], pending["from"]
        if option == start:
            events.append(
                Event(
                    kind="choose",
                    text=f"{_who(seat)} leaves {_token_lower(state, token)} on the teleporter on {start}.",
                    data={"seat": seat, "token": token, "square": option},
                )
            )
        else:
            _teleport(state, token, start, option, events)
    elif kind == "crowd":
        state["crowd"].pop(0)
        state["walls"] = sorted([*state["walls"], option], key=ALL_EDGE_ORDER.__getitem__)
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
    """An unfinished bid or block goes to the discards (the cards were shown, so nothing is hidden); so
    do cards set aside for a teleporter that was never placed."""
    bid = state["bid"]
    if bid is not None:
        state["discards"] = _sorted_cards(state["discards"] + bid["cards"] + bid["block"])
        state["bid"] = None
    if state.get("charge") is not None:
        state["discards"] = _sorted_cards(state["discards"] + state["charge"])
        state["charge"] = None


def _end(state: State, reason: str, events: list[Event]) -> None:
    state["phase"] = "over"
    state["end_reason"] = reason
    state["pending"] = None
    state["agenda"] = []
    state["wave"] = state["rat_plan"] = state["crowd"] = None
    state["respawn"] = []
    if _multi(state):
        state["hops"] = []
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
            options = sorted(set(state["stairways"]), key=SQUARE_ORDER.__getitem__)
            state["pending"] = {
                "kind": "respawn",
                "seat": state["current"],
                "rats": g + 1,
                "options": options,
            }
            continue
        if state.get("hops"):
            token, start = state["hops"].pop(0)
            if _token_square(state, token) != start:
                continue  # killed, or moved on, since it arrived
            # Staying (the token's own square) comes first: a seat that has left stays.
            others = sorted((t for t in state["teleporters"] if t != start), key=SQUARE_ORDER.__getitem__)
            if others:
                state["pending"] = {
                    "kind": "teleport",
                    "seat": state["current"],
                    "token": token,
                    "from": start,
                    "options": [start, *others],
                }
            continue
        agenda = state["agenda"]
        if not agenda:
            if state["current"] in state["eliminated"]:
                # The player to move has left: its turn ends as if it had said "end", without the draw.
                _drop_bid(state)
                agenda.extend(_monster_agenda(state))
                continue
            return
        task = agenda[0]
        if task == "draw":
            return
        if task == "settle":
            _task_settle(state, events)
        elif task.startswith("giant"):
            targets = _giant_targets(state, task)
            if not targets:
                agenda.pop(0)
            elif len(targets) == 1:
                agenda[0] = "settle"
                _giant_attack(state, task, targets[0], events)
            else:
                state["pending"] = {"kind": "attack", "seat": state["current"], "options": targets}
                if task != "giant":
                    state["pending"].update(token=task, **{"from": _token_square(state, task)})
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


# Hearts move north-south walls (…e, or …w on the outline), clubs east-west ones (…n, or …s).
_WALL_SIDE = {"H": "ew", "C": "ns"}


def _tokens_squares(state: State) -> set[str]:
    """The squares where a hero, a giant or a rat group stands: what a pivoting wall would push."""
    out = {state["heroes"][i]["square"] for i in _on_floor(state)} | _giant_squares(state)
    return out | {r["square"] for r in state["rats"] if r["square"] is not None}


def _no_way_out(swept: str | None, pushed: str | None, tokens: set[str]) -> bool:
    """A pivot onto the outline whose swept square holds a piece: beyond the outline there is no square
    to push it into, so the pivot is refused (a decision, see the digest)."""
    return swept is not None and pushed is None and swept in tokens


# --- the teleporter wonder: sets with the same number of cards of each suit -----------------------------
def _suit_counts(cards: list[str]) -> dict[str, int]:
    counts = dict.fromkeys(SUITS, 0)
    for card in cards:
        counts[card[0]] += 1
    return counts


def _balanced(cards: list[str]) -> bool:
    """One card of each suit, or two of each, or three...: what claims and blocks the teleporter."""
    counts = _suit_counts(cards)
    return counts["H"] >= 1 and len(set(counts.values())) == 1


def _best_set(put: list[str], hand: list[str]) -> int | None:
    """The highest total a balanced set can reach from the cards ``put`` down and more from ``hand``;
    None when no balanced set can be completed from them."""
    counts = _suit_counts(put)
    values = {s: sorted((_value(c) for c in hand if c[0] == s), reverse=True) for s in SUITS}
    level = min(counts[s] + len(values[s]) for s in SUITS)
    if level < max(1, *counts.values()):
        return None
    return sum(map(_value, put)) + sum(sum(values[s][: level - counts[s]]) for s in SUITS)


def _set_cards(put: list[str], hand: list[str], need: int = 0) -> list[str]:
    """The cards of ``hand`` that may go next into the set ``put``: those after which a balanced set
    worth at least ``need`` can still be completed (so a bid or block is never stuck)."""
    out = []
    for card in sorted(set(hand), key=CARD_ORDER.__getitem__):
        rest = list(hand)
        rest.remove(card)
        best = _best_set([*put, card], rest)
        if best is not None and best >= need:
            out.append(card)
    return out


def _charge_starts(state: State, seat: int) -> list[str]:
    """The cards the teleporter wonder's owner may start a teleporter with: any, when the hand holds
    every suit and a square is still free of teleporters."""
    hand = state["hands"][seat]
    if len({c[0] for c in hand}) < len(SUITS) or len(state["teleporters"]) >= len(_game_squares(state)):
        return []
    return sorted(set(hand), key=CARD_ORDER.__getitem__)


# --- moves: shapes and notation -----------------------------------------------------------------------
def _card(text: Any) -> str:
    if not isinstance(text, str) or text not in CARD_ORDER:
        raise IllegalMove(f"{text!r} is not a card; cards are a suit H, C, D or S and a value 1 to 10.")
    return text


def _square(text: Any) -> str:
    if not isinstance(text, str) or text not in SQUARE_ORDER:
        raise IllegalMove(
            f"{text!r} is not a square; squares run from a1 to h8 (2a1 to 2h8 on a second board, 3a1 to "
            "3h8 on a third)."
        )
    return text


def _edge(text: Any) -> str:
    edge = canonical_edge(text) if isinstance(text, str) else None
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
        if keys == {"bid", "wonder"} and move["wonder"] == TELEPORTER:
            _card(move["bid"])
            return "bid_t"
        if keys == {"charge"}:
            _card(move["charge"])
            return "charge"
        if keys == {"teleporter"}:
            _square(move["teleporter"])
            return "teleporter"
        if keys == {"claim"} and move["claim"] in WONDER_SET:
            return "claim"
        if keys == {"block"}:
            _card(move["block"])
            return "block"
        if keys == {"yield"} and move["yield"] is True:
            return "yield"
        if keys == {"give", "to"} and move["give"] in WONDER_SET and type(move["to"]) is int:
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
_SQ = r"([1-3]?[a-h][1-8])"  # a square of board 1, or with its board in front (2c3)
_WALL = r"([1-3]?[a-h][1-8][nesw])"
_WONDER = r"(?:the\s+)?([hcdst]|teleporter)(?:\s+wonder)?"
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("wall_move", re.compile(rf"{_CARD}\s*[:,]?\s*{_WALL}\s*(?:-+>?|>|to)\s*({_WALL[1:-1]}|off)")),
    ("treasure_move", re.compile(rf"{_CARD}\s*(?:[:@,]|on|at)?\s*{_SQ}")),
    ("bid_t", re.compile(rf"bid\s*{_CARD}\s*(?:for|on|to)?\s*(?:the\s+)?(?:t|teleporter)(?:\s+wonder)?")),
    ("bid", re.compile(rf"bid\s*{_CARD}")),
    ("charge", re.compile(rf"charge\s*{_CARD}")),
    ("teleporter", re.compile(rf"(?:teleporter|tp)\s*(?:on|at|@)?\s*{_SQ}")),
    ("claim", re.compile(rf"claim\s*{_WONDER}(?:\s+[\d+ ]*)?")),
    ("block", re.compile(rf"block\s*{_CARD}")),
    ("yield", re.compile(r"yield|pass")),
    ("give", re.compile(rf"give\s*{_WONDER}\s+(?:to\s+)?(\w+)")),
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


def _wall_text(text: str, board: int | None = None) -> str:
    """A wall's canonical name; ``board`` is the board of a wall given without one (a wall's destination
    is on the wall's own board)."""
    if board is not None and not text[0].isdigit():
        text = f"{board + 1}{text}"
    edge = canonical_edge(text)
    if edge is None:
        raise IllegalMove(f"{text} is not an edge of a square (such as c3e, c3n, or a3w on the outline).")
    return edge


def _square_text(text: str) -> str:
    sq = canonical_square(text)
    if sq is None:
        raise IllegalMove(f"{text} is not a square of boards 1 to {MAX_BOARDS}.")
    return sq


def _wonder_text(text: str) -> str:
    return TELEPORTER if text == "teleporter" else text.upper()


def _layout_invalid(reasons: list[str]) -> OptionsInvalid:
    """A refused custom layout: every reason, about the option ``layout_json``."""
    return OptionsInvalid(reasons, option="layout_json", label="Layout")


# --- the engine ---------------------------------------------------------------------------------------
class Stairways(Engine):
    slug = "stairways"
    title = "Walls and Stairways"
    min_players = 2
    max_players = 4
    notation_example = "H5 c3e-c4e (a heart slides a wall), D7 e4 (a jewel on e4), bid S7, claim S, end"
    # 2: the classic first game for three starts its single rat in the den (e5), not in the rat hole c3.
    # 3: the maze's first game for three brings the walls c8e and h3n.
    # 4: the maze's recommended set for three goes without the walls b8e and h2n (the first game keeps them).
    # 5: so does the classic one.
    # 6: with four players the maze's groups of 4 start in orange's and green's corners of the den, the
    # giant in blue's.
    # 7: with four players the classic layout brings the walls b3e, c6n, f2n and f6e, as the maze has them.
    # 8: the classic first game for three brings the walls b5n, c7e, e2e and g3n.
    rules_version = 8
    move_fields: ClassVar[dict[str, type | tuple[type, ...]]] = {
        **dict.fromkeys(
            (
                *("play", "wall", "square", "bid", "wonder", "charge", "teleporter"),
                *("claim", "block", "give", "choose", "place"),
            ),
            str,
        ),
        "to": (str, int),  # a wall's destination, or the seat a wonder is given to
        "yield": bool,
        "end": bool,
    }
    malformed_move = f"That is not a Walls and Stairways move. {MOVE_HINT}"
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
        "boards": Option(
            label="Multiple Boards and Teleporters",
            choices={
                "1": "One board",
                "2": "Two boards and the teleporter wonder",
                "3": "Three boards and the teleporter wonder",
            },
            default="1",
        ),
    }
    text_options: ClassVar[dict[str, TextOption]] = {
        "layout_json": TextOption(
            label="Custom layout",
            help="Leave empty for the preset above. JSON: walls, stairways (one per seat), heroes, giant, "
            "rats, and for more boards a list of further boards with their own walls and pieces.",
            editor="stairways-layout",
        )
    }
    svg = svg_module

    def option_examples(self, name: str, *, seats: int) -> dict[str, str]:
        """Every preset for ``seats`` players, with each piece set and one to three boards, as layout
        JSON for the layout editor to start from."""
        if name != "layout_json":
            return {}
        out = {}
        for layout, title in PRESETS.items():
            for pieces, label in PIECE_SETS.items():
                for boards in range(1, MAX_BOARDS + 1):
                    more = "" if boards == 1 else f", {boards} boards"
                    text = json.dumps(preset(layout, seats, pieces, boards))
                    out[f"{title.split(':')[0]}, {label.split(':')[0].lower()}{more}"] = text
        return out

    # --- setup -------------------------------------------------------------------------------------
    def resolve_options(self, options: dict[str, str] | None, *, seats: int | None = None) -> dict[str, str]:
        """As the base class, plus ``layout_json``: a custom layout as JSON text, which sets the layout
        to "custom" (the presets' piece sets do not apply to it) and the number of boards to its own
        (one, plus the further boards it lists)."""
        given = dict(options or {})
        text = given.pop("layout_json", None)
        custom = given.get("layout") == "custom"
        if custom:
            given.pop("layout")
        resolved = super().resolve_options(given, seats=seats)
        if text is None:
            if custom:
                raise _layout_invalid(["a custom layout needs its JSON text in layout_json."])
            return resolved
        if not isinstance(text, str):
            raise _layout_invalid(["layout_json must be JSON text."])
        if len(text) > JSON_LIMIT:
            raise _layout_invalid([f"a custom layout has at most {JSON_LIMIT} characters of JSON."])
        try:
            layout = json.loads(text)
        except ValueError as exc:
            raise _layout_invalid([f"the custom layout is not valid JSON ({exc})."]) from None
        except RecursionError:
            # Nested a thousand levels deep: the parser gives up before layout_validate can say so.
            raise _layout_invalid([DEPTH_REASON]) from None
        errors = layout_validate(layout, seats)
        if errors:
            raise _layout_invalid(errors)
        resolved["layout"] = "custom"
        resolved["boards"] = str(board_count(layout))
        resolved["layout_json"] = json.dumps(normalised(layout), sort_keys=True)
        return resolved

    def new_state(self, *, seats: int, options: dict[str, str], rng: random.Random) -> State:
        resolved = self.resolve_options(options, seats=seats)
        boards = int(resolved["boards"])
        if resolved["layout"] == "custom":
            layout = json.loads(resolved["layout_json"])
        else:
            layout = preset(resolved["layout"], seats, resolved["pieces"], boards)
        deck = [c for c in CARDS for _ in range(COPIES)]
        rng.shuffle(deck)
        hands = [_sorted_cards(deck[k * HAND_SIZE : (k + 1) * HAND_SIZE]) for k in range(seats)]
        start = GIANT_START if resolved["mortal_giant"] == "yes" else 0

        def giant_on(sq: str | None) -> dict[str, Any] | None:
            return None if sq is None else {"square": sq, "alive": True, "jewels": start, "swords": start}

        # The further boards' walls and pieces, named on their own boards (2c3...), after board 1's.
        extra = layout.get("boards", [])
        walls = [*layout["walls"], *(on_board(k + 1, w) for k, b in enumerate(extra) for w in b["walls"])]
        heroes = [
            *layout["heroes"],
            *(on_board(k + 1, sq) for k, b in enumerate(extra) for sq in b["heroes"]),
        ]
        rats = [*layout["rats"]] + [
            {"square": on_board(k + 1, r["square"]), "size": r["size"]}
            for k, b in enumerate(extra)
            for r in b["rats"]
        ]
        state = {
            "seats": seats,
            "options": resolved,
            "layout": layout["name"],
            "phase": "play",
            "current": 0,
            "turns": [1] + [0] * (seats - 1),
            "quiet": 0,
            "floor_at_start": len(heroes),
            "walls": sorted(walls, key=ALL_EDGE_ORDER.__getitem__),
            "pool": CROWD_POOL * boards if resolved["crowded"] == "yes" else 0,
            "stairways": list(layout["stairways"]),
            "heroes": [
                {"square": sq, "fate": "floor", "jewels": 0, "swords": 0, "stairway": None} for sq in heroes
            ],
            "giant": giant_on(layout["giant"]),
            "rats": [{"square": r["square"], "size": r["size"]} for r in rats],
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
        if boards > 1:
            # The variant's own keys (a one-board game's state reads as it always has): the further
            # boards' giants (None where a board has none), the teleporters, the tokens waiting to be
            # sent on through one, the cards set aside for a teleporter, and the fifth wonder.
            state["giants"] = [
                giant_on(None if b["giant"] is None else on_board(k + 1, b["giant"]))
                for k, b in enumerate(extra)
            ]
            state["teleporters"] = []
            state["hops"] = []
            state["charge"] = None
            state["wonders"][TELEPORTER] = None
        return state

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
            bid = state["bid"]
            suit = bid["suit"]
            if suit == TELEPORTER:
                more: list[Move] = [{"bid": c, "wonder": TELEPORTER} for c in _set_cards(bid["cards"], hand)]
                return [*more, *([{"claim": TELEPORTER}] if _balanced(bid["cards"]) else [])]
            cards = sorted({c for c in hand if c[0] == suit}, key=CARD_ORDER.__getitem__)
            return [*({"bid": c} for c in cards), {"claim": suit}]
        if kind == "charging":
            charge = state["charge"]
            if len(charge) == len(SUITS):
                taken = set(state["teleporters"])
                return [{"teleporter": sq} for sq in _game_squares(state) if sq not in taken]
            have = {c[0] for c in charge}
            return [{"charge": c} for c in sorted(set(hand), key=CARD_ORDER.__getitem__) if c[0] not in have]
        if kind == "response":
            bid = state["bid"]
            suit = bid["suit"]
            if suit == TELEPORTER:
                total = sum(map(_value, bid["cards"]))
                blocks: list[Move] = [{"block": c} for c in _set_cards(bid["block"], hand, total)]
                return [*blocks, {"yield": True}]
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
        if TELEPORTER in state["wonders"]:
            if TELEPORTER in owned:
                moves.extend({"charge": c} for c in _charge_starts(state, seat))
            else:
                moves.extend({"bid": c, "wonder": TELEPORTER} for c in _set_cards([], state["hands"][seat]))
        for suit in (*SUITS, TELEPORTER):
            if suit in owned:
                moves.extend({"give": suit, "to": other} for other in _active(state) if other != seat)
        moves.append({"end": True})
        return moves

    def _effects(self, state: State, suit: str, restricted: bool) -> list[dict[str, str]]:
        """What a card of ``suit`` can do now: wall moves or treasure squares."""
        out: list[dict[str, str]] = []
        if suit in "HC":
            side = _WALL_SIDE[suit]
            taken = set(state["walls"])
            tokens = _tokens_squares(state)
            crowded = state["options"]["crowded"] == "yes"
            for wall in state["walls"]:
                if wall[-1] not in side:
                    continue
                for dest, swept, pushed in ALL_WALL_MOVES[wall]:
                    if dest not in taken and not _no_way_out(swept, pushed, tokens):
                        out.append({"wall": wall, "to": dest})
                if crowded and SLIDES_OFF[split(wall)[1]]:
                    out.append({"wall": wall, "to": "off"})
        else:
            blocked = {state["heroes"][i]["square"] for i in _on_floor(state)} | _giant_squares(state)
            out = [{"square": sq} for sq in _game_squares(state) if sq not in blocked]
        if restricted:
            masks = _masks(state)
            out = [e for e in out if self._effect_is_safe(state, suit, e, masks)]
        return out

    # The first-turn rule: no move of the player whose first turn it is may put a hero on a stairway,
    # counting everything the move sets off up to the end of its chain, through the player's own
    # choices (a move is allowed when some way of making them keeps every hero off the stairways).
    def _effect_is_safe(
        self, state: State, suit: str, effect: dict[str, str], walls: list[int] | None = None
    ) -> bool:
        # Cheap screen first: only a hero that is pushed or comes to see treasure can move at all (the
        # giant running to treasure moves no hero), so without one there is nothing to simulate.
        true_los = _true(state)
        heroes = {i: state["heroes"][i]["square"] for i in _on_floor(state)}
        masks = list(walls) if walls is not None else _masks(state)  # a copy: a wall move changes it
        if suit in "DS":
            targets = [effect["square"]]
        else:
            wall, dest = effect["wall"], effect["to"]
            board, local = split(wall)
            masks[board] &= ~EDGE_BIT[local]
            if dest != "off":
                masks[board] |= EDGE_BIT[split(dest)[1]]
            for to, swept, pushed in ALL_WALL_MOVES[wall]:
                if to == dest and swept is not None:
                    for i, sq in heroes.items():
                        if sq == swept:
                            if pushed in state["stairways"]:
                                return False
                            heroes[i] = pushed
            targets = list(state["treasure"])
        if not any(_sees(h, t, masks, true_los) for h in heroes.values() for t in targets):
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
            if shape == "give" and state["wonders"].get(move["give"]) == seat:
                # A decision (see the digest): gifts wait for the giver's turn, like every other move.
                raise IllegalMove(
                    "A wonder is given in its owner's own turn, as every move is made by the seat whose "
                    "turn it is: give it when your turn comes."
                )
            raise IllegalMove("It is not your turn to act.")
        if not self._is_legal(state, seat, shape, move):
            raise IllegalMove(self._why_not(state, seat, shape, move))
        new = _copy(state)
        events: list[Event] = []
        text = self.format_move(move)
        if shape in ("wall_move", "treasure_move"):
            self._do_card(new, seat, move, events, discard=True)
        elif shape == "bid":
            self._do_bid(new, seat, move["bid"], move["bid"][0], events)
        elif shape == "bid_t":
            self._do_bid(new, seat, move["bid"], TELEPORTER, events)
        elif shape == "charge":
            self._do_charge(new, seat, move["charge"], events)
        elif shape == "teleporter":
            self._do_teleporter(new, seat, move["teleporter"], events)
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
            new["agenda"] = ["draw", *_monster_agenda(new)]
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
        if shape == "bid_t":
            wonders = state["wonders"]
            return (
                TELEPORTER in wonders
                and wonders[TELEPORTER] != seat
                and move["bid"] in _set_cards([], state["hands"][seat])
            )
        if shape == "charge":
            return state["wonders"].get(TELEPORTER) == seat and move["charge"] in _charge_starts(state, seat)
        if shape == "give":
            return (
                state["wonders"].get(move["give"], -1) == seat
                and move["to"] in _active(state)
                and move["to"] != seat
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
            if wall not in state["walls"] or wall[-1] not in _WALL_SIDE[suit]:
                return False
            if dest == "off":
                ok = state["options"]["crowded"] == "yes" and SLIDES_OFF[split(wall)[1]]
            else:
                tokens = _tokens_squares(state)
                ok = dest not in state["walls"] and any(
                    d == dest and not _no_way_out(swept, pushed, tokens)
                    for d, swept, pushed in ALL_WALL_MOVES[wall]
                )
        else:
            sq = move.get("square")
            ok = (
                split(sq)[0] < _boards(state)
                and sq not in _giant_squares(state)
                and not _heroes_at(state, sq)
            )
        return ok and (not _first_turn(state) or self._effect_is_safe(state, suit, effect))

    def _why_not(self, state: State, seat: int, shape: str, move: Move) -> str:
        kind, _ = _awaiting(state)
        if kind == "response" and shape not in ("block", "yield"):
            return "Answer the claim first: block it with cards of its suit, or yield."
        if kind == "bidding" and state["bid"]["suit"] == TELEPORTER:
            if shape == "claim" and move["claim"] == TELEPORTER:
                return "A bid for the teleporter wonder needs the same number of cards of each suit."
            if shape != "bid_t":
                return (
                    "Finish your bid for the teleporter wonder first: add cards (bid H2 for T), or claim T."
                )
            return "That card would leave a bid with the same number of cards of each suit out of reach."
        if kind == "bidding" and shape not in ("bid", "claim"):
            return f"Finish your bid first: add cards of its suit, or claim {state['bid']['suit']}."
        if kind == "charging":
            if len(state["charge"]) == len(SUITS):
                return "Put your teleporter on a square without one first (teleporter 2c3)."
            return "Set aside a card of each suit for your teleporter first (charge H2)."
        if kind == "response" and state["bid"]["suit"] == TELEPORTER and shape == "block":
            return (
                "A block of the teleporter wonder must become a set with the same number of cards of each "
                "suit worth at least the bid; that card cannot lead to one."
            )
        if kind in CHOICES and shape != "choose":
            return f"Choose a square first: {', '.join(state['pending']['options'])}."
        if kind == "crowd" and shape != "place":
            return "Add your new wall first (wall c3n)."
        if kind == "crowd" and split(move["place"])[1] in RIM_SET:
            return "A new wall goes on a free edge between two squares; only moved walls reach the outline."
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
                if wall[-1] not in _WALL_SIDE.get(card[0], ""):
                    return "Hearts move north-south walls (…e, …w); clubs move east-west walls (…n, …s)."
                tokens = _tokens_squares(state)
                for dest, swept, pushed in ALL_WALL_MOVES[wall]:
                    if dest == move["to"] and _no_way_out(swept, pushed, tokens):
                        return (
                            f"The wall on {wall} cannot pivot onto the outline at {dest}: it would push "
                            f"what stands on {swept} off the board."
                        )
                return f"The wall on {wall} cannot move to {move['to']}."
            if shape == "treasure_move" and card[0] in "HC":
                return "Hearts and clubs move walls; diamonds and spades place treasure."
            if shape == "treasure_move" and split(move["square"])[0] >= _boards(state):
                return f"{move['square']} is not a square of this game's boards."
            if _first_turn(state) and shape in ("wall_move", "treasure_move"):
                return "No hero may reach a stairway during its player's first turn."
            if shape == "treasure_move":
                return f"Treasure may not be placed on {move['square']}: a hero or the giant stands there."
            if shape == "bid" and state["wonders"][card[0]] == seat:
                return "You already own that wonder."
        names_t = TELEPORTER in (move.get("claim"), move.get("give"))
        if (shape in ("bid_t", "charge", "teleporter") or names_t) and not _multi(state):
            return "The teleporter wonder is only in play with several boards."
        if shape == "bid_t":
            if move["bid"] not in state["hands"][seat]:
                return f"You do not hold {move['bid']}."
            if state["wonders"][TELEPORTER] == seat:
                return "You already own that wonder."
            return "Bidding for the teleporter wonder needs a card of each suit in your hand."
        if shape == "charge":
            if state["wonders"][TELEPORTER] != seat:
                return "You need the teleporter wonder to place a teleporter."
            return "A teleporter takes one card of each suit from your hand."
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
            state["walls"] = sorted(walls, key=ALL_EDGE_ORDER.__getitem__)
            events.append(Event(kind="wall", text=text, data={"wall": wall, "to": dest}))
            for to, swept, pushed in ALL_WALL_MOVES[wall]:
                if to == dest and swept is not None and pushed is not None:
                    _push(state, swept, pushed, events)
        state["agenda"] = ["settle"]

    def _do_bid(self, state: State, seat: int, card: str, wonder: str, events: list[Event]) -> None:
        state["hands"][seat].remove(card)
        bid = state["bid"]
        if bid is None:
            bid = state["bid"] = {
                "seat": seat,
                "suit": wonder,
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
                text=f"{_who(seat)} bids {card} for the {SUIT_ONE[wonder]} wonder (bid now {total}).",
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
        cards = (
            "a set of one card of each suit (or two of each...)" if suit == TELEPORTER else SUIT_WORDS[suit]
        )
        events.append(
            Event(
                kind="claim",
                text=f"{_who(seat)} bids {total} for {_who(owner)}'s {SUIT_ONE[suit]} wonder; "
                f"{_who(owner)} may block with {cards} worth {total} or more.",
                data={"seat": seat, "suit": suit, "total": total, "owner": owner},
            )
        )

    def _do_block(self, state: State, seat: int, card: str, events: list[Event]) -> None:
        state["hands"][seat].remove(card)
        bid = state["bid"]
        bid["block"] = _sorted_cards([*bid["block"], card])
        total = sum(map(_value, bid["cards"]))
        blocked = sum(map(_value, bid["block"]))
        if blocked < total or (bid["suit"] == TELEPORTER and not _balanced(bid["block"])):
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

    def _do_charge(self, state: State, seat: int, card: str, events: list[Event]) -> None:
        state["hands"][seat].remove(card)
        state["charge"] = _sorted_cards([*(state["charge"] or []), card])
        events.append(
            Event(
                kind="charge",
                text=f"{_who(seat)} sets {card} aside for a teleporter ({len(state['charge'])} of 4).",
                data={"seat": seat, "card": card},
            )
        )

    def _do_teleporter(self, state: State, seat: int, sq: str, events: list[Event]) -> None:
        cards = state["charge"]
        state["discards"] = _sorted_cards(state["discards"] + cards)
        state["charge"] = None
        state["teleporters"] = sorted([*state["teleporters"], sq], key=SQUARE_ORDER.__getitem__)
        events.append(
            Event(
                kind="teleporter",
                text=f"{_who(seat)} plays {', '.join(cards)}: a teleporter on {sq}.",
                data={"seat": seat, "square": sq, "cards": list(cards)},
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
                wall = _wall_text(m[3])
                dest = m[4] if m[4] == "off" else _wall_text(m[4], split(wall)[0])
                return {"play": _card_text(m[1], m[2]), "wall": wall, "to": dest}
            if kind == "treasure_move":
                return {"play": _card_text(m[1], m[2]), "square": _square_text(m[3])}
            if kind in ("bid", "block", "charge"):
                return {kind: _card_text(m[1], m[2])}
            if kind == "bid_t":
                return {"bid": _card_text(m[1], m[2]), "wonder": TELEPORTER}
            if kind == "teleporter":
                return {"teleporter": _square_text(m[1])}
            if kind == "claim":
                return {"claim": _wonder_text(m[1])}
            if kind == "yield":
                return {"yield": True}
            if kind == "give":
                return {"give": _wonder_text(m[1]), "to": _seat_of(m[2])}
            if kind == "choose":
                return {"choose": _square_text(m[1])}
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
        if shape in ("bid", "block", "charge"):
            return f"{shape} {move[shape]}"
        if shape == "bid_t":
            return f"bid {move['bid']} for T"
        if shape == "teleporter":
            return f"teleporter {move['teleporter']}"
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
        if shape == "bid_t":
            # Only a seat that does not own the teleporter wonder bids for it, only its owner charges
            # one: the same clicks never stand for both at once.
            return [f"wonder-{TELEPORTER}", f"card-{move['bid']}"]
        if shape == "charge":
            return [f"wonder-{TELEPORTER}", f"card-{move['charge']}"]
        if shape == "teleporter":
            return [f"sq-{move['teleporter']}"]
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

    def move_preview(self, view: View, seat: int, move: Move) -> list[Preview]:
        shape = _shape(move)
        if shape == "wall_move":
            wall, dest = move["wall"], move["to"]
            shapes: list[Preview] = [{"draw": "unwall", "at": f"wall-{wall}"}]
            if dest == "off":
                return shapes
            shapes.append({"draw": "wall", "at": f"edge-{dest}"})
            # The pieces the pivoting wall sweeps, where they land (the view shows where pieces stand).
            standing = svg_module.piece_squares(view)
            for to, swept, pushed in ALL_WALL_MOVES[wall]:
                if to == dest and swept in standing and pushed is not None:
                    shapes.append({"draw": "ghost", "from": f"sq-{swept}", "to": f"sq-{pushed}"})
            return shapes
        if shape == "treasure_move":
            what = "+ jewel" if move["play"][0] == "D" else "+ sword"
            return [{"draw": "label", "at": f"sq-{move['square']}", "text": what}]
        if shape == "place":
            return [{"draw": "wall", "at": f"edge-{move['place']}"}]
        if shape in ("choose", "teleporter"):
            to = move[shape]
            origin = (view.get("pending") or {}).get("from")
            if isinstance(origin, str) and origin != to:
                return [{"draw": "arrow", "from": f"sq-{origin}", "to": f"sq-{to}"}]
        return []

    # --- what may be known --------------------------------------------------------------------------
    def public_view(self, state: State) -> View:
        kind, who = _awaiting(state)
        bid = state["bid"]
        pending = state["pending"]
        options = {k: v for k, v in state["options"].items() if k != "layout_json"}
        giant = state["giant"]
        view = {
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
                for sq, t in sorted(state["treasure"].items(), key=lambda i: SQUARE_ORDER[i[0]])
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
        if state["options"].get("layout") == "custom" and _opening(state):
            # A home-made layout may let monsters reach heroes before anyone could play for them: the
            # first position says which (the create form's preview shows it as a warning).
            view["opening_risk"] = [i + 1 for i in opening_losses(state)]
        if _multi(state):
            # Cards set aside for a teleporter lie face up, as bids do.
            view.update(
                boards=_boards(state),
                giants=[None if g is None else dict(g) for g in state["giants"]],
                teleporters=list(state["teleporters"]),
                charge=None if state["charge"] is None else list(state["charge"]),
            )
        return view

    def private_view(self, state: State, seat: int) -> dict[str, Any]:
        if not 0 <= seat < state["seats"]:
            return {}
        return {"hand": list(state["hands"][seat])}

    def prompt(self, view: View, seat: int | None) -> str:
        kind, who = view["awaiting"], view["to_act"]
        if kind == "over":
            return "The game is over."
        if kind == "chance":
            return "Cards are being drawn; the turn goes on in a moment."
        bid, pending = view["bid"], view["pending"]
        if who != seat:
            return waiting_for([who], _WAITING.get(kind, "to choose"))
        if kind == "play":
            first = " In your first turn no hero may go up a stairway." if view["first_turn"] else ""
            return (
                "Play cards to move walls or drop treasure, bid for a wonder or give one away, then end "
                f"your turn to draw 4 cards.{first}"
            )
        if kind == "bidding":
            wonder = SUIT_ONE[bid["suit"]]
            if bid["suit"] == TELEPORTER:
                return f"Add a set of cards to your bid for the teleporter (now {bid['total']}), or claim it."
            return f"Add a card to your bid for the {wonder} wonder (now {bid['total']}), or claim it."
        if kind == "response":
            wonder = SUIT_ONE[bid["suit"]]
            return (
                f"{seat_placeholder(bid['seat'])} bids {bid['total']} for your {wonder} wonder: block with "
                f"cards worth as much ({bid['blocked']} so far), or yield it."
            )
        if kind == "charging":
            if len(view.get("charge") or []) == len(SUITS):
                return "Choose the square for a new teleporter."
            return "Set aside one card of each suit to charge the teleporter."
        if kind == "crowd":
            return "Add a wall on any free edge (It's Getting Crowded)."
        if kind == "treasure":
            return f"Choose the treasure {_view_token(view, pending['token'])} runs to."
        if kind == "attack":
            return "Choose the square of the hero the giant charges."
        if kind == "rats":
            return f"Choose where rat group {pending['rats']} steps."
        if kind == "respawn":
            return f"Choose the stairway where rat group {pending['rats']} comes back."
        if kind == "teleport":
            token = _view_token(view, pending["token"])
            return f"Choose the teleporter {token} comes out of, or leave it where it is."
        return "Make your choice."

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

    def evaluate(self, state: State) -> list[float]:
        """An estimate of the final scores for the search bots: what has come up each stairway, plus
        each hero still in the maze shared out among the stairways by how near it is to them (by the
        walking distance, more when it sees one, more for seats owning a treasure wonder, which can
        lure it), scaled down by the danger it is in. The danger follows the monsters' own rules: a rat
        group walks to the one nearest hero it can reach (none while two on different squares are
        equally near), so it threatens that hero only, unless the swords there beat it, and sooner
        the fewer turns its walk takes; a giant that sees a hero charges it when the turn ends."""
        scores = [float(s) for s in _scores(state)]
        if state["phase"] == "over":
            return scores
        masks = _masks(state)
        true_los = _true(state)
        stairways = state["stairways"]
        active = set(_active(state))
        heroes = state["heroes"]
        floor = _on_floor(state)
        alive = dict.fromkeys(floor, 1.0)
        for rat in state["rats"]:
            if rat["square"] is None:
                continue
            board, local = split(rat["square"])
            reach = distances(local, masks[board])
            near = []
            for i in floor:
                hero_board, hero_local = split(heroes[i]["square"])
                if hero_board == board and hero_local in reach:
                    near.append((reach[hero_local], i))
            if not near:
                continue
            best = min(d for d, _ in near)
            targets = [i for d, i in near if d == best]
            if (
                len({heroes[i]["square"] for i in targets}) > 1
                or sum(heroes[i]["swords"] for i in targets) >= rat["size"]
            ):
                continue
            rounds = best / max(1, len(active))  # one step at the end of every player's turn
            for i in targets:
                alive[i] *= 1.0 - 0.8 / (1.0 + rounds)
        giants = [g["square"] for _, g in _giants(state)]
        lures = [1.0 + 0.5 * sum(state["wonders"][s] == seat for s in "DS") for seat in range(state["seats"])]
        for i in floor:
            hero = heroes[i]
            if any(_sees(g, hero["square"], masks, true_los) for g in giants):
                alive[i] *= 0.25
            value = POINTS_HERO + POINTS_JEWEL * hero["jewels"] + POINTS_SWORD * hero["swords"]
            board, local = split(hero["square"])
            reach = distances(local, masks[board])
            weights = []
            for seat, stair in enumerate(stairways):
                steps = reach.get(stair) if board == 0 else None
                weight = 0.02 if steps is None else 1.0 / (1.0 + steps) ** 2
                if steps is not None and _sees(hero["square"], stair, masks, true_los):
                    weight *= 3.0
                weights.append(weight * lures[seat] * (1.0 if seat in active else 0.5))
            total = sum(weights)
            for seat, weight in enumerate(weights):
                scores[seat] += 0.8 * value * alive[i] * weight / total
        return scores

    def balance_stats(self, state: State) -> dict[str, float]:
        """Counts for the balance benchmark: whether every score is 0 (a game nobody won anything in),
        the heroes lost and escaped, the rounds played and whether the stalemate rule ended it."""
        heroes = state["heroes"]
        return {
            "all_zero": float(not any(_scores(state))),
            "heroes_lost": float(sum(h["fate"] == "dead" for h in heroes)),
            "heroes_escaped": float(sum(h["fate"] == "escaped" for h in heroes)),
            "rounds": float(max(state["turns"])),
            "stalemate": float(str(state.get("end_reason") or "").startswith(f"{STALL_ROUNDS} full rounds")),
        }

    def skip(self, state: State, seat: int, rng: random.Random) -> tuple[State, list[Event]]:
        """A seat out of time: a response yields, a decision is made at random among its options, and a
        turn ends (an unfinished bid, or cards set aside for a teleporter, are lost to the discards)."""
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
        charge = new.get("charge")
        _drop_bid(new)
        if bid is not None:
            events.append(
                Event(kind="bid", text=f"The unfinished bid ({', '.join(bid['cards'])}) is discarded.")
            )
        if charge is not None:
            events.append(
                Event(
                    kind="charge",
                    text=f"The cards set aside for a teleporter ({', '.join(charge)}) are discarded.",
                )
            )
        new["agenda"] = ["draw", *_monster_agenda(new)]
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


# --- the opening check ----------------------------------------------------------------------------------
def opening_losses(state: State) -> list[int]:
    """The heroes (indices) that a monster can reach during the first round of the game in ``state``,
    a game that has not begun: every seat in turn ends its first turn without playing a card, and
    every choice of the monster movements that follow (which hero the giant charges, which way rats
    go) is tried. Nobody can bring a hero up a stairway in a first turn, so a hero lost in that round
    is lost before any seat could play for it. The engine's own moves are used, so the answer follows
    its rules exactly, variants included; the draws do not matter to monsters."""
    engine = Stairways()
    chance = random.Random(0)
    start = [h["fate"] for h in state["heroes"]]
    lost: set[int] = set()
    frontier = [state]
    for _ in range(len(_active(state))):
        ended: dict[str, State] = {}
        work = [engine.apply(s, s["current"], {"end": True})[0] for s in frontier if s["phase"] != "over"]
        while work:
            here = work.pop()
            lost.update(i for i, h in enumerate(here["heroes"]) if h["fate"] == "dead" and start[i] != "dead")
            if here["phase"] == "over":
                continue
            if engine.chance_pending(here):
                work.append(engine.resolve_chance(here, chance)[0])
                continue
            kind, seat = _awaiting(here)
            if kind == "play":
                # The next seat's turn: positions that differ only in the cards drawn are one.
                key = json.dumps([here["heroes"], here["giant"], here.get("giants"), here["rats"]])
                ended.setdefault(key, here)
                continue
            assert seat is not None
            work.extend(engine.apply(here, seat, move)[0] for move in engine.legal_moves(here, seat))
        frontier = list(ended.values())
    return sorted(lost)


def exposed_heroes(layout: dict[str, Any], seats: int, *, los: str = "row") -> list[int]:
    """The heroes (indices into ``layout["heroes"]``, further boards' after the first's) that a monster
    can reach before every seat has had a first turn and before the first seat's second (see
    ``opening_losses``); empty for a fair start. ``layout`` must be valid for ``seats``."""
    options = {"layout_json": json.dumps(layout), "los": los}
    return opening_losses(Stairways().new_state(seats=seats, options=options, rng=random.Random(0)))
