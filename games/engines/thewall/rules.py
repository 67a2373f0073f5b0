"""The Wall (seed 000): hex skirmish between the Night's Watch with Mance's Wildlings and the Others.

The rules digest with every decision and the notation is ``seeds/thewall.md``; the map is data in
``seeds/thewall/map.json`` (loaded by ``board.py``) and the stat lines are in ``units.py``.

How play runs inside the state: four leaders take turns in a fixed order (Jon Snow, the Great Other,
Mance Rayder, Waymar Royce), each seat commanding one or two of them. A leader's turn is up to four
unit turns; each is one move: a unit, an action and its targets. Every die is a chance step: an action
that needs dice only declares itself (``pending``) and ``resolve_chance`` rolls and settles it, and the
wandering Wildlings drift and spawn in a chance step at the start of Mance's turn.
"""

from __future__ import annotations

import math
import random
import re
from functools import lru_cache
from typing import Any, ClassVar

from games.engines.base import Engine, Event, IllegalMove, Move, Option, Preview, State, View, waiting_for
from games.engines.thewall import svg as svg_module
from games.engines.thewall.board import (
    ARRIVALS,
    CASTLE,
    CATAPULTS,
    CRANE,
    CUBE,
    DIRECTIONS,
    FIELD,
    FOREST,
    HELD_STEPS,
    HEX_SET,
    HORN,
    HUMAN,
    KEEP,
    KEEPS,
    MELEE_SOURCES,
    MOVES,
    NEIGHBOURS,
    ORDER,
    OTHER,
    OTHER_SPAWNS,
    SETUP,
    SPAWN,
    STEPS,
    TERRAIN,
    TOWARD,
    TRIANGLES,
    WALL,
    WANDER_SPAWNS,
    WANDERERS,
    WIGHT,
    ZONE,
    distance,
)
from games.engines.thewall.units import (
    GREAT,
    JON,
    KINDS,
    LEADER_NAMES,
    LEADERS,
    MANCE,
    MAX_TRUE_OTHERS,
    NIGHTS_WATCH,
    OTHERS,
    RAISED_LIFE,
    SIDE_NAMES,
    SIDE_OF,
    TRAIN_JON,
    TRAINED_BROTHERS,
    TRAINED_WILDLINGS,
    TRUE_OTHERS,
    WATCH,
    WAYMAR,
)

# Decision: the Watch's side holds if the Others have not won by the end of the last round (an option).
ROUNDS = {"20": "20 rounds", "12": "12 rounds (a short game)"}
UNIT_TURNS = 4
RECHARGE = 2 * len(LEADERS)  # ranging and catapults: not in the leader's next turn, again the one after
CONTROL: dict[int, dict[str, int]] = {
    2: {JON: 0, GREAT: 1, MANCE: 0, WAYMAR: 1},
    3: {JON: 0, GREAT: 1, MANCE: 2, WAYMAR: 1},
    4: {JON: 0, GREAT: 1, MANCE: 2, WAYMAR: 3},
}
SEAT_SIDE = (WATCH, OTHERS, WATCH, OTHERS)
ZONE_ROWS = frozenset(int(h[2:]) for h in ZONE)
WALL_ROW = int(HORN[2:]) - 1  # the row of the Wall and its keeps, just north of the Horn
# Decision: a Wight breaches the Wall by holding a place on or behind it through this many whole rounds.
BREACH_ROUNDS = 3
TARGET_ACTS = ("move", "range", "shoot", "scout", "sneak", "scale", "raise")
ATTACK_ACTS = ("attack", "sneak_attack", "teamup", "combo")
SOLO_ACTS = ("defend", "summon", "shriek", "horn")
ACT_WORDS = {"sneak_attack": "sneak", "teamup": "teamup", "combo": "combo"}
OPTION_TARGET = {
    "range": "opt-range",
    "shoot": "opt-shoot",
    "scout": "opt-scout",
    "sneak": "opt-sneak",
    "scale": "opt-scale",
    "raise": "opt-raise",
    "sneak_attack": "opt-sneak-attack",
    "teamup": "opt-teamup",
    "combo": "opt-combo",
    "defend": "opt-defend",
    "summon": "opt-summon",
    "shriek": "opt-shriek",
    "horn": "opt-horn",
}
DRIFT_GROUND = frozenset({FIELD, FOREST, CRANE, SPAWN})
# What the dice of a pending chance step are for, in the prompt above the board.
_DICE_FOR = {
    "attack": "for the attack ",
    "shoot": "for the arrows ",
    "catapult": "for the catapult ",
    "shriek": "for the Frozen Shriek ",
    "sneak": "for the sneak into the keep ",
}

MOVE_HINT = (
    "Moves: 1210-1311 (move), 1210-1312 range, 1210x1311 or 1210-1211x1311 (attack; add sneak, teamup "
    "or combo), 0909 shoot 0712, 0909 catapult 0711 0712 0811, 1210 defend, 0310 train ranger, "
    "0806 scout 0804, 1108 sneak 1109, 0808 scale 0809, 0405 raise 0406, 0301 summon, 0403 shriek, "
    "1110 horn, recruit, end."
)


# --- small helpers ------------------------------------------------------------------------------------
def _roll(rng: random.Random) -> int:
    return rng.randint(1, 6)


def _copy(state: State) -> State:
    """A copy deep enough that changing it never touches ``state`` (nested dicts are replaced, never
    changed in place)."""
    new = dict(state)
    new["options"] = dict(state["options"])
    new["control"] = dict(state["control"])
    new["used"] = list(state["used"])
    new["units"] = [dict(u) for u in state["units"]]
    new["corpses"] = [dict(c) for c in state["corpses"]]
    new["counters"] = dict(state["counters"])
    new["summons"] = list(state["summons"])
    new["catapults"] = dict(state["catapults"])
    new["horn_watch"] = list(state["horn_watch"])
    new["zone_watch"] = list(state["zone_watch"])
    new["eliminated"] = list(state["eliminated"])
    return new


def _leader(state: State) -> str:
    return LEADERS[state["leader"]]


def _category(unit: dict[str, Any]) -> str:
    return KINDS[unit["kind"]].category


def _side(unit: dict[str, Any]) -> str | None:
    leader = unit["leader"]
    return None if leader is None else SIDE_OF[leader]


def _unit(state: State, uid: int) -> dict[str, Any] | None:
    for unit in state["units"]:
        if unit["id"] == uid:
            return unit
    return None


def _at(state: State, hex_: str) -> dict[str, Any] | None:
    for unit in state["units"]:
        if unit["hex"] == hex_:
            return unit
    return None


def _corpse_at(state: State, hex_: str) -> dict[str, Any] | None:
    for corpse in state["corpses"]:
        if corpse["hex"] == hex_:
            return corpse
    return None


def _occupied(state: State) -> set[str]:
    return {u["hex"] for u in state["units"]} | {c["hex"] for c in state["corpses"]}


def _is_true_other(unit: dict[str, Any]) -> bool:
    return unit["kind"] in TRUE_OTHERS


def _human(unit: dict[str, Any]) -> bool:
    return _category(unit) == HUMAN


def _is_wanderer(unit: dict[str, Any]) -> bool:
    return unit["leader"] is None


def attack_of(unit: dict[str, Any]) -> int:
    return unit["att"] + (1 if unit.get("led") else 0)


def defence_of(unit: dict[str, Any], wall_up: bool) -> int:
    """Defence with terrain, defending, ranging or a failed sneak attack, and clinging to the Wall."""
    terrain = TERRAIN[unit["hex"]]
    category = _category(unit)
    value = unit["def"] + (1 if unit.get("led") else 0)
    human = category == HUMAN
    if (
        terrain == FOREST
        or (human and (terrain in (CASTLE, KEEP) or (terrain == WALL and wall_up)))
        or (not human and terrain == SPAWN)
    ):
        value += 1
    if unit.get("defend"):
        value += 1
    value -= unit.get("weak", 0)
    if "climb" in unit:
        value -= 1
    return value


def range_of(unit: dict[str, Any], wall_up: bool) -> int:
    """Archery range: only from atop the standing Wall, which adds one."""
    rng = KINDS[unit["kind"]].rng
    if not wall_up or TERRAIN[unit["hex"]] != WALL or _category(unit) != HUMAN or rng <= 0:
        return 0
    return rng + 1


def _name(unit: dict[str, Any]) -> str:
    return unit["name"]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# --- setup ----------------------------------------------------------------------------------------------
def _new_unit(state: State, kind: str, hex_: str, *, leader: str | None = None, name: str = "") -> dict:
    spec = KINDS[kind]
    if not name:
        count = state["counters"].get(kind, 0) + 1
        state["counters"][kind] = count
        unique = kind in ("jon", "sam", "mance", "great_other", "waymar")
        name = spec.label if unique else f"{spec.label} {count}"
    unit = {
        "id": state["next_id"],
        "kind": kind,
        "name": name,
        "leader": spec.leader if leader is None and kind != "untrained" else leader,
        "hex": hex_,
        "att": spec.att,
        "def": spec.dfn,
        "mov": spec.mov,
        "life": spec.life,
    }
    # Marks, present only while they apply (range, full life and being a brother come from the kind):
    #   disabled: the leader turn it was disabled in (it sits out its leader's next turn)
    #   defend: True until its leader's next turn; weak: -1 defence each (ranging, a failed sneak
    #   attack) until then; ranged: the leader turn of its last ranging; climb: {"to": wall hex,
    #   "turn": started} while scaling the Wall; tag: marked by a ranging party (may not sneak);
    #   led: a wandering group led by the Watch (+1 attack and defence).
    state["next_id"] += 1
    state["units"].append(unit)
    return unit


