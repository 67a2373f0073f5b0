"""The fast content negotiation picks what DRF's own would, and the API still answers JSON or HTML."""

from __future__ import annotations

import pytest
from django.http import Http404
from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer, BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.test import APIRequestFactory

from games.api.negotiation import FastContentNegotiation

MISSING = None
ACCEPTS = [
    MISSING,
    "*/*",
    "application/json",
    " application/json ",
    "",
    "text/html",
    "application/json; indent=4",
    "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "*/*;q=0.5",
    "image/png",
]
QUERIES = ["", "page=2", "format=json", "format=api", "format=bogus", "%66ormat=api", "informat=x"]


def outcome(negotiator: DefaultContentNegotiation, renderers: list[BaseRenderer], **request) -> tuple:
    """(renderer class, media type), or the exception class raised."""
    query = request.pop("query", "")
    accept = request.pop("accept", MISSING)
    headers = {} if accept is MISSING else {"HTTP_ACCEPT": accept}
    django_request = APIRequestFactory().get(f"/api/ping/?{query}" if query else "/api/ping/", **headers)
    try:
        renderer, media_type = negotiator.select_renderer(Request(django_request), renderers, **request)
    except (Http404, NotAcceptable) as exc:
        return (type(exc),)
    return type(renderer), media_type


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("accept", ACCEPTS)
def test_the_fast_negotiation_picks_what_drf_picks(accept, query):
    renderers = [JSONRenderer(), BrowsableAPIRenderer()]
    fast = outcome(FastContentNegotiation(), renderers, accept=accept, query=query)
    assert fast == outcome(DefaultContentNegotiation(), renderers, accept=accept, query=query)


@pytest.mark.parametrize(
    ("accept", "query", "expected"),
    [
        (MISSING, "", (JSONRenderer, "application/json")),
        ("*/*", "", (JSONRenderer, "application/json")),
        ("application/json", "", (JSONRenderer, "application/json")),
        ("text/html", "", (BrowsableAPIRenderer, "text/html")),
        (MISSING, "format=api", (BrowsableAPIRenderer, "text/html")),
        (MISSING, "%66ormat=api", (BrowsableAPIRenderer, "text/html")),
        (MISSING, "format=bogus", (Http404,)),
        ("", "", (NotAcceptable,)),
    ],
)
def test_what_drf_picks_is_what_the_fast_path_assumes(accept, query, expected):
    renderers = [JSONRenderer(), BrowsableAPIRenderer()]
    assert outcome(FastContentNegotiation(), renderers, accept=accept, query=query) == expected


@pytest.mark.parametrize("accept", [MISSING, "*/*", "application/json"])
def test_the_fast_path_defers_to_drf_for_a_suffix_or_another_first_renderer(accept):
    both = [JSONRenderer(), BrowsableAPIRenderer()]
    html_first = [BrowsableAPIRenderer(), JSONRenderer()]
    for renderers, request in [(both, {"format_suffix": "api"}), (html_first, {})]:
        fast = outcome(FastContentNegotiation(), renderers, accept=accept, **request)
        assert fast == outcome(DefaultContentNegotiation(), renderers, accept=accept, **request)


def test_the_fast_path_never_builds_the_query_params():
    request = Request(APIRequestFactory().get("/api/ping/", HTTP_ACCEPT="application/json"))
    renderers = [JSONRenderer(), BrowsableAPIRenderer()]
    assert FastContentNegotiation().select_renderer(request, renderers) == (renderers[0], "application/json")
    assert "GET" not in request._request.__dict__


def test_the_fast_path_without_a_format_parameter(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "URL_FORMAT_OVERRIDE": None}
    renderers = [JSONRenderer(), BrowsableAPIRenderer()]
    for query in ["format=api", "%66ormat=api"]:
        fast = outcome(FastContentNegotiation(), renderers, query=query)
        assert (
            fast
            == outcome(DefaultContentNegotiation(), renderers, query=query)
            == (JSONRenderer, "application/json")
        )


@pytest.mark.django_db
def test_the_api_answers_json_and_the_browsable_page(api):
    assert api_settings.DEFAULT_CONTENT_NEGOTIATION_CLASS is FastContentNegotiation
    for headers in [{}, {"HTTP_ACCEPT": "*/*"}, {"HTTP_ACCEPT": "application/json"}]:
        answer = api.get("/api/ping/", **headers)
        assert answer.status_code == 200
        assert answer["Content-Type"] == "application/json"
        assert answer.json() == {"ok": True}
    page = api.get("/api/ping/", HTTP_ACCEPT="text/html")
    assert page.status_code == 200
    assert page["Content-Type"].startswith("text/html")
    assert "<html" in page.content.decode().lower()
    assert api.get("/api/ping/?format=api")["Content-Type"].startswith("text/html")
    assert api.get("/api/ping/?format=bogus").status_code == 404
