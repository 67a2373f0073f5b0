"""Post-game analysis on the replay page: the request, the progress poll, and what the replay shows of it."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET, require_POST

from games import livekeys, selectors, services
from games.bots.review import scale_for
from games.engines.base import has_secrets
from games.errors import NotFound, ServiceError
from games.models import Analysis, Match, match_key

# The move list with its marks is kept per match, viewer seat and state of the analysis: a new log line
# or a step of the analysis makes a new key, so an entry is never stale; the timeout only frees memory.
MOVES_SECONDS = 10 * 60


@require_POST
@login_required
def analysis_request(request: HttpRequest, match_id: int) -> HttpResponse:
    """Anyone who can see the match (every match is public) may have it analysed, once."""
    try:
        analysis = services.analysis_request(match_id=match_id)
    except NotFound:
        raise Http404("There is no such match.") from None
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        if analysis.status == Analysis.Status.DONE:
            messages.success(request, "The computer's analysis is below.")
        else:
            messages.success(request, "The computer is analysing this match.")
    return redirect(reverse("match-replay", args=[match_id]) + "#analysis")


@require_GET
@cache_control(no_store=True)
def analysis_progress(request: HttpRequest, match_id: int) -> JsonResponse:
    """The progress bar's figures, for static/js/analysis.js; "none" before anyone asked."""
    try:
        key = match_key(match_id)
        row = Analysis.objects.filter(match_id=key).values("status", "done", "total").first()
        if row is None and not Match.objects.filter(pk=key).exists():
            raise NotFound("There is no such match.")
    except NotFound as exc:
        return JsonResponse({"detail": exc.message}, status=404)
    return JsonResponse(row or {"status": "none", "done": 0, "total": 0})


def replay_context(mv: selectors.MatchView, seq: int | None) -> dict[str, Any]:
    """What the replay page shows of the analysis at step ``seq``: the state of the analysis, the move
    list with its marks, and at a marked move the bot's choice drawn on the position before it.

    Only for a finished match: one in play (a finished one whose last move a moderator took back, too)
    shows no computer's opinion its players could use, and its replay costs no query more."""
    match = mv.match
    if match.status != Match.Status.FINISHED:
        return {"analysis": None, "analysable": False, "moves": [], "current": None, "suggestion": None}
    position = mv.viewer_position
    analysis = selectors.analysis_of(match=match)
    moves = _moves(match, position, analysis)
    current = next((move for move in moves if move.seq == seq), None)
    suggestion = None
    if current is not None and current.mark:
        suggestion = selectors.replay_suggestion(match=match, position=position, move=current)
    return {
        "analysis": analysis,
        "analysable": True,
        "moves": moves,
        "marked": sum(1 for move in moves if move.mark),
        "current": current,
        "suggestion": suggestion,
        "scale": scale_for(match.engine),
        "own_marks_only": has_secrets(match.engine),
    }


def _moves(match: Match, position: int | None, analysis: Analysis | None) -> list[selectors.ReplayMove]:
    state = "none"
    if analysis is not None:
        finished = analysis.finished_at.timestamp() if analysis.finished_at else ""
        state = f"{analysis.status}.{finished}"
    drawn_from = f"{match.log_length}.{match.version}:{position}:{state}"
    key = f"replay-moves:{selectors.match_cache_id(match)}.{drawn_from}"
    found = livekeys.cache_read([key])
    if key in found:
        return found[key]
    moves = selectors.replay_moves(match=match, position=position, analysis=analysis)
    livekeys.cache_write({key: moves}, MOVES_SECONDS)
    return moves
