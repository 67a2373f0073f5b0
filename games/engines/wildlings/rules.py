"""Wildlings at the Wall (seed 001, GAMES.md section 4): the wildling attack of *A Game of Thrones: The
Board Game* kept exactly, inside a compact game of sealed bids and sealed orders for 3-6 Houses.

The rules digest with every decision and the notation is ``seeds/wildlings.md``; the cards are in
``cards.py`` and the picture in ``svg.py``.

How a round runs inside the state: everything the rules do by themselves is a list of tasks,
``agenda``, worked off by ``_run``. A task that needs input stops it: the Westeros draw (a chance step,
phase "westeros"), the sealed orders (phase "orders"), a sealed bid (phase "bidding": for the wildlings
or for an influence track) or one House's decision (phase "decide", with ``pending`` naming the House,
the kind of decision and its data). A move supplies the input and ``_run`` goes on from there.

Secrets: every House's hand (drawn at random from its own seven-card deck, so a deck has no order), the
sealed orders and bids until the last House commits, and the order of the wildling deck (shuffled at
setup; the King's Court holder alone sees its top card). The Westeros decks have no order either: each
draw takes a random card of those left.
"""

from __future__ import annotations

import json
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
from games.engines.palette import SEAT_NAMES
from games.engines.wildlings import svg as svg_module
from games.engines.wildlings.cards import (
    DECK_NAMES,
    DECKS,
    RESTRICTIONS,
    TRACK_NAMES,
    WESTEROS,
    WILDLINGS,
)

THREAT_START = 2
THREAT_STEP = 2  # one space of the track
THREAT_MAX = 12
THREAT_BACK = 2 * THREAT_STEP  # the wildlings win: the token goes back two spaces
START_POWER = 5
MAX_POWER = 20
START_SUPPLY = 3
MAX_SUPPLY = 6
START_FOOTMEN = 2
START_KNIGHTS = 1
START_CASTLES = 3
WIN_CASTLES = 7
ROUNDS = 10
HAND_SIZE = 3
HOUSE_DECK: tuple[int, ...] = (0, 1, 1, 2, 2, 3, 4)
DEFEND_BONUS = 1
PREEMPTIVE_STRENGTH = 6
# What a House's means are worth in Castles to the search bots' estimate (``Wildlings.evaluate``).
EVAL_STRENGTH = 0.3  # a point of levy strength above the table's average
EVAL_CARDS = 0.05  # a point of House card strength in hand (a hand is soon played and redrawn)
EVAL_SUPPLY = 0.05  # a point of Supply (room for levies)
EVAL_POWER = 0.04  # a point of Power, times the danger of the threat (0.5 to 1.5)
TRACKS: tuple[str, ...] = ("throne", "fiefdoms", "court")
ORDER_KINDS: tuple[str, ...] = ("consolidate", "defend", "march", "muster", "raid")
LEVIES: tuple[str, ...] = ("footmen", "knight")

# Decisions: what each asks and which move answers it.
PICKS = frozenset({"tie", "clash_tie"})  # answered by {"pick": seat}
CHOOSE_OPTIONS: dict[str, tuple[str, ...]] = {
    "blades": ("muster", "none", "supply"),
    "dark_wings": ("clash", "none", "thrones"),
    "sword": ("defend", "march", "none"),
    "king_other": ("court", "fiefdoms"),
    "horde_reward": LEVIES,
}
CHOOSE_KINDS = frozenset({*CHOOSE_OPTIONS, "preemptive", "king_reward"})  # answered by {"choose": ...}
ROLE_OF = {
    "tie": "throne",
    "clash_tie": "throne",
    "blades": "throne",
    "dark_wings": "court",
    "sword": "fiefdoms",
}

# The decisions (``pending``), as the deciding House is asked them and as the others wait for them.
_DECISIONS = {
    "blades": "A Throne of Blades: choose supply, muster or nothing (you hold the Iron Throne).",
    "dark_wings": "Dark Wings, Dark Words: choose a Clash of Kings, a Game of Thrones or nothing "
    "(you hold the King's Court).",
    "sword": "Put to the Sword: forbid defend or march orders this round, or nothing (you hold Fiefdoms).",
    "preemptive": "Preemptive Raid: lose two levies, or drop two places on your highest influence track.",
    "king_reward": "A King Beyond the Wall: choose the influence track you take the top of.",
    "king_other": "A King Beyond the Wall: choose the track you go to the bottom of.",
    "horde_reward": "The Horde Descends: choose to muster a knight or footmen.",
    "milkwater_other": "Massing on the Milkwater: choose a House card to discard from your hand.",
    "mammoth_reward": "Mammoth Riders: choose a House card to take back from your discards.",
}
_DECIDING = {
    "tie": "to break a tie (Iron Throne)",
    "clash_tie": "to break a tie on an influence track (Iron Throne)",
    "blades": "to choose for A Throne of Blades",
    "dark_wings": "to choose for Dark Wings, Dark Words",
    "sword": "to choose for Put to the Sword",
    "preemptive": "to choose a loss for Preemptive Raid",
    "king_reward": "to choose a track for A King Beyond the Wall",
    "king_other": "to choose a track for A King Beyond the Wall",
    "horde_reward": "to choose levies for The Horde Descends",
    "milkwater_other": "to discard a House card",
    "mammoth_reward": "to take back a House card",
}

MOVE_HINT = (
    "Moves: bid 3 (for the Night's Watch), influence 2 (for a track), consolidate, raid blue, "
    "march blue 3, defend 2, muster knight, muster footmen, pick green, choose supply, discard 2, take 4."
)
_NAME_RE = "|".join(SEAT_NAMES)
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("bid", re.compile(r"bid (\d+)")),
    ("influence", re.compile(r"influence (\d+)")),
    ("consolidate", re.compile(r"consolidate")),
    ("raid", re.compile(rf"raid ({_NAME_RE})")),
    ("march", re.compile(rf"march ({_NAME_RE}) (\d)")),
    ("defend", re.compile(r"defend (\d)")),
    ("muster", re.compile(r"muster (footmen|knight)")),
    ("pick", re.compile(rf"pick ({_NAME_RE})")),
    ("choose", re.compile(r"choose ([a-z_]+)")),
    ("discard", re.compile(r"discard (\d)")),
    ("take", re.compile(r"take (\d)")),
)


# What the view shows of the wildling attack being resolved.
ATTACK_SHOWN = ("strength", "bids", "total", "watch", "card", "target")


