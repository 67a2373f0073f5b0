"""A position set in place of the one the match reached, for tests that need a particular deal."""

from __future__ import annotations

from typing import Any

from games.models import HiddenHand, Match
from games.services import recording


def position_store(match: Match, state: dict[str, Any]) -> Match:
    """Store ``state`` as the match's position with its public view and every seat's hidden hand
    recomputed, as the services would after a move, but without a new version: the caller empties the
    page cache, which is keyed on versions, if a page may have been drawn before."""
    engine = match.engine
    recording.state_store(match, engine, state)
    match.save(update_fields=["engine_state", "public_view"])
    for hidden in HiddenHand.objects.filter(seat__match=match).select_related("seat"):
        hidden.data = engine.private_view(state, hidden.seat.position)
        hidden.save(update_fields=["data", "updated_at"])
    match.refresh_from_db()
    return match
