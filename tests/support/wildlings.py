"""Test setups for Wildlings at the Wall matches played on the site: a chosen position stored in place of
the dealt one, so that a wildling attack comes at once and the sealed values are known in advance."""

from __future__ import annotations

from typing import Any

from games.engines.wildlings.rules import HOUSE_DECK
from games.models import HiddenHand, Match


def state_store(match: Match, state: dict[str, Any]) -> Match:
    """Store ``state`` as the match's position, with the public view and every seat's hidden hand
    recomputed from it exactly as the services would, so no page shows a stale or mixed picture."""
    engine = match.engine
    Match.objects.filter(pk=match.pk).update(engine_state=state, public_view=engine.public_view(state))
    for hand in HiddenHand.objects.filter(seat__match=match).select_related("seat"):
        hand.data = engine.private_view(state, hand.seat.position)
        hand.save(update_fields=["data"])
    match.refresh_from_db()
    return match


def attack_ahead(
    state: dict[str, Any],
    *,
    threat: int,
    wildling_card: str,
    powers: list[int] | None = None,
    hands: list[list[int]] | None = None,
) -> dict[str, Any]:
    """Stack the next Westeros draw so that it ends in a wildling attack: before its chance step, or
    at the start of the orders before it (nothing sealed is in flight either way).

    Muster (deck I) and Last Days of Summer (deck II, one icon: the threat rises by 2) need no decision;
    Wildlings Attack (deck III) then attacks at ``threat`` + 2. ``wildling_card`` is put on top of the
    wildling deck; ``powers`` and ``hands`` (full hands, so the draw adds no card) are set per House.
    """
    assert state["phase"] in ("westeros", "orders") and not any(state["orders"]), "too late to stack"
    assert threat + 2 < 12, "an attack at 12 would come first, from the icons"
    state["threat"] = threat
    for name, card in (("I", "muster"), ("II", "summer"), ("III", "attack")):
        state["westeros"][name]["left"] = [card]
    # Only the unseen part is reordered: the buried cards at the bottom are public.
    deck, known = state["wild_deck"], state["wild_known"]
    unseen, buried = deck[: len(deck) - known], deck[len(deck) - known :]
    assert wildling_card in unseen, "that wildling card is buried where everyone has seen it"
    state["wild_deck"] = [wildling_card, *(c for c in unseen if c != wildling_card), *buried]
    for seat, house in enumerate(state["houses"]):
        if powers is not None:
            house["power"] = powers[seat]
        if hands is not None:
            hand = sorted(hands[seat])
            rest = list(HOUSE_DECK)
            for card in [*hand, *house["discard"]]:
                rest.remove(card)
            house["hand"], house["deck"] = hand, rest
    # The tracks in seat order (a new game deals them), so that who answers first is known.
    order = list(range(len(state["houses"])))
    half = len(order) // 2
    state["tracks"] = {"throne": order, "fiefdoms": order[::-1], "court": order[half:] + order[:half]}
    return state
