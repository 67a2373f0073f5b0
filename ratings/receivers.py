"""Ratings follow the matches: counted when one finishes, withdrawn when a moderator voids it.

The signals come inside the match's transaction. A failure here is logged and rolled back to a
savepoint, never allowed to undo the move that finished the match; ``manage.py ratings_rebuild``
counts any match it left out.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.dispatch import receiver

from games.models import Match
from games.signals import match_finished, match_voided
from ratings import services

log = logging.getLogger(__name__)


@receiver(match_finished, dispatch_uid="ratings.match_finished")
def on_match_finished(sender: object, *, match: Match, **kwargs: object) -> None:
    try:
        with transaction.atomic():
            services.match_rate(match=match)
    except Exception:
        log.exception("Rating match %s failed; run `manage.py ratings_rebuild %s`.", match.pk, match.game)


@receiver(match_voided, dispatch_uid="ratings.match_voided")
def on_match_voided(sender: object, *, match: Match, **kwargs: object) -> None:
    try:
        with transaction.atomic():
            services.match_unrate(match=match)
    except Exception:
        log.exception(
            "Withdrawing match %s failed; run `manage.py ratings_rebuild %s`.", match.pk, match.game
        )
