"""League standings follow their matches. The signals come inside the match's transaction; a failure
here is logged and rolled back to a savepoint, never allowed to undo the move that ended the match:
the minute tick (``services.seasons_tick``) records any finished league match it left behind."""

from __future__ import annotations

import logging

from django.db import transaction
from django.dispatch import receiver

from games.models import Match
from games.signals import match_finished, match_title, match_voided
from leagues import services
from leagues.models import Fixture

log = logging.getLogger(__name__)


@receiver(match_finished, dispatch_uid="leagues.match_finished")
def on_match_finished(sender: object, *, match: Match, **kwargs: object) -> None:
    # Most matches are no league's: one indexed read spares them the savepoints and locks below.
    if not Fixture.objects.filter(match_id=match.pk).exists():
        return
    try:
        with transaction.atomic():
            services.result_record(match=match)
    except Exception:
        log.exception("Recording the league result of match %s failed; the tick will retry.", match.pk)


@receiver(match_voided, dispatch_uid="leagues.match_voided")
def on_match_voided(sender: object, *, match: Match, **kwargs: object) -> None:
    try:
        with transaction.atomic():
            services.result_void(match=match)
    except Exception:
        log.exception("Voiding the league result of match %s failed.", match.pk)


@receiver(match_title, dispatch_uid="leagues.match_title")
def fixture_title(sender: object, *, match: Match, **kwargs: object) -> str | None:
    """A league match's e-mails name the fixture (league, season, division and round)."""
    fixture = Fixture.objects.select_related("division__season__league").filter(match_id=match.pk).first()
    return None if fixture is None else fixture.title
