"""Dice and cards: a tiny game that exists only to exercise the site's machinery in tests.

Wall Go has no dice, no secrets and one seat to move at a time; this engine has all three, so the
conformance suite, the Celery chance steps, the hidden hands and sealed commits are proven on something.

Rules: 2-4 seats. Cards 1..12 are shuffled at setup; the deck order is a server-side secret. A round:

1. Chance step: every hand is refilled to two cards from the top of the deck, then one die is rolled.
2. Every seat commits one card from its hand at the same time, sealed: others only see that it committed.
3. When the last seat commits, the cards are revealed. The card closest to twice the die wins the
   round's point (so the public die matters to the choice); if two cards are equally close (die 3:
   5 and 7), nobody scores. The played cards go to the public discard pile.

The game ends after the ``rounds`` option's number of rounds, or as soon as the deck cannot refill every
hand. The score is the points won. A seat that leaves discards its hand face up and acts no more.
Notation: ``play 7``.
"""

from __future__ import annotations

import os
import random
import re
import time
from typing import Any, ClassVar

from games.engines.base import Engine, Event, IllegalMove, Move, Option, State, View
from games.engines.palette import SEAT_NAMES
from tests.support import dicegame_svg

CARDS = tuple(range(1, 13))
HAND = 2
MOVE_HINT = "Write a move as: play 7."
_PLAY_RE = re.compile(r"play\s*(\d+)")


def _who(seat: int) -> str:
    return SEAT_NAMES[seat % len(SEAT_NAMES)].capitalize()


def _card_of(move: Any) -> int:
    """The card a well-formed move plays; anything else is refused with a reason."""
    # `type(...) is int` rather than isinstance: True == 1 would otherwise play the card 1.
    if isinstance(move, dict) and move.keys() == {"play"} and type(move["play"]) is int:
        card = move["play"]
        if card not in CARDS:
            raise IllegalMove(f"There is no card {card}; the cards run from 1 to 12.")
        return card
    raise IllegalMove(f"That is not a move of this game. {MOVE_HINT}")


def _copy(state: State) -> State:
    """A copy that may be changed freely without touching ``state`` (values are ints and int lists)."""
    new = dict(state)
    new["options"] = dict(state["options"])
    new["deck"] = list(state["deck"])
    new["hands"] = [list(h) for h in state["hands"]]
    new["committed"] = list(state["committed"])
    new["points"] = list(state["points"])
    new["discard"] = list(state["discard"])
    new["eliminated"] = list(state["eliminated"])
    return new


def _active(state: State) -> list[int]:
    return [s for s in range(state["seats"]) if s not in state["eliminated"]]


