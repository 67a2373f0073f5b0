"""Ratings follow the matches: counted when one finishes, withdrawn when a moderator voids it.

A finished match is rated by a worker after the move that finished it has committed: every change of
a game's ratings waits for that game's board lock, which the move's transaction would otherwise hold
until its commit, so that concurrent finishing moves of one game (and the web processes serving them)
queued behind each other. The minute tick (``tasks.catch_up``) rates any match whose task was lost.

Voiding stays inside the moderator's transaction. A failure there is logged and rolled back to a
savepoint, never allowed to undo the void; ``manage.py ratings_rebuild`` repairs the game.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.dispatch import receiver

from games import dispatch
from games.models import Match
from games.signals import match_finished, match_voided
from ratings import services, tasks

log = logging.getLogger(__name__)


@receiver(match_finished, dispatch_uid="ratings.match_finished")
def on_match_finished(sender: object, *, match: Match, **kwargs: object) -> None:
    if not match.rated:
        return
    match_id = match.pk
    transaction.on_commit(
        lambda: dispatch.enqueue_safely(
            lambda: tasks.match_rate.delay(match_id), what=f"the rating of match {match_id}"
        )
    )


@receiver(match_voided, dispatch_uid="ratings.match_voided")
def on_match_voided(sender: object, *, match: Match, **kwargs: object) -> None:
    try:
        with transaction.atomic():
            services.match_unrate(match=match)
    except Exception:
        log.exception(
            "Withdrawing match %s failed; run `manage.py ratings_rebuild %s`.", match.pk, match.game
        )
