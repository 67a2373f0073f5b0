"""Thin views: parse the request, call a service or selector, render or redirect."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games import calendar, presence, selectors, services
from games.errors import Forbidden, NotFound, ServiceError
from games.forms import MatchCreateForm, MoveForm
from games.models import Match


@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    open_matches = selectors.matches_open()[:50]
    return render(request, "games/lobby.html", {"open_matches": open_matches})


@require_GET
@login_required
def my_matches(request: HttpRequest) -> HttpResponse:
    matches = selectors.matches_for_user(user=request.user)
    return render(request, "games/my_matches.html", {"matches": matches})


@require_http_methods(["GET", "POST"])
@login_required
def match_create(request: HttpRequest) -> HttpResponse:
    form = MatchCreateForm(request.POST or None, initial={"game": request.GET.get("game")})
    preview = ""
    if request.method == "POST" and "preview" in request.POST:
        # Draw the starting board from the chosen options (a custom layout too), creating nothing.
        if form.is_valid():
            data = form.cleaned_data
            preview = selectors.starting_board(
                game=data["game"], seats=data["seat_count"], options=data["options"]
            )
        status = 200 if form.is_valid() else 400
        return render(request, "games/match_create.html", _create_context(form, preview), status=status)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            match = services.match_create(
                creator=request.user,
                game=data["game"],
                seat_count=data["seat_count"],
                options=data["options"],
                name=data["name"],
                move_time_limit=data["move_time_limit"],
                bank_initial=data["bank_initial"],
                bank_increment=data["bank_increment"],
                bank_max=data["bank_max"],
                pause_weekends=data["pause_weekends"],
                timeout_policy=data["timeout_policy"],
                bots=data["bots"],
                rated=data["rated"],
                account_limits=True,
            )
        except ServiceError as exc:
            form.add_error(None, exc.message)
        else:
            if match.status == Match.Status.ACTIVE:
                messages.success(request, "Match created; every seat is taken, so it has started.")
            else:
                messages.success(request, "Match created. It starts as soon as every seat is taken.")
            return redirect(match)
    status = 400 if request.method == "POST" else 200
    return render(request, "games/match_create.html", _create_context(form, preview), status=status)


def _create_context(form: MatchCreateForm, preview: str) -> dict:
    return {"form": form, "preview": preview, "option_examples": form.option_examples()}


LOG_LINES_ON_PAGE = 30
LOG_LINES_PER_PAGE = 200


@require_GET
def match_log(request: HttpRequest, match_id: int) -> HttpResponse:
    """The whole game log, a page of lines at a time (the last page first), filtered like the view."""
    mv = _view_or_404(request, match_id)
    match = mv.match
    pages = max(1, -(-match.log_length // LOG_LINES_PER_PAGE))
    try:
        page = int(request.GET.get("page", pages))
    except ValueError:
        page = pages
    page = min(max(page, 1), pages)
    first = (page - 1) * LOG_LINES_PER_PAGE + 1
    lines = selectors.match_log_for(
        match=match, position=mv.viewer_position, first=first, last=first + LOG_LINES_PER_PAGE - 1
    )
    context = {"match": match, "log": lines, "page": page, "pages": pages, "page_range": range(1, pages + 1)}
    return render(request, "games/match_log.html", context)


@require_GET
def match_replay(request: HttpRequest, match_id: int) -> HttpResponse:
    """The match move by move (``?at=`` a log line's number, the latest by default), as the viewer saw it."""
    mv = _view_or_404(request, match_id)
    try:
        at = int(request.GET.get("at", mv.match.log_length))
    except ValueError:
        at = mv.match.log_length
    step = selectors.replay_step(match=mv.match, position=mv.viewer_position, seq=at)
    return render(request, "games/match_replay.html", {"match": mv.match, "step": step})


@require_GET
def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    mv = _view_or_404(request, match_id)
    if presence.seat_present(seat=mv.seat, user=request.user):
        messages.info(request, "Welcome back: the computer stopped playing for you.")
    return render(request, "games/match_detail.html", _detail_context(request, mv))


@require_GET
def match_board(request: HttpRequest, match_id: int) -> HttpResponse:
    """The board alone as SVG, drawn for the viewer's seat."""
    mv = _view_or_404(request, match_id)
    svg = mv.match.engine.render_svg(mv.view, mv.viewer_position, interactive=False) if mv.view else ""
    return HttpResponse(svg, content_type="image/svg+xml")


@require_POST
@login_required
def match_join(request: HttpRequest, match_id: int) -> HttpResponse:
    _run(request, lambda: services.seat_join(match_id=match_id, user=request.user), "You have joined.")
    return redirect("match-detail", match_id=match_id)


@require_POST
@login_required
def match_leave(request: HttpRequest, match_id: int) -> HttpResponse:
    if _run(
        request, lambda: services.seat_leave(match_id=match_id, user=request.user), "You left the match."
    ):
        return redirect("lobby")
    return redirect("match-detail", match_id=match_id)


@require_POST
@login_required
def match_resign(request: HttpRequest, match_id: int) -> HttpResponse:
    _run(request, lambda: services.match_resign(match_id=match_id, user=request.user), "You resigned.")
    return redirect("match-detail", match_id=match_id)


@require_POST
@login_required
def match_move(request: HttpRequest, match_id: int) -> HttpResponse:
    form = MoveForm(request.POST)
    if not form.is_valid():
        mv = _view_or_404(request, match_id)
        return render(
            request, "games/match_detail.html", _detail_context(request, mv, move_form=form), status=400
        )
    try:
        move = services.move_play(
            match_id=match_id,
            user=request.user,
            expected_version=form.cleaned_data["version"],
            text=form.cleaned_data["move"],
        )
    except NotFound:
        raise Http404("There is no such match.") from None
    except ServiceError as exc:
        form.add_error("move", exc.message)
        mv = _view_or_404(request, match_id)
        return render(
            request,
            "games/match_detail.html",
            _detail_context(request, mv, move_form=form),
            status=exc.status,
        )
    messages.success(request, f"Played {move.notation}.")
    return redirect("match-detail", match_id=match_id)


def _run(request: HttpRequest, action, success: str) -> bool:
    try:
        action()
    except NotFound:
        raise Http404("There is no such match.") from None
    except ServiceError as exc:
        messages.error(request, exc.message)
        return False
    messages.success(request, success)
    return True


def _view_or_404(request: HttpRequest, match_id: int) -> selectors.MatchView:
    try:
        return selectors.match_view_for(match_id=match_id, user=request.user)
    except NotFound:
        raise Http404("There is no such match.") from None


def _detail_context(request: HttpRequest, mv: selectors.MatchView, move_form: MoveForm | None = None) -> dict:
    match = mv.match
    engine = match.engine
    board = ""
    choices: list[dict] = []
    if match.status != Match.Status.OPEN and mv.view:
        board = engine.render_svg(mv.view, mv.viewer_position, interactive=mv.my_turn)
        if mv.my_turn:
            # The board script walks these click paths; the server stays the only judge of legality.
            choices = [
                {"path": engine.click_path(m), "text": engine.format_move(m)}
                for m in engine.legal_moves(match.engine_state, mv.viewer_position)
            ]
    if move_form is None:
        move_form = MoveForm(initial={"version": match.version})
    else:
        # Re-rendering after an error: offer the current version, keep what the player typed.
        move_form.data = move_form.data.copy()
        move_form.data["version"] = match.version
    joined = {seat.user_id for seat in mv.seats}
    return {
        "match": match,
        "mv": mv,
        "engine": engine,
        "board": board,
        "choices": choices,
        # A game's own side panel, or the plain one for a game without (the tests' small engines).
        "panel_templates": [f"{engine.slug}/_panel.html", "games/_panel.html"],
        "move_form": move_form,
        # The latest lines only, so a long match's page costs what a short one's does.
        "log": selectors.match_log_for(
            match=match, position=mv.viewer_position, first=match.log_length - LOG_LINES_ON_PAGE + 1
        ),
        "log_hidden": max(0, match.log_length - LOG_LINES_ON_PAGE),
        "can_join": (
            match.status == Match.Status.OPEN
            and request.user.is_authenticated
            and request.user.pk not in joined
            and len(mv.seats) < match.seat_count
        ),
        "option_labels": [
            (engine.options[name].label, engine.options[name].choices.get(value, value))
            for name, value in match.options.items()
            if name in engine.options
        ],
    }


# --- presence and the calendar feed ----------------------------------------------------------------


@require_POST
@login_required
def match_seen(request: HttpRequest, match_id: int) -> HttpResponse:
    """The heartbeat of an open match page (static/js/presence.js)."""
    try:
        presence.seat_seen(match_id=match_id, user=request.user)
    except NotFound:
        raise Http404("There is no such match.") from None
    except Forbidden as exc:
        return HttpResponse(exc.message, status=403, content_type="text/plain; charset=utf-8")
    return HttpResponse(status=204)


@require_GET
def calendar_feed(request: HttpRequest, token: str) -> HttpResponse:
    """The user's deadlines as iCalendar; the secret token in the address is the only key."""
    user = get_object_or_404(get_user_model(), calendar_token=token, is_active=True)
    response = HttpResponse(
        calendar.calendar_for_user(user=user, now=timezone.now()), content_type="text/calendar; charset=utf-8"
    )
    response["Content-Disposition"] = 'inline; filename="wallsite-deadlines.ics"'
    response["Cache-Control"] = "private, no-cache"
    response["X-Robots-Tag"] = "noindex"
    return response
