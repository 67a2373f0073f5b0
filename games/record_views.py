"""Provable dice and game records: a match's "Verify the dice" page, its record as JSON, and the page
that replays and verifies a record someone brings (``games/records.py`` does the checking)."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_http_methods

from games import records
from games.errors import NotFound
from games.models import Match, match_key

# A record of the longest matches is a few hundred kilobytes; the page sends it back with each step.
MAX_RECORD_BYTES = 2_000_000


def match_record(match: Match) -> dict[str, Any]:
    """The record of an ended match, from its rows; its seed only once the match has ended."""
    engine = match.engine
    seats = [
        {
            "position": seat.position,
            "player": seat.player_name,
            "computer": seat.bot,
            "status": seat.status,
            "score": seat.score,
            "rank": seat.rank,
        }
        for seat in match.seats.select_related("user")
    ]
    lines = [
        {
            "seq": line.seq,
            "at": line.created_at.isoformat(),
            "seat": line.seat.position if line.seat else None,
            "player": line.seat.player_name if line.seat else "",
            "move": line.move,
            "notation": line.notation,
            "chance_step": line.chance_step,
            "events": line.events,
            "state": line.state_after,
        }
        for line in match.moves.select_related("seat__user").order_by("seq")
    ]
    data = {
        "id": match.pk,
        "game": match.game,
        "title": engine.title,
        "name": match.display_name,
        "options": match.options,
        "seat_count": match.seat_count,
        "status": match.status,
        "result": match.result_text,
        "created_at": match.created_at.isoformat(),
        "started_at": match.started_at.isoformat() if match.started_at else None,
        "finished_at": match.finished_at.isoformat() if match.finished_at else None,
        "rules_version": match.rules_version,
    }
    return records.record_build(
        match=data,
        seats=seats,
        lines=lines,
        engine=engine,
        seed=match.seed_revealed,
        commitment=match.seed_commitment,
    )


def _match_or_404(match_id: Any) -> Match:
    try:
        # The seed is read here, and told only by Match.seed_revealed (an ended match).
        return Match.objects.defer("rng_state", "engine_state").get(pk=match_key(match_id))
    except (Match.DoesNotExist, NotFound):
        raise Http404("There is no such match.") from None


@require_GET
def match_verify(request: HttpRequest, match_id: int) -> HttpResponse:
    """The commitment while the match runs; once it has ended, every random step drawn again from the
    revealed seed beside what the log recorded."""
    match = _match_or_404(match_id)
    result = records.record_verify(match_record(match)) if match.seed_revealed else None
    context = {
        "match": match,
        "result": result,
        "commitment": _breakable(match.seed_commitment),
        "seed": _breakable(result.seed if result else ""),
    }
    return render(request, "games/match_verify.html", context)


def _breakable(digits: str) -> list[str]:
    """64 hex digits in pieces the page joins with <wbr>: a phone breaks the line there, and a copy
    of the text is still the whole number."""
    return [digits[start : start + 16] for start in range(0, len(digits), 16)]


@require_GET
def match_record_download(request: HttpRequest, match_id: int) -> HttpResponse:
    """The record of an ended match as a JSON file."""
    match = _match_or_404(match_id)
    if not match.ended:
        return HttpResponse(
            "A match's record can be downloaded once the match has ended.\n",
            status=409,
            content_type="text/plain; charset=utf-8",
        )
    body = json.dumps(match_record(match), indent=1, ensure_ascii=False)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="wallsite-match-{match.pk}.json"'
    return response


class RecordForm(forms.Form):
    file = forms.FileField(required=False, label="Record file (JSON)")
    text = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 4}), label="Or paste the record"
    )
    at = forms.IntegerField(required=False, min_value=0)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        upload = data.get("file")
        if upload is not None:
            if upload.size > MAX_RECORD_BYTES:
                raise forms.ValidationError("That file is too large to be a record of this site.")
            raw = upload.read()
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise forms.ValidationError("That file is not text (a record is UTF-8 JSON).") from None
        else:
            text = data.get("text") or ""
        if not text.strip():
            raise forms.ValidationError("Choose a record file, or paste a record.")
        if len(text.encode("utf-8")) > MAX_RECORD_BYTES:
            raise forms.ValidationError("That is too large to be a record of this site.")
        try:
            data["record"] = records.record_load(text)
        except records.RecordInvalid as exc:
            raise forms.ValidationError(str(exc)) from None
        data["text"] = text
        return data


@require_http_methods(["GET", "POST"])
def record_import(request: HttpRequest) -> HttpResponse:
    """Load a record (a file, or pasted), verify it from its own seed and replay it line by line. The
    page keeps the record in the form, so stepping through it needs nothing stored on the server."""
    form = RecordForm(request.POST or None, request.FILES or None)
    context: dict[str, Any] = {"form": form}
    if request.method == "POST" and form.is_valid():
        record = form.cleaned_data["record"]
        result = records.record_verify(record)
        lines = result.lines
        last = len(lines) if result.ok else max(len(lines) - 1, 0)
        at = form.cleaned_data.get("at")
        at = last if at is None else min(at, last)
        board = ""
        shown = records.record_verify(record, upto=at) if at < len(lines) else result
        if shown.engine is not None and shown.state is not None:
            engine = shown.engine
            board = engine.render_svg(engine.view(shown.state, None), None, interactive=False)
        context.update(
            record=record,
            text=form.cleaned_data["text"],
            result=result,
            at=at,
            last=last,
            board=board,
            line=lines[at - 1] if 0 < at <= len(lines) else None,
            commitment=_breakable(result.commitment),
        )
    return render(request, "games/record_import.html", context)
