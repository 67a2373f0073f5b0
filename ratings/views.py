"""Leaderboards: thin views over ``ratings.selectors``."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from games.engines import registry
from ratings import selectors

PAGE_SIZE = 50


@require_GET
def leaderboard_index(request: HttpRequest) -> HttpResponse:
    return render(request, "ratings/index.html", {"games": selectors.rated_games()})


@require_GET
def leaderboard(request: HttpRequest, game: str) -> HttpResponse:
    try:
        engine = registry.get_engine(game)
    except registry.UnknownGame:
        raise Http404("There is no such game.") from None
    page = Paginator(selectors.leaderboard(game=game), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(
        request,
        "ratings/leaderboard.html",
        {"game": game, "title": engine.title, "page": page, "offset": (page.number - 1) * PAGE_SIZE},
    )