# --- whose turn -------------------------------------------------------------------------------------------
def _available(state: State) -> list[dict[str, Any]]:
    """Units of the leader to move that may still take a unit turn."""
    leader = _leader(state)
    used = state["used"]
    return [
        u for u in state["units"] if u["leader"] == leader and "disabled" not in u and u["id"] not in used
    ]


def _can_recruit(state: State) -> bool:
    return _leader(state) == JON and state["spent"] == 0 and state["recruits"] == 0


def _end(state: State, winner: str, reason: str, events: list[Event]) -> None:
    state["phase"] = "over"
    state["winner"] = winner
    state["end_reason"] = reason
    state["pending"] = None
    events.append(
        Event(
            kind="end",
            text=f"Game over: {reason}. {SIDE_NAMES[winner][0].upper()}{SIDE_NAMES[winner][1:]} win.",
            data={"winner": winner, "reason": reason},
        )
    )


def _check_slain(state: State, events: list[Event]) -> None:
    if state["phase"] != "over" and not any(_is_true_other(u) for u in state["units"]):
        _end(state, WATCH, "every true Other has been slain", events)


def _settle(state: State, events: list[Event]) -> None:
    """After an action or a chance step: acquisitions, then end the leader's turn when nothing is left
    to do in it, and start the next ones until someone has a choice or dice are due."""
    _acquire(state, events)
    _check_slain(state, events)
    while state["phase"] != "over" and state["pending"] is None:
        if state["spent"] < UNIT_TURNS and (_available(state) or _can_recruit(state)):
            return
        _end_turn(state, events)


def _breaching(state: State) -> set[int]:
    """Ids of the Wights standing on the Wall (its keeps included) or south of it while it stands."""
    if not state["wall_up"]:
        return set()
    return {u["id"] for u in state["units"] if u["leader"] == WAYMAR and int(u["hex"][2:]) >= WALL_ROW}


def _end_turn(state: State, events: list[Event]) -> None:
    leader = _leader(state)
    turn = state["turn"]
    for unit in state["units"]:
        if unit["leader"] == leader and unit.get("disabled", turn) < turn:
            del unit["disabled"]
    if leader == WAYMAR:
        state["horn_watch"] = [
            u["id"] for u in state["units"] if u["leader"] == WAYMAR and u["hex"] == HORN and state["wall_up"]
        ]
        # A Wight counts the ends of Waymar's turns it has stood on or behind the Wall in a row; seen at
        # BREACH_ROUNDS + 1 of them, it has held a breach through that many whole rounds of the Watch's
        # side, and the Wall can no longer hold at the cap.
        inside = _breaching(state)
        holder = None
        for unit in state["units"]:
            if unit["id"] not in inside:
                unit.pop("inside", None)
                continue
            unit["inside"] = unit.get("inside", 0) + 1
            if unit["inside"] > BREACH_ROUNDS and holder is None:
                holder = unit
        if holder is not None and not state.get("breached"):
            state["breached"] = state["round"]
            events.append(
                Event(
                    kind="breach",
                    text=f"{_name(holder)} has held {holder['hex']} on or behind the Wall for "
                    f"{BREACH_ROUNDS} full rounds: "
                    "the Wall is breached. Unless every true Other is slain first, the Others win when the "
                    "last round ends.",
                    data={"round": state["round"], "hex": holder["hex"]},
                )
            )
    if leader == GREAT:
        state["zone_watch"] = (
            []
            if state["wall_up"]
            else [u["id"] for u in state["units"] if _is_true_other(u) and u["hex"] in ZONE]
        )
    events.append(
        Event(
            kind="end_turn", text=f"{LEADER_NAMES[leader][0].upper()}{LEADER_NAMES[leader][1:]}'s turn ends."
        )
    )
    nxt = (state["leader"] + 1) % len(LEADERS)
    if nxt == 0:
        rounds = int(state["options"]["rounds"])
        if state["round"] >= rounds:
            if not state["wall_up"]:
                _end(state, OTHERS, f"the Wall is down after {rounds} rounds", events)
            elif state.get("breached"):
                breach = state["breached"]
                held = f"the Wall was breached in round {breach} and has not held {rounds} rounds"
                _end(state, OTHERS, held, events)
            else:
                _end(state, WATCH, f"the Wall has held for {rounds} rounds", events)
            return
        state["round"] += 1
    state["leader"] = nxt
    state["turn"] += 1
    state["used"] = []
    state["spent"] = 0
    _begin_turn(state, events)


def _begin_turn(state: State, events: list[Event]) -> None:
    leader = _leader(state)
    for unit in state["units"]:
        if unit["leader"] == leader:
            unit.pop("defend", None)
            unit.pop("weak", None)
    events.append(
        Event(
            kind="turn",
            text=f"Round {state['round']}: {LEADER_NAMES[leader]}'s turn.",
            data={"round": state["round"], "leader": leader},
        )
    )
    if leader == JON and state["recruits"]:
        _arrive_recruits(state, events)
    elif leader == GREAT:
        alive = {u["id"] for u in state["units"] if _is_true_other(u) and u["hex"] in ZONE}
        if not state["wall_up"] and alive & set(state["zone_watch"]):
            _end(state, OTHERS, "a true Other has held the south for a full turn after the Wall fell", events)
            return
        if state["summons"]:
            _arrive_summons(state, events)
    elif leader == MANCE:
        spawning = state["round"] % 2 == 0 and state["supply"] > 0
        if spawning or any(_is_wanderer(u) for u in state["units"]):
            state["pending"] = {"kind": "wander", "spawn": spawning}


def _arrive_recruits(state: State, events: list[Event]) -> None:
    taken = _occupied(state)
    placed = []
    for hex_ in ARRIVALS:
        if len(placed) == state["recruits"]:
            break
        if hex_ not in taken:
            placed.append(_new_unit(state, "brother", hex_))
    text = ", ".join(f"{u['name']} on {u['hex']}" for u in placed) or "nobody: every castle hex is taken"
    events.append(
        Event(
            kind="recruits",
            text=f"Reinforcements from the south arrive: {text}.",
            data={"count": len(placed)},
        )
    )
    state["recruits"] = 0


def _arrive_summons(state: State, events: list[Event]) -> None:
    for spawn in state["summons"]:
        if sum(1 for u in state["units"] if _is_true_other(u)) >= MAX_TRUE_OTHERS:
            break
        taken = _occupied(state)
        room = [spawn, *(n for n, _, _ in MOVES[OTHER][state["wall_up"]][spawn])]
        where = next((h for h in room if h not in taken), None)
        if where is None:
            events.append(Event(kind="summon", text=f"The summoning at {spawn} fails: there is no room."))
            continue
        unit = _new_unit(state, "white_walker", where)
        events.append(
            Event(kind="summon", text=f"{unit['name']} answers the summons on {where}.", data={"hex": where})
        )
    state["summons"] = []


# --- wandering Wildlings -----------------------------------------------------------------------------------
def _acquire(state: State, events: list[Event]) -> None:
    """Wandering groups join Mance beside a trained Wildling, or the Watch beside a brother; a group the
    Watch leads joins Mance as soon as it stands beside a trained Wildling."""
    here = {u["hex"]: u for u in state["units"]}
    for unit in state["units"]:
        if unit["kind"] != "untrained" or not (unit["leader"] is None or unit.get("led")):
            continue
        near = [here[n] for n in NEIGHBOURS[unit["hex"]] if n in here]
        if any(n["leader"] == MANCE and n["kind"] in TRAINED_WILDLINGS for n in near):
            before = unit["leader"]
            unit["leader"] = MANCE
            unit.pop("led", None)
            what = "leave the Watch and join" if before == JON else "join"
            events.append(
                Event(
                    kind="acquire",
                    text=f"{unit['name']} on {unit['hex']} {what} Mance Rayder.",
                    data={"unit": unit["id"], "leader": MANCE},
                )
            )
        elif unit["leader"] is None and any(n["leader"] == JON and n["kind"] in NIGHTS_WATCH for n in near):
            unit["leader"] = JON
            unit["led"] = True
            events.append(
                Event(
                    kind="acquire",
                    text=f"{unit['name']} on {unit['hex']} follow the Night's Watch (+1 attack and defence).",
                    data={"unit": unit["id"], "leader": JON},
                )
            )


def _drift_ok(state: State, hex_: str | None, taken: set[str]) -> bool:
    if hex_ is None or hex_ in taken:
        return False
    terrain = TERRAIN[hex_]
    return terrain in DRIFT_GROUND or (not state["wall_up"] and terrain in (WALL, KEEP, CASTLE))


