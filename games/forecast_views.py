"""The match page's conditional moves: the owner's box (``forecast_context``), adding a line (typed, or
clicked on a board of the position after the line so far), deleting one, clearing them all."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET, require_POST

from games import selectors, services
from games.errors import InvalidMove, NotFound, ServiceError
from games.models import Match, Seat
from games.services.forecasting import MAX_DEPTH, MAX_LINES, forecasts_offered
from games.text import TextCheckedForm

# What a refused line leaves for the page it goes back to: the text typed, and why it was refused.
STASH = "forecast-refused"


class ForecastLineForm(TextCheckedForm, forms.Form):
    line = forms.CharField(max_length=MAX_DEPTH * 201, label="Line", strip=True)
    version = forms.IntegerField(widget=forms.HiddenInput, min_value=0)


class ForecastDeleteForm(TextCheckedForm, forms.Form):
    index = forms.IntegerField(min_value=0, max_value=MAX_LINES - 1)
    version = forms.IntegerField(widget=forms.HiddenInput, min_value=0)


def line_split(text: str) -> list[str]:
    """A line as typed: moves separated by spaces or commas."""
    return [part for part in re.split(r"[\s,]+", text) if part]


def forecast_context(request: HttpRequest, mv: selectors.MatchView) -> dict[str, Any]:
    """The box for the viewer's own plan (``forecast``: None when there is none to show), rendered
    outside the page's cached parts: it is the viewer's alone and changes without a new version."""
    match, seat = mv.match, mv.seat
    if (
        seat is None
        or seat.status != Seat.Status.PLAYING
        or match.status != Match.Status.ACTIVE
        or not forecasts_offered(match)
    ):
        return {"forecast": None}
    opponent = next((s for s in mv.seats if s.pk != seat.pk), None)
    if opponent is None:
        return {"forecast": None}
    refused = request.session.pop(STASH, None) if STASH in request.session else None
    if refused and refused.get("match") != match.pk:
        refused = None
    # Planned while the opponent alone is to move (the page's own turns say so): on the viewer's own
    # turn no plan can hold for the position, and none is looked for.
    open_now = mv.actors == frozenset({opponent.position})
    plan = selectors.forecast_for(match=match, seat=seat) if open_now else None
    lines = plan.lines if plan else []
    return {
        "forecast": {
            "open": open_now,
            "opponent": opponent.player_name,
            "lines": [
                {
                    "index": index,
                    "pairs": list(zip(line[::2], line[1::2], strict=True)),
                    "text": " ".join(line),
                }
                for index, line in enumerate(lines)
            ],
            "full": len(lines) >= MAX_LINES,
            "max_lines": MAX_LINES,
            "max_depth": MAX_DEPTH,
            "version": match.version,
            "typed": refused.get("text", "") if refused else "",
            "error": refused.get("error", "") if refused else "",
        }
    }


def _back(match_id: int) -> HttpResponse:
    return redirect(reverse("match-detail", args=[match_id]) + "#forecast")


def _current_lines(request: HttpRequest, match_id: int) -> list[list[str]]:
    mv = selectors.match_view_for(match_id=match_id, user=request.user, state=False)
    plan = selectors.forecast_for(match=mv.match, seat=mv.seat)
    return [list(line) for line in plan.lines] if plan else []


@require_POST
@login_required
def forecast_add(request: HttpRequest, match_id: int) -> HttpResponse:
    """Add a line, given in notation (the board's clicks fill in the same field)."""
    form = ForecastLineForm(request.POST)
    lines: list[list[str]] = []
    try:
        if not form.is_valid():
            reason = next(iter(form.errors.values()))[0]
            raise InvalidMove(
                f"The line: {reason}" if "line" in form.errors else "Reload the page and try again."
            )
        lines = [*_current_lines(request, match_id), line_split(form.cleaned_data["line"])]
        services.forecast_save(
            match_id=match_id, user=request.user, lines=lines, expected_version=form.cleaned_data["version"]
        )
    except NotFound:
        raise Http404("There is no such match.") from None
    except InvalidMove as exc:
        # Shown in the box, by the field, with what was typed (only text that passed the form's checks);
        # the new line is the last, and the reason calls it so.
        reason = re.sub(rf"^Line {len(lines)}\b", "This line", exc.message) if lines else exc.message
        request.session[STASH] = {
            "match": match_id,
            "text": form.cleaned_data.get("line", "") if form.is_valid() else "",
            "error": reason,
        }
        return _back(match_id)
    except ServiceError as exc:
        messages.error(request, exc.message)
        return _back(match_id)
    messages.success(request, "Conditional move line added.")
    return _back(match_id)


@require_POST
@login_required
def forecast_delete(request: HttpRequest, match_id: int) -> HttpResponse:
    form = ForecastDeleteForm(request.POST)
    try:
        if not form.is_valid():
            raise InvalidMove("There is no such line: reload the page and try again.")
        lines = _current_lines(request, match_id)
        index = form.cleaned_data["index"]
        if index >= len(lines):
            raise InvalidMove("There is no such line: it may have been played or cleared already.")
        del lines[index]
        services.forecast_save(
            match_id=match_id, user=request.user, lines=lines, expected_version=form.cleaned_data["version"]
        )
    except NotFound:
        raise Http404("There is no such match.") from None
    except ServiceError as exc:
        messages.error(request, exc.message)
        return _back(match_id)
    messages.success(request, "Line deleted.")
    return _back(match_id)


@require_POST
@login_required
def forecast_clear(request: HttpRequest, match_id: int) -> HttpResponse:
    try:
        services.forecast_clear(match_id=match_id, user=request.user)
    except NotFound:
        raise Http404("There is no such match.") from None
    except ServiceError as exc:
        messages.error(request, exc.message)
        return _back(match_id)
    messages.success(request, "Conditional moves cleared.")
    return _back(match_id)


@require_GET
@cache_control(private=True, no_cache=True)
def forecast_board(request: HttpRequest, match_id: int) -> JsonResponse:
    """The board after the line so far (``?line=``, moves separated by commas or spaces) and the legal
    moves of the seat to move there, in the form the match page's ``#legal-moves`` has, for clicking
    the line's next move (static/js/forecast.js)."""
    if not request.user.is_authenticated:
        return JsonResponse({"detail": "Log in to plan conditional moves."}, status=403)
    text = request.GET.get("line", "")
    try:
        position = services.forecast_position(match_id=match_id, user=request.user, line=line_split(text))
    except NotFound:
        return JsonResponse({"detail": "There is no such match."}, status=404)
    except ServiceError as exc:
        return JsonResponse({"detail": exc.message}, status=exc.status)
    engine = position.engine
    owner = position.owner.position
    view = engine.view(position.state, owner)
    mover = position.to_move
    moves: list[dict[str, Any]] = []
    if mover is not None and len(position.line) < MAX_DEPTH:
        moves = selectors.legal_choices(engine=engine, state=position.state, view=view, seat=mover)
    if len(position.line) >= MAX_DEPTH:
        prompt = f"A line has at most {MAX_DEPTH} moves: add it now."
    elif mover is None:
        prompt = "Nobody can move after this: the line ends here."
    elif mover == owner:
        prompt = "Now click your reply on the board."
    else:
        prompt = f"Click the move {position.opponent.player_name} might play."
    body = {
        "line": position.line,
        "mover": "you" if mover == owner else ("opponent" if mover is not None else None),
        "prompt": prompt,
        "svg": engine.render_svg(view, mover if mover is not None else owner, interactive=bool(moves)),
        "moves": moves,
    }
    return JsonResponse(body)
