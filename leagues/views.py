"""Thin views: parse the request, call a service or selector, render or redirect."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games.errors import NotFound, ServiceError
from leagues import selectors, services
from leagues.forms import LeagueCloseForm, LeagueForm, SeasonOpenForm
from leagues.models import League, Season


@require_GET
def league_list(request: HttpRequest) -> HttpResponse:
    return render(request, "leagues/list.html", {"leagues": selectors.leagues_list()})


@require_http_methods(["GET", "POST"])
@login_required
def league_create(request: HttpRequest) -> HttpResponse:
    """Any player may organise a league: this page sets it up; its page then opens the seasons."""
    form = LeagueForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            league = services.league_create(created_by=request.user, **form.service_arguments())
        except ServiceError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(
                request, "League created. Open its first season: players sign up until it starts."
            )
            return redirect(league)
    status = 400 if request.method == "POST" else 200
    return render(request, "leagues/form.html", {"form": form, "league": None}, status=status)


@require_http_methods(["GET", "POST"])
@login_required
def league_settings(request: HttpRequest, slug: str) -> HttpResponse:
    league = _league_or_404(slug)
    if not services.can_organise(league=league, user=request.user):
        messages.error(request, "Only the league's organiser can change its settings.")
        return _league_page(request, league, None, status=403)
    form = LeagueForm(request.POST or None, league=league)
    if request.method == "POST" and form.is_valid():
        try:
            services.league_update(league_id=league.pk, by=request.user, **form.service_arguments())
        except ServiceError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, "Settings saved. They apply to every season from its start.")
            return redirect(league)
    status = 400 if request.method == "POST" else 200
    return render(request, "leagues/form.html", {"form": form, "league": league}, status=status)


@require_POST
@login_required
def league_close(request: HttpRequest, slug: str) -> HttpResponse:
    league = _league_or_404(slug)
    if not services.can_close(league=league, user=request.user):
        messages.error(request, "Only the league's organiser or a moderator can close it.")
        return _league_page(request, league, None, status=403)
    form = LeagueCloseForm(request.POST)
    if not form.is_valid():
        return _league_page(request, league, None, close_form=form, status=400)
    try:
        services.league_close(league_id=league.pk, by=request.user, note=form.cleaned_data["note"])
    except ServiceError as exc:
        if exc.status == 403:
            messages.error(request, exc.message)
            return _league_page(request, league, None, status=403)
        messages.error(request, exc.message)
    else:
        messages.success(request, "The league is closed: it starts no more seasons.")
    return redirect(league)


@require_GET
def league_detail(request: HttpRequest, slug: str, number: int | None = None) -> HttpResponse:
    league = _league_or_404(slug)
    return _league_page(request, league, number)


def _league_page(
    request: HttpRequest,
    league: League,
    number: int | None,
    *,
    form: SeasonOpenForm | None = None,
    close_form: LeagueCloseForm | None = None,
    status: int = 200,
) -> HttpResponse:
    try:
        page = selectors.season_page(league=league, number=number)
    except NotFound:
        raise Http404("There is no such season.") from None
    user = request.user
    signed_up = bool(page and user.is_authenticated and any(e.user_id == user.pk for e in page.entries))
    seasons = list(league.seasons.order_by("-number"))
    return render(
        request,
        "leagues/detail.html",
        {
            "league": league,
            "page": page,
            "seasons": seasons,
            # One season takes sign-ups at a time: the next opens once it has started.
            "can_open": league.closed_at is None
            and not any(s.status == Season.Status.SIGNUP for s in seasons),
            "signed_up": signed_up,
            "organiser": services.can_organise(league=league, user=user),
            "can_close": league.closed_at is None and services.can_close(league=league, user=user),
            "open_form": form or SeasonOpenForm(),
            "close_form": close_form or LeagueCloseForm(),
            "place_points": league.place_points(),
            "tie_breaks": selectors.TIE_BREAKS,
        },
        status=status,
    )


@require_POST
@login_required
def season_signup(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    season = _season_or_404(slug, number)
    _run(
        request, lambda: services.entry_signup(season_id=season.pk, user=request.user), "You have signed up."
    )
    return redirect(season)


@require_POST
@login_required
def season_withdraw(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    season = _season_or_404(slug, number)
    _run(request, lambda: services.entry_withdraw(season_id=season.pk, user=request.user), "You withdrew.")
    return redirect(season)


@require_POST
@login_required
def season_open(request: HttpRequest, slug: str) -> HttpResponse:
    league = _league_or_404(slug)
    form = SeasonOpenForm(request.POST)
    if form.is_valid():
        try:
            season = services.season_open(
                league=league, starts_at=form.cleaned_data["starts_at"], by=request.user
            )
        except ServiceError as exc:
            if exc.status == 403:
                messages.error(request, exc.message)
                return _league_page(request, league, None, status=403)
            form.add_error(None, exc.message)
        else:
            messages.success(request, f"Season {season.number} is open for sign-ups.")
            return redirect(season)
    return _league_page(request, league, None, form=form, status=400)


@require_POST
@login_required
def season_start(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    season = _season_or_404(slug, number)
    _run(
        request,
        lambda: services.season_start_now(season_id=season.pk, by=request.user),
        "Sign-up is closed; the fixtures are being created.",
    )
    return redirect(season)


def _league_or_404(slug: str) -> League:
    try:
        return selectors.league_get(slug=slug)
    except NotFound:
        raise Http404("There is no such league.") from None


def _season_or_404(slug: str, number: int):
    league = _league_or_404(slug)
    season = league.seasons.filter(number=number).first()
    if season is None:
        raise Http404("There is no such season.")
    return season


def _run(request: HttpRequest, action, success: str) -> bool:
    try:
        action()
    except NotFound:
        raise Http404("There is no such season.") from None
    except ServiceError as exc:
        messages.error(request, exc.message)
        return False
    messages.success(request, success)
    return True