def _wander(state: State, rng: random.Random, events: list[Event]) -> None:
    taken = _occupied(state)
    for unit in state["units"]:
        if not _is_wanderer(unit):
            continue
        die = _roll(rng)
        target = TOWARD[unit["hex"]][die - 1]
        way = DIRECTIONS[die - 1]
        if _drift_ok(state, target, taken):
            taken.discard(unit["hex"])
            taken.add(target)
            text = f"{unit['name']} roll {die} ({way}) and drift from {unit['hex']} to {target}."
            unit["hex"] = target
        else:
            text = f"{unit['name']} on {unit['hex']} roll {die} ({way}): no way there, they stay."
        events.append(Event(kind="drift", text=text, data={"unit": unit["id"], "die": die}))
    if not state["pending"]["spawn"]:
        return
    scout = state["scout"]
    state["scout"] = None
    where = None
    if scout is not None and _unit(state, scout["unit"]) is not None:
        die = _roll(rng)
        ok = die > 2 and scout["spawn"] not in taken
        events.append(
            Event(
                kind="scout",
                text=f"Scout roll {die}: "
                + (f"the group appears where the scout watched ({scout['spawn']})." if ok else "no use."),
                data={"die": die, "success": ok},
            )
        )
        if ok:
            where = scout["spawn"]
    if where is None:
        die = _roll(rng)
        spawn = WANDER_SPAWNS[die - 1]
        where = spawn if spawn not in taken else None
        if where is None:
            where = next((n for n in NEIGHBOURS[spawn] if _drift_ok(state, n, taken)), None)
        text = f"Spawn roll {die}: spawn point {spawn}" + (
            "."
            if where == spawn
            else (f" is taken; they appear on {where}." if where else " and all around it are taken.")
        )
        events.append(Event(kind="spawn_roll", text=text, data={"die": die, "spawn": spawn}))
    if where is None:
        events.append(Event(kind="spawn", text="No wandering Wildlings can appear this time."))
        return
    state["supply"] -= 1
    unit = _new_unit(
        state, "untrained", where, leader=None, name=f"Wandering Wildlings {WANDERERS - state['supply']}"
    )
    events.append(
        Event(
            kind="spawn",
            text=f"{unit['name']} appear on {where} ({_plural(state['supply'], 'group')} left).",
            data={"hex": where},
        )
    )


# --- movement ----------------------------------------------------------------------------------------------
@lru_cache(maxsize=4096)
def _reach(
    start: str, budget: int, category: str, wall_up: bool, blocked: frozenset[str], open_keeps: frozenset[str]
) -> dict[str, int]:
    """Cheapest costs from ``start`` within ``budget`` (Dijkstra over steps of 1 or 2 points). Cached:
    the validation of a move and the list of moves ask the same questions of the same position."""
    table = STEPS[category][wall_up]
    held = HELD_STEPS[wall_up] if open_keeps else None
    best = {start: 0}
    buckets: list[list[str]] = [[start]] + [[] for _ in range(budget)]
    get = best.get
    for cost in range(budget):
        for h in buckets[cost]:
            if best[h] != cost:
                continue
            edges = table[h]
            if held is not None and held[h]:
                edges = edges + tuple(e for e in held[h] if e[0] in open_keeps)
            for n, step in edges:
                total = cost + step
                if total > budget or n in blocked:
                    continue
                if total < get(n, 99):
                    best[n] = total
                    buckets[total].append(n)
    return best


class Context:
    """Who stands where, computed once per call: hex -> unit, corpses, and the keeps Wights hold."""

    __slots__ = ("_blocked", "_targets", "corpses", "here", "open_keeps", "state", "wall_up")

    def __init__(self, state: State) -> None:
        self.state = state
        self.wall_up: bool = state["wall_up"]
        self.here: dict[str, dict[str, Any]] = {u["hex"]: u for u in state["units"]}
        self.corpses: dict[str, dict[str, Any]] = {c["hex"]: c for c in state["corpses"]}
        self.open_keeps = frozenset(k for k in KEEPS if k in self.here and _category(self.here[k]) == WIGHT)
        self._blocked: dict[str | None, frozenset[str]] = {}
        self._targets: dict[tuple[str | None, bool], list[tuple[str, bool]]] = {}

    def blocked(self, side: str | None) -> frozenset[str]:
        """Hexes a unit of ``side`` may not pass: corpses, foes and wandering groups."""
        found = self._blocked.get(side)
        if found is None:
            found = frozenset(self.corpses) | frozenset(
                h for h, u in self.here.items() if u["leader"] is None or SIDE_OF[u["leader"]] != side
            )
            self._blocked[side] = found
        return found

    def reach(self, unit: dict[str, Any], budget: int) -> dict[str, int]:
        """Hexes reachable within ``budget`` points (the start at 0), passing friends, never foes or
        corpses; friends' hexes are in the result for passing only. Shared: never change the result."""
        if budget <= 0:
            return {unit["hex"]: 0}
        category = _category(unit)
        keeps = self.open_keeps if category == WIGHT else frozenset()
        return _reach(unit["hex"], budget, category, self.wall_up, self.blocked(_side(unit)), keeps)

    def targets(self, side: str | None, human: bool) -> list[tuple[str, bool]]:
        """Hexes a unit of ``side`` may attack, in reading order, each with whether it is a corpse
        (only humans attack corpses)."""
        key = (side, human)
        found = self._targets.get(key)
        if found is None:
            found = [
                (h, False)
                for h, u in self.here.items()
                if (u["leader"] is None and side == OTHERS)
                or (u["leader"] is not None and SIDE_OF[u["leader"]] != side)
            ]
            if human:
                found += [(h, True) for h in self.corpses]
            found.sort()
            self._targets[key] = found
        return found

    def free(self, hex_: str) -> bool:
        return hex_ not in self.here and hex_ not in self.corpses


def _enemy(unit: dict[str, Any], other: dict[str, Any]) -> bool:
    """The Watch's side fights the Others; the Others also fall on wandering groups nobody leads."""
    side = _side(unit)
    if other["leader"] is None:
        return side == OTHERS
    return SIDE_OF[other["leader"]] != side


# --- legal moves -------------------------------------------------------------------------------------------
def _unit_moves(ctx: Context, unit: dict[str, Any], only: str | None = None) -> list[Move]:
    """Every unit turn ``unit`` may take now, in a fixed order; ``only`` limits them to one action
    (``apply`` checks a move against those alone)."""
    state = ctx.state
    at = unit["hex"]
    kind = unit["kind"]
    leader = unit["leader"]
    category = _category(unit)
    wall_up = ctx.wall_up
    here = ctx.here
    moves: list[Move] = []
    if only is None or only == "defend":
        moves.append({"unit": at, "act": "defend"})
    budget = max(unit["mov"], 1) if category == WIGHT else unit["mov"]
    ranging = (
        leader == JON
        and kind in NIGHTS_WATCH
        and state["turn"] >= unit.get("ranged", -RECHARGE) + RECHARGE
        and (only is None or only == "range")
    )
    walking = only is None or only == "move" or only in ATTACK_ACTS
    if ranging or walking:
        # One search serves both: costs are exact, so the plain move is the part within budget.
        reach = ctx.reach(unit, budget + 1 if ranging else budget)
        free = sorted(h for h in reach if h not in here)
        if walking:
            dests = [h for h in free if reach[h] <= budget]
            if only is None or only == "move":
                moves.extend({"unit": at, "act": "move", "to": d} for d in dests)
        if ranging:
            moves.extend({"unit": at, "act": "range", "to": d} for d in free)
        if walking and only != "move":
            moves.extend(_attacks(ctx, unit, reach, budget, only))

    if only is None or only in ("shoot", "catapult"):
        reach_shot = range_of(unit, wall_up)
        if reach_shot and (only is None or only == "shoot"):
            foes = [
                u["hex"]
                for u in state["units"]
                if u["leader"] is not None
                and SIDE_OF[u["leader"]] == OTHERS
                and 1 <= distance(at, u["hex"]) <= reach_shot
            ]
            moves.extend({"unit": at, "act": "shoot", "to": h} for h in sorted(foes))
        if reach_shot and kind in TRAINED_BROTHERS and leader == JON and at in state["catapults"]:
            fired = state["catapults"][at]
            if (fired is None or state["turn"] >= fired + RECHARGE) and only in (None, "catapult"):
                moves.extend(
                    {"unit": at, "act": "catapult", "area": list(tri)} for tri in _catapult_areas(ctx, unit)
                )

    if only is None or only == "train":
        if kind == "brother" and TERRAIN[at] in (CASTLE, KEEP):
            moves.extend({"unit": at, "act": "train", "as": k} for k in TRAIN_JON)
        if kind == "untrained" and leader == MANCE:
            moves.append({"unit": at, "act": "train", "as": "wildling"})
    if (only is None or only == "scout") and kind in TRAINED_WILDLINGS and state["supply"] > 0:
        spawns = [n for n in NEIGHBOURS[at] if n in WANDER_SET]
        moves.extend({"unit": at, "act": "scout", "to": h} for h in sorted(spawns))

    if category == WIGHT and wall_up and (only is None or only in ("scale", "sneak", "horn")):
        moves.extend(_wight_specials(ctx, unit))
    if category == OTHER and (only is None or only in ("raise", "summon", "shriek")):
        moves.extend(_other_specials(ctx, unit))
    return moves


