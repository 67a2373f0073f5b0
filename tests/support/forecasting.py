"""A Wall Go match between alice (seat 0) and bob (seat 1) past its placement, for the conditional-move
tests: bob, who moves first after placement, and alice have moved once each, and it is bob's turn."""

from __future__ import annotations

from games import services
from games.models import Match

# Snake placement: alice, bob, bob, alice, alice, bob, bob, alice. Alice places last, so bob moves first.
PLACEMENT = ["a1", "g7", "g6", "a2", "b1", "f7", "g5", "b2"]
# Bob's first turn uses the one token the lines below leave alone, so they stay legal after it.
BOB_OPENS = "g7-e7/d7e"
ALICE_OPENS = "b2-c3/c3n"
# Lines that are legal from the position after ALICE_OPENS: bob's move, alice's reply, and so on.
BOB_FIRST = "g5-e5/e5n"
ALICE_REPLY = "c3-d3/d3n"
BOB_SECOND = "f7-e6/e6n"
ALICE_SECOND = "d3-d2/d2e"
BOB_OTHER = "g6-f5/f5n"


def wallgo_after_placement(match: Match, alice, bob) -> Match:
    """Place the tokens and play bob's first turn through the service; alice is then to move."""
    users = [alice, bob, bob, alice, alice, bob, bob, alice, bob]
    for user, text in zip(users, [*PLACEMENT, BOB_OPENS], strict=True):
        match.refresh_from_db()
        services.move_play(match_id=match.pk, user=user, expected_version=match.version, text=text)
    match.refresh_from_db()
    return match


def wallgo_bob_to_move(match: Match, alice, bob) -> Match:
    """Placement done and alice's first move made: bob to move, alice may plan her replies."""
    match = wallgo_after_placement(match, alice, bob)
    services.move_play(match_id=match.pk, user=alice, expected_version=match.version, text=ALICE_OPENS)
    match.refresh_from_db()
    return match
