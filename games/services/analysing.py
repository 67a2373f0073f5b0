"""Analysing a finished match: the search bot rates every move a seat made, from that seat's view.

``analysis_request`` creates the match's one ``Analysis`` row and queues the work; ``analysis_run`` (the
task on the "bots" queue) does it. The rating itself is the pure ``games.bots.review``.

A task delivered twice (a retry, a redelivery after a worker died) has the effect of once: the run
claims the row with a conditional UPDATE from "queued" to "running", and every later write names the
status it expects. A row left "queued" or "running" by a lost task is queued again by the next request
after ``REQUEUE_AFTER``; the rating is deterministic, so a second run writes the same marks.
"""

from __future__ import annotations

import json
import logging
import random
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from games import dispatch
from games.bots.review import move_review
from games.engines.base import Engine
from games.errors import Conflict, NotFound
from games.models import Analysis, Match, Move, match_key
from games.rng import step_stream

log = logging.getLogger(__name__)

REQUEUE_AFTER = timedelta(minutes=10)
PROGRESS_EVERY = 4  # positions between two saves of the progress bar's figures
TASK = "games.analysis_run"


def analysis_request(*, match_id: Any) -> Analysis:
    """The match's analysis, created and queued on the first request; a later request leaves it as it
    is, except one that failed or that has waited ``REQUEUE_AFTER`` for a worker, which is queued again.
    Only a finished match is analysed."""
    key = match_key(match_id)
    now = timezone.now()
    with transaction.atomic():
        match = Match.objects.filter(pk=key).only("pk", "status").first()
        if match is None:
            raise NotFound("There is no such match.")
        if match.status != Match.Status.FINISHED:
            raise Conflict("Only a finished match can be analysed.")
        analysis, created = Analysis.objects.get_or_create(match=match)
        again = not created and _requeue(analysis, now=now)
        if created or again:
            transaction.on_commit(lambda: _queue(key))
    if again:
        analysis.refresh_from_db()
    return analysis


def _requeue(analysis: Analysis, *, now: Any) -> bool:
    """Put a failed analysis, or one that has waited too long for a worker, back in the queue. The row's
    created_at then says when it was last queued; the UPDATE is conditional, so two requests at once
    queue it once."""
    if analysis.status == Analysis.Status.FAILED:
        stuck = Analysis.objects.filter(status=Analysis.Status.FAILED)
    else:
        waiting = [Analysis.Status.QUEUED, Analysis.Status.RUNNING]
        stuck = Analysis.objects.filter(status__in=waiting, created_at__lte=now - REQUEUE_AFTER)
    changed = stuck.filter(pk=analysis.pk).update(
        status=Analysis.Status.QUEUED, done=0, created_at=now, finished_at=None
    )
    return bool(changed)


def _queue(match_id: int) -> None:
    dispatch.enqueue_safely(
        lambda: dispatch.task_send(TASK, match_id), what=f"the analysis of match {match_id}"
    )


def analysis_run(*, match_id: int) -> Analysis | None:
    """Rate every move of the match, saving the progress as it goes; None when the row is not waiting
    (already claimed by another run, done, or never requested)."""
    claimed = Analysis.objects.filter(match_id=match_id, status=Analysis.Status.QUEUED).update(
        status=Analysis.Status.RUNNING, done=0
    )
    if not claimed:
        return None
    try:
        marks = _analyse(match_id)
    except Exception:
        log.exception("The analysis of match %s failed.", match_id)
        Analysis.objects.filter(match_id=match_id, status=Analysis.Status.RUNNING).update(
            status=Analysis.Status.FAILED, finished_at=timezone.now()
        )
    else:
        Analysis.objects.filter(match_id=match_id, status=Analysis.Status.RUNNING).update(
            status=Analysis.Status.DONE, marks=marks, done=len(marks), finished_at=timezone.now()
        )
    return Analysis.objects.get(match_id=match_id)


def _analyse(match_id: int) -> list[dict[str, Any]]:
    match = Match.objects.defer("engine_state", "rng_state", "public_view").get(pk=match_id)
    engine = match.engine
    lines = list(match.moves.select_related("seat").order_by("seq"))
    rated = [line for line in lines if _moved(line)]
    Analysis.objects.filter(match_id=match_id, status=Analysis.Status.RUNNING).update(total=len(rated))
    marks = []
    before: dict[str, Any] | None = None
    done = 0
    for line in lines:
        if _moved(line):
            if before is None:
                before = _opening(match, engine, line)
            if before is not None:
                try:
                    review = move_review(
                        engine, before, line.seat.position, line.move, seed=f"analysis:{match.pk}:{line.seq}"
                    )
                except ValueError as exc:  # not this seat's move here (an old log): left unrated
                    log.info("Match %s line %s is not rated: %s", match.pk, line.seq, exc)
                else:
                    marks.append(
                        {
                            "seq": line.seq,
                            "mark": review.mark,
                            "loss": review.loss,
                            "best": review.best,
                            "best_move": review.best_move,
                        }
                    )
            done += 1
            if done % PROGRESS_EVERY == 0:
                Analysis.objects.filter(match_id=match_id, status=Analysis.Status.RUNNING).update(done=done)
        if line.state_after:  # a line from before the start holds no position
            before = line.state_after
    return marks


def _moved(line: Move) -> bool:
    return line.seat_id is not None and line.move is not None


def _opening(match: Match, engine: Engine, first: Move) -> dict[str, Any] | None:
    """The position before the first line, which no row stores: dealt again from the seed's step 0 (a
    match from before seeds: from any generator, for games whose setup draws nothing). None unless the
    first move played on it gives the stored position back."""
    rng = step_stream(match.seed, 0) if match.provable else random.Random(0)
    state = engine.new_state(seats=match.seat_count, options=match.options, rng=rng)
    try:
        after, _ = engine.apply(state, first.seat.position, first.move)
    except ValueError:
        return None
    return state if _plain(after) == _plain(first.state_after) else None


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


def position_before(*, match: Match, seq: int) -> dict[str, Any] | None:
    """The full position in which log line ``seq`` was played (server-only, like ``state_after``)."""
    for previous in match.moves.filter(seq__lt=seq).order_by("-seq").only("state_after").iterator():
        if previous.state_after:  # a line from before the start holds no position
            return previous.state_after
    first = match.moves.select_related("seat").filter(seq=seq).first()
    if first is None or not _moved(first):
        return None
    return _opening(match, match.engine, first)