def _attacks(
    ctx: Context, unit: dict[str, Any], reach: dict[str, int], budget: int, only: str | None
) -> list[Move]:
    """Melee: stand somewhere with one movement point left, then step into the foe's hex. A sneak
    attack costs one more point; teamups and combinations need two unit turns left and a helper."""
    state = ctx.state
    at = unit["hex"]
    leader = unit["leader"]
    category = _category(unit)
    here = ctx.here
    human = category == HUMAN
    combo = None
    if state["spent"] <= UNIT_TURNS - 2:
        combo = "teamup" if leader == MANCE else "combo" if leader == WAYMAR else None
    sneaky = leader == MANCE and only in (None, "sneak_attack")
    plain = only in (None, "attack")
    if only is not None and only != combo:
        combo = None
    out: list[Move] = []
    sources = MELEE_SOURCES[category][ctx.wall_up]
    corpses = ctx.corpses
    ax, ay, az = CUBE[at]
    for target, is_corpse in ctx.targets(_side(unit), human):
        if is_corpse and not plain:
            continue
        bx, by, bz = CUBE[target]
        if ax - bx > budget or bx - ax > budget or ay - by > budget or by - ay > budget or az - bz > budget:
            continue  # farther than ``budget`` hexes (the third cube difference follows from these)
        helpers = combo is not None and not is_corpse and bool(_helpers(ctx, unit, target))
        for s in sources[target]:
            if s == at:
                cost = 0
            else:
                cost = reach.get(s, 99)
                if cost > budget - 1 or s in here or s in corpses:
                    continue
            if plain:
                out.append({"unit": at, "act": "attack", "via": s, "to": target})
            if is_corpse:
                continue
            if sneaky and cost <= budget - 2:
                out.append({"unit": at, "act": "sneak_attack", "via": s, "to": target})
            if helpers:
                out.append({"unit": at, "act": combo, "via": s, "to": target})
    return out


WANDER_SET = frozenset(WANDER_SPAWNS)


def _helpers(ctx: Context, unit: dict[str, Any], target: str) -> list[dict[str, Any]]:
    """Friends of the same leader around ``target`` not yet used this turn (the attacker excluded)."""
    used = ctx.state["used"]
    out = []
    for n in NEIGHBOURS[target]:
        friend = ctx.here.get(n)
        if (
            friend is not None
            and friend is not unit
            and friend["leader"] == unit["leader"]
            and "disabled" not in friend
            and friend["id"] not in used
        ):
            out.append(friend)
    return out


def _catapult_areas(ctx: Context, unit: dict[str, Any]) -> list[tuple[str, str, str]]:
    at = unit["hex"]
    reach = range_of(unit, ctx.wall_up) + 1
    areas: set[tuple[str, str, str]] = set()
    for foe in ctx.state["units"]:
        if foe["leader"] is None or SIDE_OF[foe["leader"]] != OTHERS or distance(at, foe["hex"]) > reach:
            continue
        for tri in TRIANGLES[foe["hex"]]:
            if at not in tri and all(distance(at, h) <= reach for h in tri):
                areas.add(tri)
    return sorted(areas, key=lambda t: (ORDER[t[0]], ORDER[t[1]], ORDER[t[2]]))


def _wight_specials(ctx: Context, unit: dict[str, Any]) -> list[Move]:
    state = ctx.state
    at = unit["hex"]
    out: list[Move] = []
    climb = unit.get("climb")
    if climb is not None:
        if climb["turn"] < state["turn"] and ctx.free(climb["to"]):
            out.append({"unit": at, "act": "scale", "to": climb["to"]})
    elif TERRAIN[at] not in (WALL, KEEP):
        walls = [n for n in NEIGHBOURS[at] if TERRAIN[n] == WALL and ctx.free(n)]
        out.extend({"unit": at, "act": "scale", "to": w} for w in walls)
    if (
        KINDS[unit["kind"]].brother
        and not unit.get("tag")
        and unit["life"] == KINDS[unit["kind"]].life
        and TERRAIN[at] not in (CASTLE, WALL)
    ):
        for keep in NEIGHBOURS[at]:
            if TERRAIN[keep] != KEEP or keep in ctx.corpses:
                continue
            guard = ctx.here.get(keep)
            if guard is None or _category(guard) == HUMAN:
                out.append({"unit": at, "act": "sneak", "to": keep})
    if unit["id"] in state["horn_watch"] and at == HORN:
        out.append({"unit": at, "act": "horn"})
    return out


def _other_specials(ctx: Context, unit: dict[str, Any]) -> list[Move]:
    state = ctx.state
    at = unit["hex"]
    out: list[Move] = []
    turn = state["turn"]
    for n in NEIGHBOURS[at]:
        corpse = ctx.corpses.get(n)
        if corpse is not None and corpse["turn"] < turn:
            out.append({"unit": at, "act": "raise", "to": n})
    if at in OTHER_SPAWNS:
        count = sum(1 for u in state["units"] if _is_true_other(u)) + len(state["summons"])
        if count < MAX_TRUE_OTHERS:
            out.append({"unit": at, "act": "summon"})
    near = sum(
        1
        for n in NEIGHBOURS[at]
        if (u := ctx.here.get(n)) is not None and u["leader"] is not None and SIDE_OF[u["leader"]] == WATCH
    )
    if near >= 2:
        out.append({"unit": at, "act": "shriek"})
    return out


# --- notation ----------------------------------------------------------------------------------------------
_HEX = r"(\d{4})"
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("end", re.compile(r"end(?: of turn| turn)?|pass")),
    ("recruit", re.compile(r"recruit|reinforce(?:ments)?")),
    ("attack", re.compile(rf"{_HEX}(?:-{_HEX})?x{_HEX}(?: (sneak|teamup|combo))?")),
    ("move", re.compile(rf"{_HEX}-{_HEX}(?: (range|ranging))?")),
    ("catapult", re.compile(rf"{_HEX} catapult {_HEX} {_HEX} {_HEX}")),
    ("target", re.compile(rf"{_HEX} (shoot|scout|sneak|scale|raise) {_HEX}")),
    ("train", re.compile(rf"{_HEX} train (ranger|archer|wildling)")),
    ("solo", re.compile(rf"{_HEX} (defend|summon|shriek|horn)")),
)


def _hex(text: str) -> str:
    if text not in HEX_SET:
        raise IllegalMove(f"There is no hex {text} on the map (columns 01-21, rows 01-16).")
    return text


def _shape(move: Any) -> str:
    """The kind of a well-formed move; anything else is refused with a reason."""
    if isinstance(move, dict):
        keys = set(move)
        if keys == {"end"} and move["end"] is True:
            return "end"
        if keys == {"recruit"} and move["recruit"] is True:
            return "recruit"
        act = move.get("act")
        unit = move.get("unit")
        if isinstance(unit, str) and unit in HEX_SET and isinstance(act, str):
            if act in SOLO_ACTS and keys == {"unit", "act"}:
                return act
            if act in TARGET_ACTS and keys == {"unit", "act", "to"} and move["to"] in HEX_SET:
                return act
            if (
                act in ATTACK_ACTS
                and keys == {"unit", "act", "via", "to"}
                and move["via"] in HEX_SET
                and move["to"] in HEX_SET
            ):
                return act
            if (
                act == "train"
                and keys == {"unit", "act", "as"}
                and move["as"] in ("ranger", "archer", "wildling")
            ):
                return act
            area = move.get("area")
            if (
                act == "catapult"
                and keys == {"unit", "act", "area"}
                and isinstance(area, list)
                and len(area) == 3
                and all(isinstance(h, str) and h in HEX_SET for h in area)
            ):
                return act
    raise IllegalMove(f"That is not a move of The Wall. {MOVE_HINT}")