class DiceGame(Engine):
    slug = "testdice"
    title = "Dice and cards (test game)"
    min_players = 2
    max_players = 4
    options: ClassVar[dict[str, Option]] = {
        "rounds": Option(label="Rounds", choices={"3": "Three rounds", "5": "Five rounds"}, default="3"),
    }
    svg = dicegame_svg

    # --- setup -------------------------------------------------------------------------------------
    def new_state(self, *, seats: int, options: dict[str, str], rng: random.Random) -> State:
        resolved = self.resolve_options(options, seats=seats)
        deck = list(CARDS)
        rng.shuffle(deck)
        # Hands start empty: the first chance step deals them, so dealing and drawing are one code path.
        return {
            "seats": seats,
            "options": resolved,
            "rounds": int(resolved["rounds"]),
            "round": 1,
            "phase": "chance",
            "deck": deck,
            "hands": [[] for _ in range(seats)],
            "committed": [None] * seats,
            "die": None,
            "points": [0] * seats,
            "discard": [],
            "eliminated": [],
            "last_reveal": None,
            "end_reason": None,
        }

    # --- whose input is awaited ---------------------------------------------------------------------
    def actors(self, state: State) -> frozenset[int]:
        if state["phase"] != "commit":
            return frozenset()
        return frozenset(s for s in _active(state) if state["committed"][s] is None)

    def chance_pending(self, state: State) -> bool:
        return state["phase"] == "chance"

    def resolve_chance(self, state: State, rng: random.Random) -> tuple[State, list[Event]]:
        if state["phase"] != "chance":
            raise IllegalMove("No chance step is pending.")
        # The worker tests slow this step down to kill a worker in the middle of it.
        pause = float(os.environ.get("WALLSITE_TEST_CHANCE_PAUSE", "0") or 0)
        if pause:
            time.sleep(pause)
        new = _copy(state)
        events: list[Event] = []
        for seat in _active(new):
            hand = new["hands"][seat]
            drawn = sorted(new["deck"].pop() for _ in range(HAND - len(hand)))
            if not drawn:
                continue
            hand.extend(drawn)
            hand.sort()  # a hand is a set; keeping it sorted makes equal hands equal lists
            count = len(drawn)
            events.append(
                Event(
                    kind="draw",
                    text=f"{_who(seat)} draws {count} card{'s' if count > 1 else ''}.",
                    data={"seat": seat, "count": count},
                )
            )
            listed = ", ".join(map(str, drawn))
            events.append(
                Event(
                    kind="draw",
                    text=f"You draw {listed}.",
                    data={"seat": seat, "cards": drawn},
                    visible_to=frozenset({seat}),
                )
            )
        die = rng.randint(1, 6)
        new["die"] = die
        new["phase"] = "commit"
        events.append(
            Event(
                kind="roll",
                text=f"Round {new['round']}: the die shows {die}; the card closest to {2 * die} wins.",
                data={"round": new["round"], "die": die},
            )
        )
        return new, events

    # --- moves --------------------------------------------------------------------------------------
    def legal_moves(self, state: State, seat: int) -> list[Move]:
        if seat not in self.actors(state):
            return []
        # The worker tests make a computer's move slow (the random bot reads only this, before its
        # transaction), to keep the bots' worker busy as hard opponents would.
        pause = float(os.environ.get("WALLSITE_TEST_BOT_PAUSE", "0") or 0)
        if pause:
            time.sleep(pause)
        return [{"play": card} for card in state["hands"][seat]]

    def apply(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        phase = state["phase"]
        if phase == "over":
            raise IllegalMove("The game is over.")
        if phase == "chance":
            raise IllegalMove("Wait for the draw and the die roll.")
        if not isinstance(seat, int) or not 0 <= seat < state["seats"] or seat in state["eliminated"]:
            raise IllegalMove("You are not playing in this game.")
        if state["committed"][seat] is not None:
            raise IllegalMove("You have already committed a card this round.")
        card = _card_of(move)
        if card not in state["hands"][seat]:
            raise IllegalMove(f"You do not hold the card {card}.")

        new = _copy(state)
        new["hands"][seat].remove(card)
        new["committed"][seat] = card
        events = [
            Event(kind="commit", text=f"{_who(seat)} has committed a card.", data={"seat": seat}),
            Event(
                kind="commit",
                text=f"You committed {card}.",
                data={"seat": seat, "card": card},
                visible_to=frozenset({seat}),
            ),
        ]
        if not self.actors(new):
            events += _reveal(new)
        return new, events

    def parse_move(self, text: str) -> Move:
        if not isinstance(text, str):
            raise IllegalMove(MOVE_HINT)
        match = _PLAY_RE.fullmatch(" ".join(text.lower().split()))
        if match is None:
            raise IllegalMove(f"{text.strip()!r} is not a move of this game. {MOVE_HINT}")
        return {"play": _card_of({"play": int(match[1])})}

    def format_move(self, move: Move) -> str:
        return f"play {_card_of(move)}"

    def move_visible_to(self, state: State, seat: int, move: Move) -> frozenset[int] | None:
        # The commit is sealed: the others read "has committed a card", never which.
        return frozenset({seat})

    def click_path(self, move: Move) -> list[str]:
        return [f"card-{_card_of(move)}"]

    # --- what may be known --------------------------------------------------------------------------
    def public_view(self, state: State) -> View:
        return {
            "game": self.slug,
            "seats": state["seats"],
            "options": dict(state["options"]),
            "phase": state["phase"],
            "round": state["round"],
            "rounds": state["rounds"],
            "die": state["die"],
            "points": list(state["points"]),
            "deck_size": len(state["deck"]),
            "hand_sizes": [len(h) for h in state["hands"]],
            # Sealed: only whether a seat has committed, never the card.
            "committed": [c is not None for c in state["committed"]],
            "to_act": sorted(self.actors(state)),
            "discard": sorted(state["discard"]),
            "eliminated": list(state["eliminated"]),
            "last_reveal": _copy_reveal(state["last_reveal"]),
            "end_reason": state["end_reason"],
        }

    def private_view(self, state: State, seat: int) -> dict[str, Any]:
        if not 0 <= seat < state["seats"]:
            return {}
        return {"hand": list(state["hands"][seat]), "committed": state["committed"][seat]}

    def sample_hidden(self, state: State, seat: int | None, rng: random.Random) -> State:
        # What ``seat`` cannot see: the deck order, other hands and other seats' sealed cards. Pool those
        # cards and deal them back into the same places, keeping every size (sizes are public).
        new = _copy(state)
        others = [s for s in range(state["seats"]) if s != seat]
        pool = list(new["deck"])
        for other in others:
            pool += new["hands"][other]
            if new["committed"][other] is not None:
                pool.append(new["committed"][other])
        # Sorted first, so that for a given rng the sample depends on what the seat can see and
        # nothing else (the pool's order would otherwise echo where each hidden card really is).
        pool.sort()
        rng.shuffle(pool)
        new["deck"] = [pool.pop() for _ in state["deck"]]
        for other in others:
            new["hands"][other] = sorted(pool.pop() for _ in state["hands"][other])
            if new["committed"][other] is not None:
                new["committed"][other] = pool.pop()
        return new

    def outcome(self, state: State) -> list[float] | None:
        if state["phase"] != "over":
            return None
        return [float(p) for p in state["points"]]

    def eliminate(self, state: State, seat: int) -> tuple[State, list[Event]]:
        if state["phase"] == "over":
            raise IllegalMove("The game is over.")
        if not 0 <= seat < state["seats"] or seat in state["eliminated"]:
            raise IllegalMove("That seat is not in the game.")
        new = _copy(state)
        gone = list(new["hands"][seat])
        if new["committed"][seat] is not None:
            gone.append(new["committed"][seat])
        new["hands"][seat] = []
        new["committed"][seat] = None
        new["discard"] = sorted(new["discard"] + gone)
        new["eliminated"] = sorted([*new["eliminated"], seat])
        listed = ", ".join(map(str, sorted(gone))) or "none"
        events = [
            Event(
                kind="eliminate",
                text=f"{_who(seat)} leaves the game; its cards are discarded face up: {listed}.",
                data={"seat": seat, "cards": sorted(gone)},
            )
        ]
        if len(_active(new)) < 2:
            events += _end(new, "only one player is left")
        elif new["phase"] == "commit" and not self.actors(new):
            # The seat that left was the last one awaited: everyone else has committed.
            events += _reveal(new)
        return new, events


# --- helpers -----------------------------------------------------------------------------------------
def _copy_reveal(reveal: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if reveal is None else {**reveal, "cards": list(reveal["cards"])}


def _reveal(state: State) -> list[Event]:
    """Turn the sealed cards face up, score the round, then set up the next round or end the game."""
    active = _active(state)
    die = state["die"]
    cards = state["committed"]
    played = [cards[s] for s in active]
    best = min(abs(c - 2 * die) for c in played)
    leaders = [s for s in active if abs(cards[s] - 2 * die) == best]
    winner = leaders[0] if len(leaders) == 1 else None
    if winner is not None:
        state["points"][winner] += 1
    state["last_reveal"] = {"round": state["round"], "die": die, "cards": list(cards), "winner": winner}
    state["discard"] = sorted(state["discard"] + played)
    state["committed"] = [None] * state["seats"]
    shown = ", ".join(f"{_who(s)} {cards[s]}" for s in active)
    result = f"{_who(winner)} wins the point" if winner is not None else "a tie, nobody scores"
    events = [
        Event(
            kind="reveal",
            text=f"Round {state['round']} revealed: {shown}; {result}.",
            data={"round": state["round"], "die": die, "cards": list(cards), "winner": winner},
        )
    ]
    needed = sum(HAND - len(state["hands"][s]) for s in active)
    if state["round"] >= state["rounds"]:
        events += _end(state, f"all {state['rounds']} rounds are played")
    elif len(state["deck"]) < needed:
        events += _end(state, "the deck cannot refill every hand")
    else:
        state["round"] += 1
        state["die"] = None
        state["phase"] = "chance"
    return events


def _end(state: State, reason: str) -> list[Event]:
    state["phase"] = "over"
    state["end_reason"] = reason
    # Sealed cards of a round cut short go back to their hands, so every card stays somewhere.
    for seat, card in enumerate(state["committed"]):
        if card is not None:
            state["hands"][seat] = sorted([*state["hands"][seat], card])
    state["committed"] = [None] * state["seats"]
    listed = ", ".join(f"{_who(s)} {p}" for s, p in enumerate(state["points"]))
    return [
        Event(
            kind="end",
            text=f"Game over: {reason}. Points: {listed}.",
            data={"reason": reason, "points": list(state["points"])},
        )
    ]