def _who(seat: int) -> str:
    return SEAT_NAMES[seat % len(SEAT_NAMES)].capitalize()


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def _key(move: Any) -> str | None:
    """Canonical text of a move, so that True never passes for 1 and key order never matters."""
    try:
        return json.dumps(move, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        return None


# --- reading the state --------------------------------------------------------------------------------
def _active(state: State) -> list[int]:
    return [s for s in range(state["seats"]) if s not in state["eliminated"]]


def _order_on(state: State, track: str) -> list[int]:
    """The Houses still playing, in their order on ``track`` (best first)."""
    gone = state["eliminated"]
    return [s for s in state["tracks"][track] if s not in gone]


def _holder(state: State, track: str) -> int | None:
    order = _order_on(state, track)
    return order[0] if order else None


def _strength(house: dict[str, Any]) -> int:
    return house["footmen"] + 2 * house["knights"]


def _cap(house: dict[str, Any]) -> int:
    return house["supply"] + 1


def _room(house: dict[str, Any]) -> int:
    return max(0, _cap(house) - house["footmen"] - house["knights"])


def _score(house: dict[str, Any]) -> float:
    # Castles first, then Supply, then Power (GAMES.md): 5 Castles, Supply 3, Power 12 -> 5.312.
    return round(house["castles"] + house["supply"] / 10 + house["power"] / 1000, 3)


def _awaiting(state: State) -> frozenset[int]:
    phase = state["phase"]
    if phase == "orders":
        return frozenset(s for s in _active(state) if state["orders"][s] is None)
    if phase == "bidding":
        bids = state["bidding"]["bids"]
        return frozenset(s for s in state["bidding"]["bidders"] if bids[s] is None)
    if phase == "decide":
        return frozenset({state["pending"]["seat"]})
    return frozenset()


# --- small changes to a House --------------------------------------------------------------------------
def _gain_power(house: dict[str, Any], amount: int) -> int:
    """Add (or with a negative amount remove) Power within 0..20; returns the change made."""
    before = house["power"]
    house["power"] = max(0, min(MAX_POWER, before + amount))
    return house["power"] - before


def _lose_levies(state: State, seat: int, count: int, why: str, events: list[Event]) -> None:
    # Footmen go first: a knight is worth more in every respect, so the choice would never matter.
    house = state["houses"][seat]
    footmen = min(count, house["footmen"])
    knights = min(count - footmen, house["knights"])
    house["footmen"] -= footmen
    house["knights"] -= knights
    lost = [_plural(footmen, "footman", "footmen")] if footmen else []
    if knights:
        lost.append(_plural(knights, "knight"))
    text = " and ".join(lost) if lost else "nothing (no levies left)"
    events.append(
        Event(
            kind="levies",
            text=f"{_who(seat)} loses {text} ({why}).",
            data={"seat": seat, "footmen": -footmen, "knights": -knights},
        )
    )


def _reconcile(state: State, seat: int, events: list[Event]) -> None:
    """Disband levies above the Supply cap, footmen first."""
    house = state["houses"][seat]
    over = house["footmen"] + house["knights"] - _cap(house)
    if over > 0:
        _lose_levies(state, seat, over, f"Supply {house['supply']} holds only {_cap(house)} levies", events)


def _set_supply(state: State, seat: int, value: int, events: list[Event]) -> None:
    house = state["houses"][seat]
    before = house["supply"]
    house["supply"] = max(0, min(MAX_SUPPLY, value))
    if house["supply"] != before:
        events.append(
            Event(
                kind="supply",
                text=f"{_who(seat)}'s Supply goes from {before} to {house['supply']}.",
                data={"seat": seat, "supply": house["supply"]},
            )
        )
    _reconcile(state, seat, events)


def _muster(state: State, seat: int, levy: str, events: list[Event]) -> None:
    house = state["houses"][seat]
    room = _room(house)
    if levy == "knight":
        got = min(1, room)
        house["knights"] += got
        what = _plural(got, "knight")
    else:
        got = min(2, room)
        house["footmen"] += got
        what = _plural(got, "footman", "footmen")
    if not got:
        what = "nothing: its Supply has no room"
    events.append(
        Event(
            kind="muster",
            text=f"{_who(seat)} musters {what}.",
            data={"seat": seat, "levy": levy, "count": got},
        )
    )


def _move_on_track(state: State, track: str, seat: int, place: int) -> None:
    line = state["tracks"][track]
    line.remove(seat)
    line.insert(max(0, min(place, len(line))), seat)


def _discard_card(state: State, seat: int, card: int) -> None:
    house = state["houses"][seat]
    house["hand"].remove(card)
    house["discard"] = sorted([*house["discard"], card])


def _track_text(state: State, track: str) -> str:
    return ", ".join(_who(s) for s in state["tracks"][track])


# --- Westeros ------------------------------------------------------------------------------------------
def _draw_westeros(state: State, deck: str, rng: random.Random, events: list[Event]) -> tuple[str, int]:
    """One card of ``deck`` (Winter Is Coming reshuffles and draws again); returns (card, icons)."""
    pile = state["westeros"][deck]
    while True:
        if not pile["left"]:
            pile["left"] = sorted(DECKS[deck])
            pile["used"] = []
            events.append(Event(kind="westeros", text=f"Westeros deck {deck} is used up and reshuffled."))
        card = rng.choice(pile["left"])
        pile["left"].remove(card)
        pile["used"].append(card)
        if card != "winter":
            state["drawn"][deck] = card
            icon = WESTEROS[card].icon
            mark = " (wildling icon)" if icon else ""
            events.append(
                Event(
                    kind="westeros",
                    text=f"Westeros {deck}: {WESTEROS[card].name}{mark}.",
                    data={"deck": deck, "card": card, "icon": icon},
                )
            )
            return card, int(icon)
        pile["left"] = sorted(DECKS[deck])
        pile["used"] = []
        events.append(
            Event(
                kind="westeros",
                text=f"Westeros {deck}: Winter Is Coming. The deck is reshuffled and drawn again.",
                data={"deck": deck, "card": "winter"},
            )
        )


def _refill_hand(state: State, seat: int, rng: random.Random, events: list[Event]) -> None:
    house = state["houses"][seat]
    need = HAND_SIZE - len(house["hand"])
    if need <= 0:
        return
    if len(house["deck"]) < need and house["discard"]:
        house["deck"] = sorted(house["deck"] + house["discard"])
        house["discard"] = []
        events.append(
            Event(
                kind="house_cards",
                text=f"{_who(seat)} shuffles its discarded House cards back into its deck.",
                data={"seat": seat},
            )
        )
    # Sorted before sampling: which cards come depends on the rng and the deck's contents only.
    drawn = sorted(rng.sample(sorted(house["deck"]), min(need, len(house["deck"]))))
    if not drawn:
        return
    for card in drawn:
        house["deck"].remove(card)
    house["hand"] = sorted(house["hand"] + drawn)
    events.append(
        Event(
            kind="house_cards",
            text=f"{_who(seat)} draws {_plural(len(drawn), 'House card')}.",
            data={"seat": seat, "count": len(drawn)},
        )
    )
    events.append(
        Event(
            kind="house_cards",
            text=f"You draw House cards of strength {', '.join(map(str, drawn))}.",
            data={"seat": seat, "cards": drawn},
            visible_to=frozenset({seat}),
        )
    )


def _westeros_card(state: State, deck: str, events: list[Event]) -> None:
    card = state["drawn"][deck]
    if card == "supply":
        _supply_all(state, events)
    elif card == "muster":
        _muster_all(state, events)
    elif card == "thrones":
        _game_of_thrones(state, events)
    elif card == "clash":
        _push(state, [["clash", t] for t in TRACKS])
    elif card == "attack":
        state["stats"]["attack cards"] += 1
        _push(state, [["attack", None, None, False]])
    elif card in RESTRICTIONS:
        state["restriction"] = RESTRICTIONS[card]
        events.append(
            Event(
                kind="restriction",
                text=f"{WESTEROS[card].name}: no {RESTRICTIONS[card]} orders this round.",
                data={"banned": RESTRICTIONS[card]},
            )
        )
    elif card in ("blades", "dark_wings", "sword"):
        _push(state, [["ask", card, ROLE_OF[card], {}]])


def _supply_all(state: State, events: list[Event]) -> None:
    events.append(Event(kind="westeros", text="Supply: every House's Supply becomes its number of Castles."))
    for seat in _active(state):
        _set_supply(state, seat, state["houses"][seat]["castles"], events)


def _muster_all(state: State, events: list[Event]) -> None:
    raised = []
    for seat in _order_on(state, "throne"):
        house = state["houses"][seat]
        if _room(house):
            house["footmen"] += 1
            raised.append(_who(seat))
    who = ", ".join(raised) if raised else "nobody (no room under any Supply)"
    events.append(Event(kind="muster", text=f"Muster: a footman each for {who}."))


def _game_of_thrones(state: State, events: list[Event]) -> None:
    gains = []
    for seat in _active(state):
        house = state["houses"][seat]
        got = _gain_power(house, (house["castles"] + 1) // 2)
        gains.append(f"{_who(seat)} +{got}")
    events.append(Event(kind="power", text=f"Game of Thrones: Power {', '.join(gains)}."))


# --- the agenda -----------------------------------------------------------------------------------------
def _push(state: State, tasks: list[list[Any]]) -> None:
    """Put ``tasks`` at the front of the agenda, in this order."""
    state["agenda"][:0] = tasks


def _run(state: State, events: list[Event]) -> None:
    """Work off the agenda until the game waits for chance, for moves, or is over."""
    state["phase"] = "run"
    while state["phase"] == "run":
        if len(_active(state)) < 2:
            _end(state, "fewer than two Houses are left", events)
            return
        task = state["agenda"].pop(0)
        kind = task[0]
        if kind == "westeros":
            state["phase"] = "westeros"
        elif kind == "card":
            _westeros_card(state, task[1], events)
        elif kind == "attack":
            _attack_begin(state, task[1], task[2], task[3], events)
        elif kind == "clash":
            _bid_begin(state, task[1], None, None, events)
        elif kind == "clash_place":
            _clash_place(state, events)
        elif kind == "orders":
            state["phase"] = "orders"
            state["orders"] = [None] * state["seats"]
            events.append(
                Event(kind="orders", text=f"Round {state['round']}: every House gives one order in secret.")
            )
        elif kind == "ask":
            _ask(state, task[1], task[2], task[3], events)
        elif kind == "wild_target":
            _wild_target(state)
        elif kind == "wild_effect":
            _wild_effect(state, events)
        elif kind == "bury":
            _bury(state, events)
        elif kind == "end_round":
            _end_round(state, events)


def _end_round(state: State, events: list[Event]) -> None:
    state["restriction"] = None
    if state["round"] >= ROUNDS:
        _end(state, f"all {ROUNDS} rounds are played", events)
        return
    state["round"] += 1
    state["agenda"] = [["westeros"]]


def _end(state: State, reason: str, events: list[Event], *, by_castles: bool = False) -> None:
    state["phase"] = "over"
    state["agenda"] = []
    state["pending"] = None
    state["bidding"] = None
    state["orders"] = [None] * state["seats"]
    state["end_reason"] = reason
    state["stats"]["rounds played"] = state["round"]
    if by_castles:
        state["stats"]["ended by 7 Castles"] = 1
    elif state["round"] >= ROUNDS and reason.startswith("all"):
        state["stats"]["ended at the round cap"] = 1
    houses = state["houses"]
    listed = ", ".join(
        f"{_who(s)} {_plural(h['castles'], 'Castle')} (Supply {h['supply']}, Power {h['power']})"
        for s, h in enumerate(houses)
    )
    events.append(
        Event(
            kind="end",
            text=f"Game over: {reason}. {listed}.",
            data={"reason": reason, "scores": [_score(h) for h in houses]},
        )
    )


# --- decisions ------------------------------------------------------------------------------------------
def _ask(state: State, kind: str, who: int | str, data: dict[str, Any], events: list[Event]) -> None:
    """Ask ``who`` (a seat, or a track whose holder decides) to decide; one option decides itself."""
    role = who if isinstance(who, str) else None
    seat = _holder(state, who) if isinstance(who, str) else who
    if seat is None or seat in state["eliminated"]:
        return
    options = _options(state, kind, seat, data)
    if not options:
        return
    if len(options) == 1:
        _decide(state, kind, seat, options[0], data, events)
        return
    state["pending"] = {"kind": kind, "seat": seat, "role": role, "data": data}
    state["phase"] = "decide"


def _options(state: State, kind: str, seat: int, data: dict[str, Any]) -> list[Any]:
    house = state["houses"][seat]
    gone = state["eliminated"]
    if kind == "tie":
        return [s for s in data["among"] if s not in gone]
    if kind == "clash_tie":
        return [s for s in state["clash"]["groups"][0] if s not in gone]
    if kind == "preemptive":
        best = min(state["tracks"][t].index(seat) for t in TRACKS)
        return [
            "levies",
            *(t for t in ("court", "fiefdoms", "throne") if state["tracks"][t].index(seat) == best),
        ]
    if kind == "king_reward":
        return [t for t in ("court", "fiefdoms", "throne") if _holder(state, t) != seat]
    if kind == "horde_reward":
        return list(LEVIES) if _room(house) else []
    if kind == "milkwater_other":
        return sorted(set(house["hand"])) if len(house["hand"]) > 1 else []
    if kind == "mammoth_reward":
        return sorted(set(house["discard"]))
    return list(CHOOSE_OPTIONS[kind])


def _decision_move(kind: str, option: Any) -> Move:
    if kind in PICKS:
        return {"pick": option}
    if kind == "milkwater_other":
        return {"discard": option}
    if kind == "mammoth_reward":
        return {"take": option}
    return {"choose": option}


def _decide(
    state: State, kind: str, seat: int, option: Any, data: dict[str, Any], events: list[Event]
) -> None:
    who = _who(seat)
    house = state["houses"][seat]
    # Public, so that two different answers never leave two equal views behind.
    state["last_choice"] = {"seat": seat, "kind": kind, "option": option}
    if kind == "tie":
        state["attack"]["target"] = option
        events.append(
            Event(
                kind="tie",
                text=f"{who} (Iron Throne) names {_who(option)} the {data['side']} bidder.",
                data={"seat": seat, "target": option},
            )
        )
    elif kind == "clash_tie":
        group = state["clash"]["groups"][0]
        group.remove(option)
        state["clash"]["placed"].append(option)
        events.append(
            Event(
                kind="tie",
                text=f"{who} (Iron Throne) places {_who(option)} next on the "
                f"{TRACK_NAMES[state['clash']['track']]} track.",
                data={"seat": seat, "placed": option},
            )
        )
    elif kind == "blades":
        events.append(Event(kind="choice", text=f"A Throne of Blades: {who} (Iron Throne) chooses {option}."))
        if option == "supply":
            _supply_all(state, events)
        elif option == "muster":
            _muster_all(state, events)
    elif kind == "dark_wings":
        events.append(
            Event(kind="choice", text=f"Dark Wings, Dark Words: {who} (King's Court) chooses {option}.")
        )
        if option == "clash":
            _push(state, [["clash", t] for t in TRACKS])
        elif option == "thrones":
            _game_of_thrones(state, events)
    elif kind == "sword":
        state["restriction"] = None if option == "none" else option
        what = "nothing" if option == "none" else f"no {option} orders this round"
        events.append(Event(kind="choice", text=f"Put to the Sword: {who} (Fiefdoms) chooses {what}."))
    elif kind == "preemptive":
        if option == "levies":
            _lose_levies(state, seat, 2, "Preemptive Raid", events)
        else:
            place = state["tracks"][option].index(seat)
            _move_on_track(state, option, seat, place + 2)
            events.append(
                Event(
                    kind="track",
                    text=f"Preemptive Raid: {who} drops two places on the {TRACK_NAMES[option]} track.",
                    data={"seat": seat, "track": option},
                )
            )
    elif kind == "king_reward":
        _move_on_track(state, option, seat, 0)
        events.append(
            Event(
                kind="track",
                text=f"A King Beyond the Wall: {who} takes the top of the {TRACK_NAMES[option]} track.",
                data={"seat": seat, "track": option},
            )
        )
    elif kind == "king_other":
        _move_on_track(state, option, seat, len(state["tracks"][option]))
        events.append(
            Event(
                kind="track",
                text=f"A King Beyond the Wall: {who} goes to the bottom of the {TRACK_NAMES[option]} track.",
                data={"seat": seat, "track": option},
            )
        )
    elif kind == "horde_reward":
        _muster(state, seat, option, events)
    elif kind == "milkwater_other":
        _discard_card(state, seat, option)
        events.append(
            Event(
                kind="house_cards",
                text=f"Massing on the Milkwater: {who} discards a House card of strength {option}.",
                data={"seat": seat, "card": option},
            )
        )
    elif kind == "mammoth_reward":
        house["discard"].remove(option)
        house["hand"] = sorted([*house["hand"], option])
        events.append(
            Event(
                kind="house_cards",
                text=f"Mammoth Riders: {who} takes its House card of strength {option} back into its hand.",
                data={"seat": seat, "card": option},
            )
        )


# --- bidding ----------------------------------------------------------------------------------------------
def _attack_begin(
    state: State, strength: int | None, excluded: int | None, follow_up: bool, events: list[Event]
) -> None:
    stats = state["stats"]
    stats["attacks"] += 1
    if follow_up:
        stats["follow-up attacks"] += 1
    state["attacks_this_phase"] += 1
    if state["attacks_this_phase"] == 2:
        stats["two attacks in one Westeros phase"] += 1
    value = state["threat"] if strength is None else strength
    apart = f"; {_who(excluded)} takes no part" if excluded is not None else ""
    events.append(
        Event(
            kind="attack",
            text=f"The wildlings attack with strength {value}{apart}. Every House bids Power in secret.",
            data={"strength": value, "excluded": excluded},
        )
    )
    _bid_begin(state, "wildlings", value, excluded, events, follow_up=follow_up)


def _bid_begin(
    state: State,
    kind: str,
    strength: int | None,
    excluded: int | None,
    events: list[Event],
    *,
    follow_up: bool = False,
) -> None:
    bidders = [s for s in _active(state) if s != excluded]
    bids: list[int | None] = [None] * state["seats"]
    # A House without Power can only bid 0: that choice makes itself (everyone can see its Power).
    for seat in bidders:
        if state["houses"][seat]["power"] == 0:
            bids[seat] = 0
    state["bidding"] = {
        "kind": kind,
        "strength": strength,
        "excluded": excluded,
        "follow_up": follow_up,
        "bidders": bidders,
        "bids": bids,
    }
    if kind != "wildlings":
        events.append(
            Event(
                kind="clash",
                text=f"Clash of Kings: every House bids Power in secret for the {TRACK_NAMES[kind]} track.",
                data={"track": kind},
            )
        )
    if any(bids[s] is None for s in bidders):
        state["phase"] = "bidding"
    else:
        _reveal_bids(state, events)


def _reveal_bids(state: State, events: list[Event]) -> None:
    bidding = state["bidding"]
    state["bidding"] = None
    bids = bidding["bids"]
    bidders = bidding["bidders"]
    for seat in bidders:
        state["houses"][seat]["power"] -= bids[seat]
    shown = ", ".join(f"{_who(s)} {bids[s]}" for s in bidders)
    total = sum(bids[s] for s in bidders)
    if bidding["kind"] == "wildlings":
        _reveal_attack(state, bidding, total, shown, events)
        return
    track = bidding["kind"]
    state["last_bids"] = {"kind": track, "bids": list(bids), "total": total, "strength": None, "watch": None}
    events.append(
        Event(
            kind="reveal",
            text=f"Bids for the {TRACK_NAMES[track]} track revealed: {shown}. All of it is spent.",
            data={"track": track, "bids": list(bids)},
        )
    )
    values = sorted({bids[s] for s in bidders}, reverse=True)
    line = state["tracks"][track]
    groups = [[s for s in line if s in bidders and bids[s] == v] for v in values]
    state["clash"] = {"track": track, "placed": [], "groups": groups}
    _push(state, [["clash_place"]])


def _clash_place(state: State, events: list[Event]) -> None:
    clash = state["clash"]
    groups = clash["groups"]
    gone = state["eliminated"]
    while groups:
        group = groups[0]
        group[:] = [s for s in group if s not in gone]
        if len(group) > 1:
            # The Iron Throne orders a tie one House at a time; come back here after each pick.
            _push(state, [["ask", "clash_tie", "throne", {}], ["clash_place"]])
            return
        clash["placed"].extend(group)
        groups.pop(0)
    track = clash["track"]
    placed = clash["placed"]
    state["tracks"][track] = placed + [s for s in state["tracks"][track] if s not in placed]
    state["clash"] = None
    events.append(
        Event(
            kind="track",
            text=f"The {TRACK_NAMES[track]} track is now: {_track_text(state, track)}.",
            data={"track": track, "order": list(state["tracks"][track])},
        )
    )


def _reveal_attack(
    state: State, bidding: dict[str, Any], total: int, shown: str, events: list[Event]
) -> None:
    strength = bidding["strength"]
    watch = total >= strength
    stats = state["stats"]
    stats["watch wins" if watch else "wildling wins"] += 1
    side = "the Night's Watch holds" if watch else "the wildlings break through"
    events.append(
        Event(
            kind="reveal",
            text=f"Bids revealed: {shown}. The Night's Watch has {total} against {strength}: {side}. "
            "Every bid is discarded.",
            data={"bids": list(bidding["bids"]), "total": total, "strength": strength, "watch": watch},
        )
    )
    if not bidding["follow_up"]:
        before = state["threat"]
        state["threat"] = 0 if watch else max(0, before - THREAT_BACK)
        events.append(
            Event(
                kind="threat",
                text=f"The wildling threat goes from {before} to {state['threat']}.",
                data={"threat": state["threat"]},
            )
        )
    deck = state["wild_deck"]
    if state["wild_known"] >= len(deck):
        state["wild_known"] = len(deck) - 1  # the top card was a buried one everybody has seen
    card = deck.pop(0)
    events.append(
        Event(kind="wildling_card", text=f"The wildling card is {WILDLINGS[card].name}.", data={"card": card})
    )
    state["attack"] = {
        "strength": strength,
        "bids": list(bidding["bids"]),
        "bidders": list(bidding["bidders"]),
        "total": total,
        "watch": watch,
        "card": card,
        "target": None,
        "follow_up": bidding["follow_up"],
        "then": None,
    }
    state["last_bids"] = {
        "kind": "wildlings",
        "bids": list(bidding["bids"]),
        "total": total,
        "strength": strength,
        "watch": watch,
    }
    _push(state, [["wild_target"], ["wild_effect"], ["bury"]])


def _wild_target(state: State) -> None:
    attack = state["attack"]
    bids = attack["bids"]
    bidders = [s for s in attack["bidders"] if s not in state["eliminated"]]
    if not bidders:
        return
    pick = max if attack["watch"] else min
    edge = pick(bids[s] for s in bidders)
    among = [s for s in bidders if bids[s] == edge]
    if len(among) == 1:
        attack["target"] = among[0]
        return
    side = "highest" if attack["watch"] else "lowest"
    _push(state, [["ask", "tie", "throne", {"among": among, "side": side}]])


def _wild_effect(state: State, events: list[Event]) -> None:
    attack = state["attack"]
    target = attack["target"]
    if target is None:
        return
    card = attack["card"]
    name = WILDLINGS[card].name
    houses = state["houses"]
    house = houses[target]
    others = [s for s in _order_on(state, "throne") if s in attack["bidders"] and s != target]
    who = _who(target)
    if attack["watch"]:
        events.append(
            Event(
                kind="reward",
                text=f"{name}: {who}, the highest bidder, earns the Night's Watch reward.",
                data={"seat": target, "card": card},
            )
        )
    else:
        events.append(
            Event(
                kind="penalty",
                text=f"{name}: {who}, the lowest bidder, suffers the severe penalty; "
                "the others the lesser one.",
                data={"seat": target, "card": card},
            )
        )
    if card == "silence":
        events.append(Event(kind="wildlings", text="Silence at the Wall: nothing happens."))
    elif card == "preemptive":
        if attack["watch"]:
            attack["then"] = ["attack", PREEMPTIVE_STRENGTH, target, True]
        else:
            _push(state, [["ask", "preemptive", target, {}]])
    elif card == "crow_killers":
        if attack["watch"]:
            n = min(2, house["footmen"])
            house["footmen"] -= n
            house["knights"] += n
            events.append(
                Event(kind="levies", text=f"{who}: {_plural(n, 'footman', 'footmen')} become knights.")
            )
        else:
            for seat, count in [(target, house["knights"])] + [(s, 2) for s in others]:
                h = houses[seat]
                n = min(count, h["knights"])
                h["knights"] -= n
                h["footmen"] += n
                events.append(
                    Event(kind="levies", text=f"{_who(seat)}: {_plural(n, 'knight')} become footmen.")
                )
    elif card == "rattleshirt":
        if attack["watch"]:
            _set_supply(state, target, house["supply"] + 1, events)
        else:
            _set_supply(state, target, house["supply"] - 2, events)
            for seat in others:
                _set_supply(state, seat, houses[seat]["supply"] - 1, events)
    elif card == "milkwater":
        if attack["watch"]:
            back = house["discard"]
            house["hand"] = sorted(house["hand"] + back)
            house["discard"] = []
            events.append(
                Event(
                    kind="house_cards",
                    text=f"{who} takes {_plural(len(back), 'discarded House card')} back into its hand.",
                    data={"seat": target, "cards": list(back)},
                )
            )
        else:
            if len(house["hand"]) > 1:
                top = max(house["hand"])
                gone = [c for c in house["hand"] if c == top]
                for c in gone:
                    _discard_card(state, target, c)
                events.append(
                    Event(
                        kind="house_cards",
                        text=f"{who} discards {_plural(len(gone), 'House card')} of strength {top}.",
                        data={"seat": target, "cards": gone},
                    )
                )
            _push(state, [["ask", "milkwater_other", s, {}] for s in others])
    elif card == "king":
        if attack["watch"]:
            _push(state, [["ask", "king_reward", target, {}]])
        else:
            for track in TRACKS:
                _move_on_track(state, track, target, len(state["tracks"][track]))
            events.append(
                Event(kind="track", text=f"{who} goes to the bottom of all three influence tracks.")
            )
            # The others answer in Iron Throne order, as it stands after the lowest bidder's fall.
            after = [s for s in _order_on(state, "throne") if s in others]
            _push(state, [["ask", "king_other", s, {}] for s in after])
    elif card == "mammoth":
        if attack["watch"]:
            _push(state, [["ask", "mammoth_reward", target, {}]])
        else:
            _lose_levies(state, target, 3, "Mammoth Riders", events)
            for seat in others:
                _lose_levies(state, seat, 2, "Mammoth Riders", events)
    elif card == "horde":
        if attack["watch"]:
            _push(state, [["ask", "horde_reward", target, {}]])
        else:
            _lose_levies(state, target, 2, "The Horde Descends", events)
            for seat in others:
                _lose_levies(state, seat, 1, "The Horde Descends", events)
    elif card == "skinchanger":
        if attack["watch"]:
            got = _gain_power(house, attack["bids"][target])
            events.append(Event(kind="power", text=f"{who} gets its bid back: {got} Power."))
        else:
            lost = -_gain_power(house, -house["power"])
            parts = [f"{who} loses all its Power ({lost})"]
            for seat in others:
                parts.append(f"{_who(seat)} loses {-_gain_power(houses[seat], -2)}")
            events.append(Event(kind="power", text="Skinchanger Scout: " + ", ".join(parts) + "."))


def _bury(state: State, events: list[Event]) -> None:
    attack = state["attack"]
    state["wild_deck"].append(attack["card"])
    state["wild_known"] = min(len(state["wild_deck"]), state["wild_known"] + 1)
    state["attack"] = None
    events.append(
        Event(
            kind="wildling_card",
            text=f"{WILDLINGS[attack['card']].name} is buried at the bottom of the wildling deck.",
            data={"card": attack["card"]},
        )
    )
    if attack["then"] is not None:
        _push(state, [attack["then"]])


# --- orders -----------------------------------------------------------------------------------------------
def _order_text(order: dict[str, Any]) -> str:
    kind = order["order"]
    if kind == "raid":
        return f"raid {SEAT_NAMES[order['target']]}"
    if kind == "march":
        return f"march {SEAT_NAMES[order['target']]} {order['card']}"
    if kind == "defend":
        return f"defend {order['card']}"
    if kind == "muster":
        return f"muster {order['levy']}"
    return "consolidate"


def _order_moves(state: State, seat: int) -> list[Move]:
    """Every order ``seat`` may give now, in a fixed canonical order."""
    house = state["houses"][seat]
    banned = state["restriction"]
    others = [s for s in _active(state) if s != seat]
    cards = sorted(set(house["hand"]))
    moves: list[Move] = []
    if banned != "consolidate":
        moves.append({"order": "consolidate"})
    if banned != "defend":
        moves += [{"order": "defend", "card": c} for c in cards]
    if banned != "march":
        moves += [
            {"order": "march", "target": t, "card": c}
            for t in others
            if state["houses"][t]["castles"] > 0
            for c in cards
        ]
    if banned != "muster" and _room(house):
        moves += [{"order": "muster", "levy": levy} for levy in LEVIES]
    if banned != "raid":
        moves += [{"order": "raid", "target": t} for t in others]
    return moves


def _resolve_orders(state: State, events: list[Event]) -> None:
    """Raids, then marches, then consolidation and mustering, each in Iron Throne order."""
    orders = state["orders"]
    turn = _order_on(state, "throne")
    state["revealed"] = [None if o is None else dict(o) for o in orders]
    shown = "; ".join(f"{_who(s)}: {_order_text(orders[s])}" for s in turn if orders[s] is not None)
    events.append(Event(kind="reveal", text=f"Orders revealed: {shown}.", data={"orders": state["revealed"]}))
    houses = state["houses"]
    cancelled: set[int] = set()
    done: set[int] = set()
    for seat in turn:
        order = orders[seat]
        done.add(seat)
        if order is None or order["order"] != "raid" or seat in cancelled:
            continue
        target = order["target"]
        theirs = orders[target]
        kind = None if theirs is None or target in cancelled else theirs["order"]
        if kind == "raid" and target in done:
            kind = None  # that raid has already happened
        if kind in ("consolidate", "muster", "raid"):
            cancelled.add(target)
            text = f"{_who(seat)} raids {_who(target)} and spoils its {kind} order"
            if kind == "consolidate":
                taken = -_gain_power(houses[target], -1)
                _gain_power(houses[seat], taken)
                text += f", taking {taken} Power" if taken else ""
            events.append(Event(kind="raid", text=text + ".", data={"seat": seat, "target": target}))
        else:
            events.append(
                Event(
                    kind="raid",
                    text=f"{_who(seat)} raids {_who(target)}, who has nothing to spoil.",
                    data={"seat": seat, "target": target},
                )
            )
    fought: set[int] = set()
    for seat in turn:
        order = orders[seat]
        if order is None or order["order"] != "march":
            continue
        target = order["target"]
        if _battle(state, seat, target, order["card"], events):
            fought.add(target)
        if state["phase"] == "over":
            return
    for seat in sorted(fought, key=turn.index):
        card = orders[seat]["card"]
        if card in houses[seat]["hand"]:
            _discard_card(state, seat, card)
    for seat in turn:
        order = orders[seat]
        if order is None or seat in cancelled:
            continue
        if order["order"] == "consolidate":
            house = houses[seat]
            got = _gain_power(house, 1 + house["castles"] // 2)
            events.append(
                Event(kind="power", text=f"{_who(seat)} consolidates: +{got} Power.", data={"seat": seat})
            )
        elif order["order"] == "muster":
            _muster(state, seat, order["levy"], events)
    state["orders"] = [None] * state["seats"]


def _battle(state: State, seat: int, target: int, card: int, events: list[Event]) -> bool:
    """One march; True when the target fought (its defend card is then spent)."""
    houses = state["houses"]
    attacker, defender = houses[seat], houses[target]
    if defender["castles"] == 0:
        events.append(
            Event(
                kind="march", text=f"{_who(seat)} marches on {_who(target)}, who has no Castle left to take."
            )
        )
        return False
    theirs = state["orders"][target]
    defends = theirs is not None and theirs["order"] == "defend"
    attack = _strength(attacker) + card
    defence = _strength(defender) + (theirs["card"] + DEFEND_BONUS if defends else 0)
    if attack != defence:
        won = attack > defence
        how = ""
    else:
        fiefdoms = state["tracks"]["fiefdoms"]
        won = fiefdoms.index(seat) < fiefdoms.index(target)
        how = ", the tie going to the better place on Fiefdoms"
    _discard_card(state, seat, card)
    if won:
        defender["castles"] -= 1
        attacker["castles"] += 1
        result = f"{_who(seat)} takes a Castle"
    else:
        result = f"{_who(target)} holds"
    events.append(
        Event(
            kind="march",
            text=f"{_who(seat)} marches on {_who(target)} with {attack} against {defence}{how}: {result}.",
            data={"seat": seat, "target": target, "attack": attack, "defence": defence, "won": won},
        )
    )
    _lose_levies(state, target if won else seat, 1, "lost battle", events)
    if attacker["castles"] >= WIN_CASTLES:
        _end(state, f"{_who(seat)} holds {WIN_CASTLES} Castles", events, by_castles=True)
    return defends


# --- the engine -------------------------------------------------------------------------------------------
class Wildlings(Engine):
    slug = "wildlings"
    title = "Wildlings at the Wall"
    min_players = 3
    max_players = 6
    notation_example = "bid 3, consolidate, raid blue, march blue 3, defend 2, muster knight, pick green"
    move_fields: ClassVar[dict[str, type | tuple[type, ...]]] = {
        **dict.fromkeys(("order", "levy", "choose"), str),
        **dict.fromkeys(("card", "target", "bid", "influence", "pick", "discard", "take"), int),
    }
    malformed_move = f"That is not a move of this game. {MOVE_HINT}"
    options: ClassVar[dict[str, Option]] = {}
    svg = svg_module

    # --- setup -------------------------------------------------------------------------------------
    def new_state(self, *, seats: int, options: dict[str, str], rng: random.Random) -> State:
        resolved = self.resolve_options(options, seats=seats)
        wild = sorted(WILDLINGS)
        rng.shuffle(wild)
        # The starting places are dealt (after the wildling deck, so a seed keeps its deck): in seat
        # order the top of Fiefdoms won most games between search bots (see the digest).
        order = list(range(seats))
        rng.shuffle(order)
        half = seats // 2
        houses = [
            {
                "power": START_POWER,
                "supply": START_SUPPLY,
                "footmen": START_FOOTMEN,
                "knights": START_KNIGHTS,
                "castles": START_CASTLES,
                "hand": [],
                "deck": list(HOUSE_DECK),
                "discard": [],
            }
            for _ in range(seats)
        ]
        stats = dict.fromkeys(
            (
                "attacks",
                "attacks at 12",
                "attack cards",
                "follow-up attacks",
                "two attacks in one Westeros phase",
                "watch wins",
                "wildling wins",
                "ended by 7 Castles",
                "ended at the round cap",
                "rounds played",
            ),
            0,
        )
        return {
            "seats": seats,
            "options": resolved,
            "round": 1,
            "phase": "westeros",
            "houses": houses,
            # Three different starting orders, so no House leads everywhere (see the digest).
            "tracks": {
                "throne": order,
                "fiefdoms": order[::-1],
                "court": order[half:] + order[:half],
            },
            "threat": THREAT_START,
            "wild_deck": wild,
            "wild_known": 0,
            "westeros": {d: {"left": sorted(DECKS[d]), "used": []} for d in DECK_NAMES},
            "drawn": dict.fromkeys(DECK_NAMES),
            "restriction": None,
            "orders": [None] * seats,
            "revealed": None,
            "bidding": None,
            "last_bids": None,
            "attack": None,
            "attacks_this_phase": 0,
            "clash": None,
            "last_choice": None,
            "agenda": [],
            "pending": None,
            "eliminated": [],
            "stats": stats,
            "end_reason": None,
        }

    # --- whose input is awaited ---------------------------------------------------------------------
    def actors(self, state: State) -> frozenset[int]:
        return _awaiting(state)

    def chance_pending(self, state: State) -> bool:
        return state["phase"] == "westeros"

    def resolve_chance(self, state: State, rng: random.Random) -> tuple[State, list[Event]]:
        if state["phase"] != "westeros":
            raise IllegalMove("No chance step is pending.")
        new = plain_copy(state)
        events = [Event(kind="round", text=f"Round {new['round']}: the Westeros phase.")]
        new["drawn"] = dict.fromkeys(DECK_NAMES)
        new["revealed"] = None
        new["attacks_this_phase"] = 0
        icons = 0
        for deck in DECK_NAMES:
            icons += _draw_westeros(new, deck, rng, events)[1]
        for seat in _active(new):
            _refill_hand(new, seat, rng, events)
        before = new["threat"]
        new["threat"] = min(THREAT_MAX, before + THREAT_STEP * icons)
        if icons:
            events.append(
                Event(
                    kind="threat",
                    text=f"{_plural(icons, 'wildling icon')}: the threat rises "
                    f"from {before} to {new['threat']}.",
                    data={"threat": new["threat"], "icons": icons},
                )
            )
        tasks: list[list[Any]] = []
        if icons and new["threat"] == THREAT_MAX:
            new["stats"]["attacks at 12"] += 1
            tasks.append(["attack", None, None, False])
        tasks += [["card", d] for d in DECK_NAMES]
        tasks += [["orders"], ["end_round"]]
        new["agenda"] = tasks
        _run(new, events)
        return new, events

    # --- moves --------------------------------------------------------------------------------------
    def legal_moves(self, state: State, seat: int) -> list[Move]:
        if seat not in _awaiting(state):
            return []
        phase = state["phase"]
        if phase == "orders":
            return _order_moves(state, seat)
        if phase == "bidding":
            word = "bid" if state["bidding"]["kind"] == "wildlings" else "influence"
            return [{word: n} for n in range(state["houses"][seat]["power"] + 1)]
        pending = state["pending"]
        kind = pending["kind"]
        return [_decision_move(kind, o) for o in _options(state, kind, seat, pending["data"])]

    def apply(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        return self._apply(state, seat, move, listed=False)

    def apply_listed(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        return self._apply(state, seat, move, listed=True)

    def _apply(self, state: State, seat: int, move: Move, *, listed: bool) -> tuple[State, list[Event]]:
        """``listed``: the move comes from ``legal_moves`` (see Engine.apply_listed), so it is not looked
        up among them again."""
        phase = state["phase"]
        if phase == "over":
            raise IllegalMove("The game is over.")
        if phase == "westeros":
            raise IllegalMove("Wait: the Westeros cards are being drawn.")
        if not isinstance(seat, int) or not 0 <= seat < state["seats"] or seat in state["eliminated"]:
            raise IllegalMove("You are not playing in this game.")
        if seat not in _awaiting(state):
            if phase in ("orders", "bidding") and seat in self._committed(state):
                raise IllegalMove("You have already committed; wait for the others.")
            raise IllegalMove("It is not your turn to act.")
        if not listed:
            wanted = _key(move)
            if wanted is None or wanted not in {_key(m) for m in self.legal_moves(state, seat)}:
                raise IllegalMove(self._why_not(state, seat, move))
        new = plain_copy(state)
        events: list[Event] = []
        if phase == "orders":
            new["orders"][seat] = dict(move)
            events += self._commit_events(seat, f"You order: {_order_text(move)}.", {"order": dict(move)})
            if not _awaiting(new):
                _resolve_orders(new, events)
                if new["phase"] != "over":
                    _run(new, events)
        elif phase == "bidding":
            value = next(iter(move.values()))
            new["bidding"]["bids"][seat] = value
            events += self._commit_events(seat, f"You bid {value} Power.", {"bid": value})
            if not _awaiting(new):
                _reveal_bids(new, events)
                _run(new, events)
        else:
            pending = new["pending"]
            new["pending"] = None
            new["phase"] = "run"
            option = next(iter(move.values()))
            _decide(new, pending["kind"], seat, option, pending["data"], events)
            _run(new, events)
        return new, events

    @staticmethod
    def _committed(state: State) -> set[int]:
        if state["phase"] == "orders":
            return {s for s in _active(state) if state["orders"][s] is not None}
        return {s for s in state["bidding"]["bidders"] if state["bidding"]["bids"][s] is not None}

    @staticmethod
    def _commit_events(seat: int, private: str, data: dict[str, Any]) -> list[Event]:
        # The public line is the same whatever was committed: the log must not tell the sealed choice.
        return [
            Event(kind="commit", text=f"{_who(seat)} has committed.", data={"seat": seat}),
            Event(kind="commit", text=private, data={"seat": seat, **data}, visible_to=frozenset({seat})),
        ]

    def _why_not(self, state: State, seat: int, move: Any) -> str:
        phase = state["phase"]
        if not isinstance(move, dict):
            return f"That is not a move of this game. {MOVE_HINT}"
        house = state["houses"][seat]
        if phase == "bidding":
            word = "bid" if state["bidding"]["kind"] == "wildlings" else "influence"
            value = move.get(word)
            if set(move) == {word} and type(value) is int and value > house["power"]:
                return f"You have only {house['power']} Power to bid."
            return f"Bid a whole number of Power from 0 to {house['power']}, written: {word} 3."
        if phase == "orders":
            kind = move.get("order")
            if kind == state["restriction"]:
                return f"No {kind} orders may be given this round."
            if kind in ("march", "defend") and move.get("card") not in house["hand"]:
                return "You hold no House card of that strength."
            if kind == "muster" and not _room(house):
                return "Your Supply has no room for more levies."
            target = move.get("target")
            if (
                kind == "march"
                and target in range(state["seats"])
                and state["houses"][target]["castles"] == 0
            ):
                return "That House has no Castle left to take."
            return f"That is not an order you can give. {MOVE_HINT}"
        return "That is not one of the choices you have now."

    # --- notation -----------------------------------------------------------------------------------
    def parse_move(self, text: str) -> Move:
        if not isinstance(text, str):
            raise IllegalMove(MOVE_HINT)
        cleaned = " ".join(text.strip().lower().split())
        for kind, regex in _PATTERNS:
            m = regex.fullmatch(cleaned)
            if m is None:
                continue
            if kind in ("bid", "influence"):
                return {kind: int(m[1])}
            if kind == "consolidate":
                return {"order": "consolidate"}
            if kind == "raid":
                return {"order": "raid", "target": SEAT_NAMES.index(m[1])}
            if kind == "march":
                return {"order": "march", "target": SEAT_NAMES.index(m[1]), "card": int(m[2])}
            if kind == "defend":
                return {"order": "defend", "card": int(m[1])}
            if kind == "muster":
                return {"order": "muster", "levy": m[1]}
            if kind == "pick":
                return {"pick": SEAT_NAMES.index(m[1])}
            if kind == "choose":
                return {"choose": m[1]}
            return {kind: int(m[1])}
        raise IllegalMove(f"{text.strip()!r} is not a move. {MOVE_HINT}")

    def format_move(self, move: Move) -> str:
        if not isinstance(move, dict) or not move:
            raise IllegalMove(MOVE_HINT)
        if "order" in move:
            return _order_text(move)
        (kind, value), *_ = move.items()
        if kind == "pick":
            return f"pick {SEAT_NAMES[value]}"
        return f"{kind} {value}"

    def move_visible_to(self, state: State, seat: int, move: Move) -> frozenset[int] | None:
        """Orders and bids are sealed: the log shows their text to the mover alone (the reveal is an
        Event for everyone). Decisions are public."""
        if state["phase"] in ("orders", "bidding"):
            return frozenset({seat})
        return None

    def click_path(self, move: Move) -> list[str]:
        if "order" in move:
            kind = move["order"]
            path = [f"order-{kind}"]
            if "target" in move:
                path.append(f"house-{move['target']}")
            if "card" in move:
                path.append(f"card-{move['card']}")
            if "levy" in move:
                path.append(f"levy-{move['levy']}")
            return path
        (kind, value), *_ = move.items()
        if kind in ("bid", "influence"):
            return [f"bid-{value}"]
        if kind == "pick":
            return [f"house-{value}"]
        if kind == "discard":
            return [f"card-{value}"]
        if kind == "take":
            return [f"discard-{value}"]
        return [f"opt-{value}"]

    def move_preview(self, view: View, seat: int, move: Move) -> list[Preview]:
        # The choice is written on the House's own row, in the column where it shows once revealed.
        own = f"round-{seat}"
        if "order" in move:
            words = f"Order: {svg_module.order_label(move)}"
            shapes: list[Preview] = [{"draw": "label", "at": own, "text": words}]
            if "target" in move:
                shapes.append({"draw": "ring", "at": f"house-{move['target']}"})
            return shapes
        (kind, value), *_ = move.items()
        if kind in ("bid", "influence"):
            return [{"draw": "label", "at": own, "text": f"Bid {value} Power"}]
        if kind == "pick":
            return [{"draw": "ring", "at": f"house-{value}"}]
        if kind == "discard":
            return [{"draw": "label", "at": own, "text": f"Discard House card {value}"}]
        if kind == "take":
            return [{"draw": "label", "at": own, "text": f"Take back House card {value}"}]
        return [{"draw": "label", "at": own, "text": svg_module.OPTION_LABELS.get(str(value), str(value))}]

    # --- what may be known --------------------------------------------------------------------------
    def public_view(self, state: State) -> View:
        phase = state["phase"]
        bidding = state["bidding"]
        pending = state["pending"]
        attack = state["attack"]
        deck = state["wild_deck"]
        known = state["wild_known"]
        buried = list(deck[len(deck) - known :]) if known else []
        committed = [False] * state["seats"]
        if phase == "orders":
            committed = [o is not None for o in state["orders"]]
        elif phase == "bidding":
            committed = [b is not None for b in bidding["bids"]]
        public_pending = None
        if pending is not None:
            kind = pending["kind"]
            # A choice from the hand stays private: its options would show the cards.
            options = (
                None if kind == "milkwater_other" else _options(state, kind, pending["seat"], pending["data"])
            )
            public_pending = {
                "kind": kind,
                "seat": pending["seat"],
                "options": options,
                "data": plain_copy(pending["data"]),
            }
        return {
            "game": self.slug,
            "seats": state["seats"],
            "options": dict(state["options"]),
            "phase": phase,
            "round": state["round"],
            "rounds": ROUNDS,
            "to_act": sorted(_awaiting(state)),
            "threat": state["threat"],
            "threat_max": THREAT_MAX,
            "houses": [
                {
                    "power": h["power"],
                    "supply": h["supply"],
                    "cap": _cap(h),
                    "footmen": h["footmen"],
                    "knights": h["knights"],
                    "strength": _strength(h),
                    "castles": h["castles"],
                    "hand_size": len(h["hand"]),
                    "deck_size": len(h["deck"]),
                    "discard": list(h["discard"]),
                    "score": _score(h),
                }
                for h in state["houses"]
            ],
            "tracks": {t: list(state["tracks"][t]) for t in TRACKS},
            "holders": {t: _holder(state, t) for t in TRACKS},
            "westeros": {
                d: {
                    "drawn": state["drawn"][d],
                    "name": WESTEROS[state["drawn"][d]].name if state["drawn"][d] else None,
                    "left": len(state["westeros"][d]["left"]),
                    "used": list(state["westeros"][d]["used"]),
                }
                for d in DECK_NAMES
            },
            "restriction": state["restriction"],
            "wildling_deck": {
                "size": len(deck),
                "buried": buried,
                "buried_names": [WILDLINGS[c].name for c in buried],
            },
            "committed": committed,
            "bidding": None
            if bidding is None
            else {
                "kind": bidding["kind"],
                "name": "the Night's Watch"
                if bidding["kind"] == "wildlings"
                else TRACK_NAMES[bidding["kind"]],
                "strength": bidding["strength"],
                "excluded": bidding["excluded"],
                "bidders": list(bidding["bidders"]),
            },
            "revealed_orders": None if state["revealed"] is None else plain_copy(state["revealed"]),
            "revealed_text": None
            if state["revealed"] is None
            else [None if o is None else _order_text(o) for o in state["revealed"]],
            "last_bids": None
            if state["last_bids"] is None
            else {
                **plain_copy(state["last_bids"]),
                "name": "the Night's Watch"
                if state["last_bids"]["kind"] == "wildlings"
                else TRACK_NAMES[state["last_bids"]["kind"]],
            },
            "attack": None
            if attack is None
            else {
                **plain_copy({k: attack[k] for k in ATTACK_SHOWN}),
                "card_name": WILDLINGS[attack["card"]].name,
            },
            "clash": plain_copy(state["clash"]),
            "last_choice": plain_copy(state["last_choice"]),
            "pending": public_pending,
            "eliminated": list(state["eliminated"]),
            "end_reason": state["end_reason"],
        }

    def prompt(self, view: View, seat: int | None) -> str:
        phase, awaited = view["phase"], view["to_act"]
        if phase == "over":
            return "The game is over."
        if phase == "westeros":
            return "The Westeros cards are being drawn; the round goes on in a moment."
        if phase in ("orders", "bidding"):
            sealed = "sealed: the others see only that you have"
            if phase == "orders":
                yours = f"Give your order for this round, {sealed} given one."
                done, doing = "Your order is given", "to give their orders"
            else:
                bidding = view["bidding"]
                what = (
                    f"the wildling attack (strength {bidding['strength']})"
                    if bidding["kind"] == "wildlings"
                    else f"the {bidding['name']} track"
                )
                yours = f"Bid Power for {what}, {sealed} bid."
                done, doing = "Your bid is in", "to bid"
            if seat in awaited:
                return yours
            waiting = waiting_for(awaited, doing)
            if seat is not None and view["committed"][seat]:
                return f"{done}; {waiting[0].lower()}{waiting[1:]}"
            return waiting
        pending = view["pending"]
        if pending is None:
            return "The round goes on in a moment."
        kind = pending["kind"]
        if seat != pending["seat"]:
            return waiting_for([pending["seat"]], _DECIDING.get(kind, "to decide"))
        data = pending["data"] or {}
        if kind == "tie":
            return f"The bids are tied: name the {data.get('side', '')} bidder (you hold the Iron Throne)."
        if kind == "clash_tie":
            track = TRACK_NAMES.get((view["clash"] or {}).get("track", ""), "influence")
            return f"The bids are tied: choose the House placed next on the {track} track (Iron Throne)."
        return _DECISIONS.get(kind, "Make your choice.")

    def private_view(self, state: State, seat: int) -> dict[str, Any]:
        if not 0 <= seat < state["seats"]:
            return {}
        house = state["houses"][seat]
        out: dict[str, Any] = {"hand": list(house["hand"]), "order": None, "bid": None}
        if state["phase"] == "orders" and state["orders"][seat] is not None:
            out["order"] = dict(state["orders"][seat])
        if state["phase"] == "bidding":
            out["bid"] = state["bidding"]["bids"][seat]
        deck = state["wild_deck"]
        if state["phase"] != "over" and seat == _holder(state, "court") and deck:
            out["wildling_top"] = deck[0]
            out["wildling_top_name"] = WILDLINGS[deck[0]].name
        return out

    def sample_hidden(self, state: State, seat: int | None, rng: random.Random) -> State:
        # Hidden from ``seat``: other hands (re-dealt from hand + deck of each House, sizes kept), the
        # unseen part of the wildling deck (its top stays for the King's Court holder) and the sealed
        # orders and bids of others (drawn again among their legal choices).
        new = plain_copy(state)
        others = [s for s in range(state["seats"]) if s != seat]
        for other in others:
            house = new["houses"][other]
            pool = sorted(house["hand"] + house["deck"])
            rng.shuffle(pool)
            size = len(house["hand"])
            house["hand"] = sorted(pool[:size])
            house["deck"] = sorted(pool[size:])
        deck = new["wild_deck"]
        unseen = len(deck) - new["wild_known"]
        keep = 1 if seat is not None and seat == _holder(state, "court") and unseen > 0 else 0
        hidden = sorted(deck[keep:unseen])
        rng.shuffle(hidden)
        new["wild_deck"] = deck[:keep] + hidden + deck[unseen:]
        if new["phase"] == "orders":
            for other in others:
                if new["orders"][other] is not None:
                    new["orders"][other] = rng.choice(_order_moves(new, other))
        elif new["phase"] == "bidding":
            bids = new["bidding"]["bids"]
            for other in others:
                if bids[other] is not None:
                    bids[other] = rng.randint(0, new["houses"][other]["power"])
        return new

    def outcome(self, state: State) -> list[float] | None:
        if state["phase"] != "over":
            return None
        return [_score(h) for h in state["houses"]]

    def evaluate(self, state: State) -> list[float]:
        """The search bots' estimate of the final scores (``games/bots``): cheap, not a rule.

        The score so far (Castles, then Supply, then Power), plus what each House's means are worth
        against the table's average while rounds are left to use them: levy strength and the House
        cards in hand win marches and hold Castles, Supply makes room for levies, and Power buys safety
        from the wildlings (more so as the threat rises). Once the game is over it is the outcome.
        """
        if state["phase"] == "over":
            return list(self.outcome(state) or [])
        houses = state["houses"]
        active = _active(state)
        if not active:
            return [_score(h) for h in houses]
        # Rounds still to play, this one included; means count fully with three or more of them left.
        horizon = min(3, ROUNDS - state["round"] + 1) / 3
        danger = 0.5 + state["threat"] / THREAT_MAX

        def mean(values: list[float]) -> float:
            return sum(values) / len(values)

        strength = [float(_strength(h)) for h in houses]
        cards = [float(sum(h["hand"])) for h in houses]
        power = [float(h["power"]) for h in houses]
        supply = [float(h["supply"]) for h in houses]
        base = {
            "strength": mean([strength[s] for s in active]),
            "cards": mean([cards[s] for s in active]),
            "power": mean([power[s] for s in active]),
            "supply": mean([supply[s] for s in active]),
        }
        out = []
        for seat, house in enumerate(houses):
            value = house["castles"] + house["supply"] / 10 + house["power"] / 1000
            if seat in active:
                value += horizon * (
                    EVAL_STRENGTH * (strength[seat] - base["strength"])
                    + EVAL_CARDS * (cards[seat] - base["cards"])
                    + EVAL_SUPPLY * (supply[seat] - base["supply"])
                )
                value += EVAL_POWER * danger * (power[seat] - base["power"])
            out.append(value)
        return out

    def balance_stats(self, state: State) -> dict[str, float]:
        """Counts of one finished game, for ``bench/balance.py`` to sum."""
        return {k: float(v) for k, v in state["stats"].items()}

    def skip(self, state: State, seat: int, rng: random.Random) -> tuple[State, list[Event]]:
        """Out of time: the first listed move (bid 0, consolidate, the first option of a decision)."""
        if seat not in _awaiting(state):
            raise IllegalMove("It is not that seat's turn.")
        new, events = self.apply(state, seat, self.legal_moves(state, seat)[0])
        note = Event(
            kind="skip", text=f"{_who(seat)} is out of time.", data={"seat": seat, "reason": "timeout"}
        )
        return new, [note, *events]

    def eliminate(self, state: State, seat: int) -> tuple[State, list[Event]]:
        if state["phase"] == "over":
            raise IllegalMove("The game is over.")
        if not 0 <= seat < state["seats"] or seat in state["eliminated"]:
            raise IllegalMove("That seat is not in the game.")
        new = plain_copy(state)
        new["eliminated"] = sorted([*new["eliminated"], seat])
        events = [
            Event(
                kind="eliminate",
                text=f"{_who(seat)} leaves the game: it gives no more orders and makes no more bids. "
                "Its Castles stay where they are.",
                data={"seat": seat},
            )
        ]
        phase = new["phase"]
        if phase == "westeros":
            return new, events  # the chance step skips it; fewer than two left ends the game after it
        if phase == "orders":
            new["orders"][seat] = None
            if len(_active(new)) < 2:
                _end(new, "fewer than two Houses are left", events)
            elif not _awaiting(new):
                _resolve_orders(new, events)
                if new["phase"] != "over":
                    _run(new, events)
            return new, events
        if phase == "bidding":
            bidding = new["bidding"]
            bidding["bids"][seat] = None
            bidding["bidders"] = [s for s in bidding["bidders"] if s != seat]
            if len(_active(new)) < 2:
                _end(new, "fewer than two Houses are left", events)
            elif not _awaiting(new):
                _reveal_bids(new, events)
                _run(new, events)
            return new, events
        pending = new["pending"]
        if pending["seat"] == seat:
            new["pending"] = None
            if pending["role"] is not None:  # the track's next House decides instead
                _push(new, [["ask", pending["kind"], pending["role"], pending["data"]]])
        else:
            # Still waiting for the same House: only re-ask, so options without the leaver are offered.
            new["pending"] = None
            _push(new, [["ask", pending["kind"], pending["role"] or pending["seat"], pending["data"]]])
        _run(new, events)
        return new, events