# --- the engine ---------------------------------------------------------------------------------------------
class TheWall(Engine):
    slug = "thewall"
    title = "The Wall"
    min_players = 2
    max_players = 4
    notation_example = "1210-1311 (move), 1210-1211x1311 (move, then attack), 0909 shoot 0712, end"
    move_fields: ClassVar[dict[str, type | tuple[type, ...]]] = {
        **dict.fromkeys(("unit", "act", "to", "via", "as"), str),
        "area": list,
        "end": bool,
        "recruit": bool,
    }
    malformed_move = f"That is not a move of The Wall. {MOVE_HINT}"
    options: ClassVar[dict[str, Option]] = {
        "rounds": Option(label="Length (the Wall holds after)", choices=dict(ROUNDS), default="20"),
    }
    svg = svg_module

    # --- setup -------------------------------------------------------------------------------------
    def new_state(self, *, seats: int, options: dict[str, str], rng: random.Random) -> State:
        resolved = self.resolve_options(options, seats=seats)
        state: State = {
            "seats": seats,
            "options": resolved,
            "control": dict(CONTROL[seats]),
            "phase": "play",
            "round": 1,
            "turn": 1,
            "leader": 0,
            "used": [],
            "spent": 0,
            "units": [],
            "corpses": [],
            "next_id": 1,
            "counters": {},
            "pending": None,
            "supply": WANDERERS,
            "scout": None,
            "recruits": 0,
            "summons": [],
            "catapults": dict.fromkeys(CATAPULTS),
            "wall_up": True,
            "horn_watch": [],
            "breached": None,
            "zone_watch": [],
            "winner": None,
            "end_reason": None,
            "eliminated": [],
            "last": None,
        }
        for piece in SETUP:
            _new_unit(state, piece["kind"], piece["hex"])
        return state

    # --- whose input is awaited ---------------------------------------------------------------------
    def actors(self, state: State) -> frozenset[int]:
        if state["phase"] == "over" or state["pending"] is not None:
            return frozenset()
        return frozenset({state["control"][_leader(state)]})

    def chance_pending(self, state: State) -> bool:
        return state["phase"] != "over" and state["pending"] is not None

    def resolve_chance(self, state: State, rng: random.Random) -> tuple[State, list[Event]]:
        if not self.chance_pending(state):
            raise IllegalMove("No chance step is pending.")
        new = _copy(state)
        events: list[Event] = []
        pending = new["pending"]
        kind = pending["kind"]
        if kind == "wander":
            _wander(new, rng, events)
        elif kind == "attack":
            _resolve_attack(new, pending, rng, events)
        elif kind == "shoot":
            _resolve_shoot(new, pending, rng, events)
        elif kind == "catapult":
            _resolve_catapult(new, pending, rng, events)
        elif kind == "shriek":
            _resolve_shriek(new, pending, rng, events)
        else:
            _resolve_sneak(new, pending, rng, events)
        dice = [e.text for e in events if e.data.get("dice")]
        if dice:
            new["last"] = {"turn": new["turn"], "text": " ".join(dice)}
        if new["phase"] != "over":
            new["pending"] = None
            _settle(new, events)
        return new, events

    # --- moves --------------------------------------------------------------------------------------
    def legal_moves(self, state: State, seat: int) -> list[Move]:
        if seat not in self.actors(state):
            return []
        ctx = Context(state)
        moves: list[Move] = []
        for unit in sorted(_available(state), key=lambda u: u["hex"]):
            moves.extend(_unit_moves(ctx, unit))
        if _can_recruit(state):
            moves.append({"recruit": True})
        moves.append({"end": True})
        return moves

    def apply(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        return self._apply(state, seat, move, listed=False)

    def apply_listed(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        return self._apply(state, seat, move, listed=True)

    def _apply(self, state: State, seat: int, move: Move, *, listed: bool) -> tuple[State, list[Event]]:
        """``listed``: the move comes from ``legal_moves`` (see Engine.apply_listed), so listing its
        unit's moves to find it, a quarter of the search bots' time, is skipped."""
        if state["phase"] == "over":
            raise IllegalMove("The game is over.")
        if self.chance_pending(state):
            raise IllegalMove("Wait: the dice are being rolled.")
        if seat not in self.actors(state):
            raise IllegalMove("It is not your turn.")
        shape = _shape(move)
        leader = _leader(state)
        new = _copy(state)
        events: list[Event] = []
        if shape == "end":
            events.append(Event(kind="pass", text=f"{LEADER_NAMES[leader]} ends the turn early."))
            _end_turn(new, events)
            _settle(new, events)
            return new, events
        if shape == "recruit":
            if not _can_recruit(state):
                raise IllegalMove("Only Jon Snow may seek reinforcements, and only as his whole turn.")
            new["recruits"] = 2
            events.append(
                Event(
                    kind="recruit",
                    text="Jon Snow spends his turn seeking reinforcements: two untrained brothers will "
                    "arrive at the start of his next turn.",
                )
            )
            _end_turn(new, events)
            _settle(new, events)
            return new, events
        unit = _at(state, move["unit"])
        if unit is None or unit["leader"] != leader:
            raise IllegalMove(f"{LEADER_NAMES[leader]} has no unit on {move['unit']}.")
        if unit["id"] in state["used"]:
            raise IllegalMove(f"{unit['name']} has already been used this turn.")
        if "disabled" in unit:
            raise IllegalMove(f"{unit['name']} is disabled this turn.")
        if not listed and move not in _unit_moves(Context(state), unit, only=shape):
            raise IllegalMove(f"{unit['name']} cannot do that: {self.format_move(move)} is not legal now.")
        _do(new, move, shape, events)
        _settle(new, events)
        return new, events

    def parse_move(self, text: str) -> Move:
        if not isinstance(text, str):
            raise IllegalMove(MOVE_HINT)
        cleaned = " ".join(text.strip().lower().split())
        for kind, regex in _PATTERNS:
            m = regex.fullmatch(cleaned)
            if m is None:
                continue
            if kind == "end":
                return {"end": True}
            if kind == "recruit":
                return {"recruit": True}
            if kind == "attack":
                at = _hex(m[1])
                acts = {None: "attack", "sneak": "sneak_attack", "teamup": "teamup", "combo": "combo"}
                return {"unit": at, "act": acts[m[4]], "via": _hex(m[2]) if m[2] else at, "to": _hex(m[3])}
            if kind == "move":
                return {"unit": _hex(m[1]), "act": "range" if m[3] else "move", "to": _hex(m[2])}
            if kind == "catapult":
                return {"unit": _hex(m[1]), "act": "catapult", "area": [_hex(m[2]), _hex(m[3]), _hex(m[4])]}
            if kind == "target":
                return {"unit": _hex(m[1]), "act": m[2], "to": _hex(m[3])}
            if kind == "train":
                return {"unit": _hex(m[1]), "act": "train", "as": m[2]}
            return {"unit": _hex(m[1]), "act": m[2]}
        raise IllegalMove(f"{text.strip()!r} is not a move. {MOVE_HINT}")

    def format_move(self, move: Move) -> str:
        shape = _shape(move)
        if shape in ("end", "recruit"):
            return shape
        at = move["unit"]
        if shape == "move":
            return f"{at}-{move['to']}"
        if shape == "range":
            return f"{at}-{move['to']} range"
        if shape in ATTACK_ACTS:
            via = "" if move["via"] == at else f"-{move['via']}"
            word = ACT_WORDS.get(shape)
            return f"{at}{via}x{move['to']}" + (f" {word}" if word else "")
        if shape == "catapult":
            return f"{at} catapult {' '.join(move['area'])}"
        if shape == "train":
            return f"{at} train {move['as']}"
        if shape in TARGET_ACTS:
            return f"{at} {shape} {move['to']}"
        return f"{at} {shape}"

    def click_path(self, move: Move) -> list[str]:
        shape = _shape(move)
        if shape == "end":
            return ["end"]
        if shape == "recruit":
            return ["opt-recruit"]
        at = f"h{move['unit']}"
        if shape == "move":
            return [at, f"h{move['to']}"]
        if shape in ATTACK_ACTS:
            path = [at] if move["via"] == move["unit"] else [at, f"h{move['via']}"]
            path.append(f"h{move['to']}")
            if shape != "attack":
                path.append(OPTION_TARGET[shape])
            return path
        if shape == "catapult":
            return [at, "opt-catapult", *(f"h{h}" for h in move["area"])]
        if shape == "train":
            return [at, f"opt-train-{move['as']}"]
        if shape in TARGET_ACTS:
            return [at, f"h{move['to']}", OPTION_TARGET[shape]]
        return [at, OPTION_TARGET[shape]]

    def move_preview(self, view: View, seat: int, move: Move) -> list[Preview]:
        shape = _shape(move)
        if shape in ("end", "recruit"):
            return []
        at = f"h{move['unit']}"
        # The action's own words, as on its button (none for a plain move or attack).
        button = f"opt-train-{move['as']}" if shape == "train" else OPTION_TARGET.get(shape, f"opt-{shape}")
        words = dict(svg_module.BUTTONS).get(button, "")
        shapes: list[Preview] = []
        if shape in ATTACK_ACTS:
            via, to = f"h{move['via']}", f"h{move['to']}"
            if via != at:
                shapes.append({"draw": "ghost", "from": at, "to": via})
            shapes += [{"draw": "arrow", "from": via, "to": to}, {"draw": "ring", "at": to}]
            if words:
                shapes.append({"draw": "label", "at": to, "text": words})
            return shapes
        if shape == "catapult":
            shapes = [{"draw": "ring", "at": f"h{h}"} for h in move["area"]]
            return [*shapes, {"draw": "label", "at": at, "text": words}] if words else shapes
        if shape not in TARGET_ACTS:  # defend, train, summon, shriek, horn: the unit acts where it stands
            return [{"draw": "label", "at": at, "text": words}] if words else []
        to = f"h{move['to']}"
        if shape in ("move", "range", "sneak"):
            shapes.append({"draw": "ghost", "from": at, "to": to})
        elif shape == "shoot":
            shapes += [{"draw": "arrow", "from": at, "to": to}, {"draw": "ring", "at": to}]
        elif shape == "raise":
            shapes.append({"draw": "ring", "at": to})
        else:  # scout, scale: the unit looks or climbs towards the hex, and stays until it is done
            shapes.append({"draw": "arrow", "from": at, "to": to})
        if words:
            shapes.append({"draw": "label", "at": to, "text": words})
        return shapes

    # --- what may be known --------------------------------------------------------------------------
    def public_view(self, state: State) -> View:
        over = state["phase"] == "over"
        leader = _leader(state)
        wall_up = state["wall_up"]
        used = set(state["used"])
        by_leader: dict[str | None, list[dict[str, Any]]] = {k: [] for k in (*LEADERS, None)}
        for u in state["units"]:
            spec = KINDS[u["kind"]]
            by_leader[u["leader"]].append(
                {
                    "id": u["id"],
                    "name": u["name"],
                    "kind": u["kind"],
                    "letter": spec.letter,
                    "leader": u["leader"],
                    "category": spec.category,
                    "hex": u["hex"],
                    "att": attack_of(u),
                    "def": defence_of(u, wall_up),
                    "mov": u["mov"],
                    "rng": range_of(u, wall_up) or spec.rng,
                    "life": u["life"],
                    "max": spec.life,
                    "slayer": spec.slayer,
                    "brother": spec.brother,
                    "disabled": "disabled" in u,
                    "defending": u.get("defend", False),
                    "weak": u.get("weak", 0),
                    "climbing": u["climb"]["to"] if "climb" in u else None,
                    "tagged": u.get("tag", False),
                    "led": u.get("led", False),
                    "used": u["id"] in used,
                }
            )
        return {
            "game": self.slug,
            "seats": state["seats"],
            "options": dict(state["options"]),
            "phase": state["phase"],
            "awaiting": "over" if over else ("chance" if state["pending"] is not None else "play"),
            "round": state["round"],
            "rounds": int(state["options"]["rounds"]),
            "turn": state["turn"],
            "leader": leader,
            "leader_name": LEADER_NAMES[leader],
            "to_act": None if over or state["pending"] is not None else state["control"][leader],
            "leaders": [
                {
                    "key": k,
                    "name": LEADER_NAMES[k],
                    "side": SIDE_OF[k],
                    "seat": state["control"][k],
                    "units": by_leader[k],
                }
                for k in LEADERS
            ],
            "wanderers": by_leader[None],
            "corpses": [dict(c) for c in state["corpses"]],
            "spent": state["spent"],
            "unit_turns": UNIT_TURNS,
            "pending": None if state["pending"] is None else dict(state["pending"]),
            "supply": state["supply"],
            "scout": None if state["scout"] is None else dict(state["scout"]),
            "recruits": state["recruits"],
            "summons": list(state["summons"]),
            "catapults": [
                {
                    "hex": h,
                    "ready": state["catapults"][h] is None
                    or state["turn"] >= state["catapults"][h] + RECHARGE,
                }
                for h in CATAPULTS
            ],
            "wall_up": wall_up,
            "horn_watch": list(state["horn_watch"]),
            "breached": state.get("breached"),
            "breach_rounds": BREACH_ROUNDS,
            # Wights on or behind the standing Wall and the whole rounds each has held there, while a
            # breach is still to come.
            "footholds": []
            if state.get("breached") or not wall_up
            else [
                {"id": u["id"], "name": u["name"], "hex": u["hex"], "held": u["inside"] - 1}
                for u in state["units"]
                if u.get("inside")
            ],
            "zone_watch": list(state["zone_watch"]),
            "winner": state["winner"],
            "end_reason": state["end_reason"],
            "eliminated": list(state["eliminated"]),
            "last": None if state["last"] is None else dict(state["last"]),
        }

    def sample_hidden(self, state: State, seat: int | None, rng: random.Random) -> State:
        """Nothing is hidden in The Wall: a copy of the position (faster than the default deep copy)."""
        return _copy(state)

    def prompt(self, view: View, seat: int | None) -> str:
        if view["awaiting"] == "over":
            return "The game is over."
        if view["awaiting"] == "chance":
            kind = (view["pending"] or {}).get("kind")
            if kind == "wander":
                return "The wandering Wildlings drift and may spawn: the dice are rolled in a moment."
            return f"The dice are rolled {_DICE_FOR.get(kind, '')}in a moment."
        name = view["leader_name"]
        if seat != view["to_act"]:
            return waiting_for([view["to_act"]], f"to play {name}'s turn")
        left = view["unit_turns"] - view["spent"]
        return (
            f"{name[0].upper()}{name[1:]}'s turn: choose a unit to act, or end the turn "
            f"({left} of {view['unit_turns']} unit turns left)."
        )

    def evaluate(self, state: State) -> list[float]:
        """The search bots' estimate of the outcome (a heuristic of ours, not a rule): the Watch side's
        chance from the strength on the map, the true Others slain, and how far the Others are along
        their road: a Wight at the Wall, on or behind it (the longer it has held there, the more), on the
        Horn; after the fall, a true Other near the south edge. Time is on the Watch's side until the Wall
        is breached, and on the Others' after."""
        if state["phase"] == "over":
            return list(self.outcome(state) or [])
        wall_up = state["wall_up"]
        lead = 0.0  # for the Watch's side, on a logistic scale
        others_alive = 0
        zone = 99
        threat = 0.0  # the Others' best foothold at the Wall, while it stands
        footholds = 0.0
        horn_held = set(state["horn_watch"])
        for unit in state["units"]:
            side = _side(unit)
            life = unit["life"]
            if side == WATCH:
                lead += (0.15 if KINDS[unit["kind"]].slayer else 0.1) * life
                continue
            if side != OTHERS:
                continue
            if _is_true_other(unit):
                others_alive += 1
                lead -= 0.15 * life
                zone = min(zone, max(0, min(ZONE_ROWS) - int(unit["hex"][2:])))
                continue
            lead -= 0.1 * life
            if not wall_up:
                continue
            at = unit["hex"]
            row = int(at[2:])
            if at == HORN:
                value = 2.5 if unit["id"] in horn_held else 1.8
            elif row >= WALL_ROW:
                held = min(unit.get("inside", 0), BREACH_ROUNDS) / BREACH_ROUNDS
                value = 1.2 + 0.8 * held - 0.08 * distance(at, HORN)
            elif "climb" in unit:
                value = 0.7
            else:
                gap = WALL_ROW - row  # rows still to cross to reach the Wall
                value = 0.5 - 0.08 * gap
                if (
                    KINDS[unit["kind"]].brother
                    and not unit.get("tag")
                    and life == KINDS[unit["kind"]].life
                    and any(TERRAIN[n] == KEEP for n in NEIGHBOURS[at])
                ):
                    value += 0.3  # may try to sneak through the keep next turn
            value = max(0.0, value)
            threat = max(threat, value)
            footholds += 0.25 * value
        lead -= 1.0 * others_alive
        left = max(0, int(state["options"]["rounds"]) - state["round"])
        if wall_up and state.get("breached"):
            # The Wall can no longer hold: the Watch's side wins only by slaying every true Other.
            lead -= 2.0 + 2.0 / (1.0 + left)
        elif wall_up:
            # A foothold held for BREACH_ROUNDS rounds breaches the Wall; the nearer the cap, the less
            # time the Others have left to make one.
            lead -= 1.5 * (threat + footholds)
            lead += 1.0 + 1.5 / (1.0 + left)
        else:
            lead -= 2.0 + 0.25 * max(0, 8 - zone) + (1.5 if state["zone_watch"] else 0.0)
        watch = 1.0 / (1.0 + math.exp(-lead))
        return [watch if SEAT_SIDE[s] == WATCH else 1.0 - watch for s in range(state["seats"])]

    def balance_stats(self, state: State) -> dict[str, float]:
        """Per finished game, for bench/balance.py: which side won, why the game ended (one key per
        reason, 1.0 for the one that did), whether the Horn brought the Wall down, and the rounds."""
        reason = state["end_reason"] or ""
        ended = {
            "end_others_slain": "slain" in reason,
            "end_wall_held": "has held for" in reason,
            "end_cap_breach": "was breached" in reason,
            "end_cap_wall_down": "is down after" in reason,
            "end_south_held": "held the south" in reason,
            "end_side_left": "no player left" in reason,
        }
        return {
            "watch_win": float(state["winner"] == WATCH),
            "others_win": float(state["winner"] == OTHERS),
            **{key: float(hit) for key, hit in ended.items()},
            "wall_fell": float(not state["wall_up"]),
            "rounds": float(state["round"]),
        }

    def teams(self, seats: int) -> list[list[int]] | None:
        # The leaders of one side win or lose together: Jon and Mance, the Great Other and Waymar.
        return [[s for s in range(seats) if SEAT_SIDE[s] == side] for side in (WATCH, OTHERS)]

    def team_names(self, seats: int) -> list[str]:
        """The sides' names, in the order of ``teams`` (what the balance tables print)."""
        return ["Watch and Mance", "Others"]

    def outcome(self, state: State) -> list[float] | None:
        if state["phase"] != "over":
            return None
        return [
            0.0 if s in state["eliminated"] else float(SEAT_SIDE[s] == state["winner"])
            for s in range(state["seats"])
        ]

    def skip(self, state: State, seat: int, rng: random.Random) -> tuple[State, list[Event]]:
        """A seat out of time: the leader's turn ends where it stands."""
        if seat not in self.actors(state):
            raise IllegalMove("It is not that seat's turn.")
        new = _copy(state)
        leader = _leader(state)
        events = [
            Event(
                kind="skip",
                text=f"{LEADER_NAMES[leader][0].upper()}{LEADER_NAMES[leader][1:]} is out of time.",
                data={"seat": seat, "reason": "timeout"},
            )
        ]
        _end_turn(new, events)
        _settle(new, events)
        return new, events

    def eliminate(self, state: State, seat: int) -> tuple[State, list[Event]]:
        """A seat that leaves hands its leaders to a partner on its side; with none left, its side loses."""
        if state["phase"] == "over":
            raise IllegalMove("The game is over.")
        if not 0 <= seat < state["seats"] or seat in state["eliminated"]:
            raise IllegalMove("That seat is not in the game.")
        new = _copy(state)
        new["eliminated"] = sorted([*new["eliminated"], seat])
        side = SEAT_SIDE[seat]
        partner = next(
            (
                s
                for s in range(state["seats"])
                if s != seat and SEAT_SIDE[s] == side and s not in new["eliminated"]
            ),
            None,
        )
        events: list[Event] = []
        if partner is None:
            other = OTHERS if side == WATCH else WATCH
            _end(new, other, f"{SIDE_NAMES[side]} have no player left", events)
            return new, events
        for leader, owner in new["control"].items():
            if owner == seat:
                new["control"][leader] = partner
        events.append(
            Event(
                kind="eliminate",
                text=f"Seat {seat + 1} leaves the game; seat {partner + 1} takes over its leaders.",
                data={"seat": seat, "partner": partner},
            )
        )
        return new, events


# --- doing a move --------------------------------------------------------------------------------------
def _use(state: State, unit: dict[str, Any], turns: int = 1) -> None:
    state["used"].append(unit["id"])
    state["spent"] += turns
    unit.pop("climb", None)


def _move_to(unit: dict[str, Any], hex_: str) -> None:
    unit["hex"] = hex_


def _do(state: State, move: Move, shape: str, events: list[Event]) -> None:
    unit = _at(state, move["unit"])
    assert unit is not None
    name = _name(unit)
    at = move["unit"]
    if shape == "defend":
        _use(state, unit)
        unit["defend"] = True
        events.append(Event(kind="defend", text=f"{name} on {at} defends (+1 defence, may counterattack)."))
    elif shape == "move":
        _use(state, unit)
        _move_to(unit, move["to"])
        events.append(Event(kind="move", text=f"{name} moves {at} to {move['to']}."))
    elif shape == "range":
        _use(state, unit)
        _move_to(unit, move["to"])
        unit["ranged"] = state["turn"]
        unit["weak"] = unit.get("weak", 0) + 1
        tagged = []
        for n in NEIGHBOURS[move["to"]]:
            other = _at(state, n)
            if other is not None and _category(other) == WIGHT and not other.get("tag"):
                other["tag"] = True
                tagged.append(f"{other['name']} on {n}")
        sniff = f"; tagged: {', '.join(tagged)}" if tagged else ""
        events.append(
            Event(kind="range", text=f"{name} goes ranging from {at} to {move['to']} (-1 defence){sniff}.")
        )
    elif shape in ATTACK_ACTS:
        helpers: list[dict[str, Any]] = []
        if shape in ("teamup", "combo"):
            helpers = _helpers(Context(state), unit, move["to"])
        _use(state, unit, 2 if helpers else 1)
        for helper in helpers:
            state["used"].append(helper["id"])
        if move["via"] != at:
            _move_to(unit, move["via"])
        target = _at(state, move["to"])
        corpse = None if target is not None else _corpse_at(state, move["to"])
        word = {
            "attack": "attacks",
            "sneak_attack": "tries a sneak attack on",
            "teamup": "leads a teamup on",
            "combo": "leads a combination attack on",
        }[shape]
        victim = target["name"] if target is not None else f"the corpse of {corpse['name']}"  # type: ignore[index]
        moved = f" from {move['via']}" if move["via"] != at else ""
        joined = f" with {', '.join(h['name'] for h in helpers)}" if helpers else ""
        events.append(Event(kind="attack", text=f"{name}{moved} {word} {victim} on {move['to']}{joined}."))
        state["pending"] = {
            "kind": "attack",
            "act": shape,
            "unit": unit["id"],
            "target": None if target is None else target["id"],
            "corpse": None if corpse is None else corpse["id"],
            "bonus": len(helpers),
        }
    elif shape == "shoot":
        _use(state, unit)
        target = _at(state, move["to"])
        assert target is not None
        events.append(Event(kind="shoot", text=f"{name} on {at} shoots at {target['name']} on {move['to']}."))
        state["pending"] = {"kind": "shoot", "unit": unit["id"], "target": target["id"]}
    elif shape == "catapult":
        _use(state, unit)
        state["catapults"][at] = state["turn"]
        targets = [u["id"] for h in move["area"] if (u := _at(state, h)) is not None and _side(u) == OTHERS]
        events.append(
            Event(kind="catapult", text=f"{name} fires the catapult on {at} at {', '.join(move['area'])}.")
        )
        state["pending"] = {"kind": "catapult", "unit": unit["id"], "targets": targets}
    elif shape == "train":
        _use(state, unit)
        spec = KINDS[move["as"]]
        before = unit["name"]
        unit["kind"] = move["as"]
        count = state["counters"].get(move["as"], 0) + 1
        state["counters"][move["as"]] = count
        unit["name"] = f"{spec.label} {count}"
        unit.update(att=spec.att, mov=spec.mov)
        unit["def"] = spec.dfn
        events.append(Event(kind="train", text=f"{before} on {at} is trained and becomes {unit['name']}."))
    elif shape == "scout":
        _use(state, unit)
        state["scout"] = {"unit": unit["id"], "spawn": move["to"]}
        events.append(Event(kind="scout", text=f"{name} on {at} scouts the spawn point {move['to']}."))
    elif shape == "sneak":
        _use(state, unit)
        events.append(Event(kind="sneak", text=f"{name} on {at} tries to sneak into the keep {move['to']}."))
        state["pending"] = {"kind": "sneak", "unit": unit["id"], "keep": move["to"]}
    elif shape == "scale":
        climbing = unit.get("climb")
        _use(state, unit)
        if climbing is None:
            unit["climb"] = {"to": move["to"], "turn": state["turn"]}
            events.append(
                Event(
                    kind="scale",
                    text=f"{name} on {at} starts to scale the Wall toward {move['to']} (-1 defence).",
                )
            )
        else:
            _move_to(unit, move["to"])
            events.append(Event(kind="scale", text=f"{name} reaches the top of the Wall on {move['to']}."))
    elif shape == "raise":
        _use(state, unit)
        corpse = _corpse_at(state, move["to"])
        assert corpse is not None
        state["corpses"].remove(corpse)
        kind = "risen_brother" if KINDS[corpse["kind"]].brother else "risen"
        risen = _new_unit(state, kind, corpse["hex"], leader=WAYMAR, name=f"Wight (once {corpse['name']})")
        risen.update(att=corpse["att"], mov=max(corpse["mov"], 1), life=RAISED_LIFE)
        risen["def"] = corpse["def"]
        events.append(Event(kind="raise", text=f"{name} raises {corpse['name']} on {move['to']} as a Wight."))
    elif shape == "summon":
        _use(state, unit)
        state["summons"].append(at)
        events.append(
            Event(
                kind="summon", text=f"{name} invokes the summoning on {at}; a White Walker comes next turn."
            )
        )
    elif shape == "shriek":
        _use(state, unit)
        events.append(Event(kind="shriek", text=f"{name} on {at} lets out a Frozen Shriek."))
        state["pending"] = {"kind": "shriek", "unit": unit["id"]}
    elif shape == "horn":
        _use(state, unit)
        _blow_horn(state, unit, events)


def _blow_horn(state: State, unit: dict[str, Any], events: list[Event]) -> None:
    fallen = [u for u in state["units"] if TERRAIN[u["hex"]] == WALL]
    state["units"] = [u for u in state["units"] if TERRAIN[u["hex"]] != WALL]
    state["wall_up"] = False
    state["horn_watch"] = []
    for u in state["units"]:
        u.pop("climb", None)
    lost = f" {', '.join(u['name'] for u in fallen)} fall with it." if fallen else ""
    events.append(
        Event(
            kind="horn",
            text=f"{unit['name']} blows the Horn of Joramun in Castle Black: the Wall comes down!{lost}",
            data={"fallen": [u["id"] for u in fallen]},
        )
    )


# --- dice --------------------------------------------------------------------------------------------------
def _wound(
    state: State, victim: dict[str, Any], by: dict[str, Any], *, may_kill: bool, events: list[Event]
) -> str:
    """One hit on ``victim``: a true Other hit by anything but dragonglass or Valyrian steel in hand is
    disabled instead. Wights lose a point of every stat with each life point. Returns what happened."""
    if _is_true_other(victim) and not may_kill:
        victim["disabled"] = state["turn"]
        events.append(Event(kind="disabled", text=f"{victim['name']} is disabled for its next turn."))
        return "disabled"
    loss = 1
    if "climb" in victim:
        loss = 2
        del victim["climb"]
        events.append(
            Event(kind="fall", text=f"{victim['name']} falls off the Wall and loses another life point.")
        )
    victim["life"] -= loss
    if _category(victim) == WIGHT:
        victim["att"] = max(victim["att"] - loss, 0)
        victim["def"] = max(victim["def"] - loss, 0)
        victim["mov"] = max(victim["mov"] - loss, 1)
    if victim["life"] > 0:
        events.append(
            Event(
                kind="wound",
                text=f"{victim['name']} loses {_plural(loss, 'life point')} ({victim['life']} left).",
            )
        )
        return "wounded"
    state["units"].remove(victim)
    if _human(victim) and _is_true_other(by):
        # The stats it had at death, so a group the Watch led keeps its +1/+1 when it rises.
        led = 1 if victim.get("led") else 0
        state["corpses"].append(
            {
                "id": victim["id"],
                "name": victim["name"],
                "kind": victim["kind"],
                "hex": victim["hex"],
                "att": victim["att"] + led,
                "def": victim["def"] + led,
                "mov": victim["mov"],
                "turn": state["turn"],
            }
        )
        events.append(
            Event(
                kind="corpse",
                text=f"{victim['name']} is slain by {by['name']}; "
                f"the corpse on {victim['hex']} waits to rise.",
            )
        )
    else:
        events.append(Event(kind="killed", text=f"{victim['name']} is slain on {victim['hex']}."))
    if _is_true_other(victim):
        _check_slain(state, events)
    return "killed"


def _can_slay(unit: dict[str, Any], *, melee: bool) -> bool:
    return melee and KINDS[unit["kind"]].slayer and _category(unit) == HUMAN


def _duel(
    state: State,
    attacker: dict[str, Any],
    defender: dict[str, Any],
    rng: random.Random,
    events: list[Event],
    *,
    melee: bool,
    bonus: int = 0,
    attack: int | None = None,
    what: str = "attacks",
) -> bool:
    """One die plus attack against one die plus defence; the attacker needs strictly more."""
    wall_up = state["wall_up"]
    a_die, d_die = _roll(rng), _roll(rng)
    a_score = (attack_of(attacker) if attack is None else attack) + bonus
    d_score = defence_of(defender, wall_up)
    hit = a_die + a_score > d_die + d_score
    events.append(
        Event(
            kind="dice",
            text=f"{attacker['name']} {what} {defender['name']}: "
            f"{a_die} + {a_score} = {a_die + a_score} against "
            f"{d_die} + {d_score} = {d_die + d_score}: {'hit' if hit else 'held'}.",
            data={"dice": [a_die, d_die], "attack": a_score, "defence": d_score, "hit": hit},
        )
    )
    return hit


def _melee(
    state: State,
    attacker: dict[str, Any],
    target: dict[str, Any],
    rng: random.Random,
    events: list[Event],
    *,
    bonus: int = 0,
) -> None:
    """A melee attack: a kill without a corpse lets the attacker into the hex; a held attack on a unit
    that defends may bring its counterattack."""
    hex_ = target["hex"]
    if _duel(state, attacker, target, rng, events, melee=True, bonus=bonus):
        result = _wound(state, target, attacker, may_kill=_can_slay(attacker, melee=True), events=events)
        if result == "killed" and _corpse_at(state, hex_) is None and state["phase"] != "over":
            attacker["hex"] = hex_
            events.append(Event(kind="advance", text=f"{attacker['name']} advances into {hex_}."))
        return
    if not target.get("defend"):
        return
    die = _roll(rng)
    if die < 5:
        events.append(
            Event(
                kind="counter",
                text=f"{target['name']} rolls {die} for a counterattack: none.",
                data={"dice": [die]},
            )
        )
        return
    events.append(
        Event(
            kind="counter",
            text=f"{target['name']} rolls {die}: a counterattack"
            + (" with its raised defence." if die == 6 else "."),
            data={"dice": [die]},
        )
    )
    score = defence_of(target, state["wall_up"]) if die == 6 else None
    if _duel(state, target, attacker, rng, events, melee=True, attack=score, what="counterattacks"):
        _wound(state, attacker, target, may_kill=_can_slay(target, melee=True), events=events)


def _resolve_attack(state: State, pending: dict[str, Any], rng: random.Random, events: list[Event]) -> None:
    attacker = _unit(state, pending["unit"])
    assert attacker is not None
    if pending["corpse"] is not None:
        corpse = next(c for c in state["corpses"] if c["id"] == pending["corpse"])
        die = _roll(rng)
        if die > 1:
            state["corpses"].remove(corpse)
            attacker["hex"] = corpse["hex"]
            text = f"Roll {die}: the corpse of {corpse['name']} is destroyed; {attacker['name']} moves in."
        else:
            text = f"Roll {die}: the corpse of {corpse['name']} survives."
        events.append(Event(kind="dice", text=text, data={"dice": [die], "hit": die > 1}))
        return
    target = _unit(state, pending["target"])
    assert target is not None
    bonus = pending["bonus"]
    if pending["act"] == "sneak_attack":
        die = _roll(rng)
        score = die + attacker["def"]
        ok = score > 7
        if ok:
            bonus += 1
        else:
            attacker["weak"] = attacker.get("weak", 0) + 1
        events.append(
            Event(
                kind="dice",
                text=f"Sneak roll {die} + {attacker['def']} = {score}: "
                + ("unseen, +1 attack." if ok else "spotted, -1 defence until its next turn."),
                data={"dice": [die], "hit": ok},
            )
        )
    _melee(state, attacker, target, rng, events, bonus=bonus)


def _resolve_shoot(state: State, pending: dict[str, Any], rng: random.Random, events: list[Event]) -> None:
    archer = _unit(state, pending["unit"])
    target = _unit(state, pending["target"])
    assert archer is not None and target is not None
    if _duel(state, archer, target, rng, events, melee=False, what="shoots"):
        _wound(state, target, archer, may_kill=False, events=events)


def _resolve_catapult(state: State, pending: dict[str, Any], rng: random.Random, events: list[Event]) -> None:
    crew = _unit(state, pending["unit"])
    assert crew is not None
    die = _roll(rng)
    score = attack_of(crew) + 1
    events.append(
        Event(
            kind="dice",
            text=f"Catapult roll {die} + {score} = {die + score}.",
            data={"dice": [die], "attack": score},
        )
    )
    for uid in pending["targets"]:
        target = _unit(state, uid)
        if target is None or state["phase"] == "over":
            continue
        d_die = _roll(rng)
        d_score = defence_of(target, state["wall_up"])
        hit = die + score > d_die + d_score
        events.append(
            Event(
                kind="dice",
                text=f"{target['name']} rolls {d_die} + {d_score} = {d_die + d_score}: "
                f"{'hit' if hit else 'held'}.",
                data={"dice": [d_die], "defence": d_score, "hit": hit},
            )
        )
        if hit:
            _wound(state, target, crew, may_kill=False, events=events)


def _resolve_shriek(state: State, pending: dict[str, Any], rng: random.Random, events: list[Event]) -> None:
    walker = _unit(state, pending["unit"])
    assert walker is not None
    die = _roll(rng)
    ok = die > 3
    struck = []
    if ok:
        for n in NEIGHBOURS[walker["hex"]]:
            unit = _at(state, n)
            if unit is not None and _side(unit) == WATCH:
                unit["disabled"] = state["turn"]
                struck.append(unit["name"])
    text = f"Shriek roll {die}: " + (
        f"{', '.join(struck)} {'is' if len(struck) == 1 else 'are'} disabled for the next turn."
        if ok
        else "the cry fades."
    )
    events.append(Event(kind="dice", text=text, data={"dice": [die], "hit": ok}))


def _resolve_sneak(state: State, pending: dict[str, Any], rng: random.Random, events: list[Event]) -> None:
    wight = _unit(state, pending["unit"])
    assert wight is not None
    keep = pending["keep"]
    guard = _at(state, keep)
    die = _roll(rng)
    if die >= 4:
        if guard is None:
            wight["hex"] = keep
            text = f"Sneak roll {die}: {wight['name']} slips unseen into the keep {keep}."
        else:
            inside = next((n for n in NEIGHBOURS[keep] if TERRAIN[n] == CASTLE), None)
            if inside is not None and _at(state, inside) is None and _corpse_at(state, inside) is None:
                wight["hex"] = inside
                text = f"Sneak roll {die}: {wight['name']} slips past {guard['name']} into {inside}."
            else:
                text = (
                    f"Sneak roll {die}: unseen, but there is no room behind the door; {wight['name']} waits."
                )
        events.append(Event(kind="dice", text=text, data={"dice": [die], "hit": True}))
        return
    if guard is None:
        events.append(
            Event(
                kind="dice",
                text=f"Sneak roll {die}: {wight['name']} is seen and turned back from the door.",
                data={"dice": [die], "hit": False},
            )
        )
        return
    events.append(
        Event(
            kind="dice",
            text=f"Sneak roll {die}: {guard['name']} spots {wight['name']}; they fight (-1 attack).",
            data={"dice": [die], "hit": False},
        )
    )
    _melee(state, wight, guard, rng, events, bonus=-1)
