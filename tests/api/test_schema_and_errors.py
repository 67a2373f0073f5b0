"""The schema and its documentation pages, the browsable API, and 4xx answers for malformed requests."""

from __future__ import annotations

import pytest
import yaml
from django.contrib.staticfiles import finders
from django.test import override_settings
from django.urls import reverse
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema

from games import services
from tests.conftest import PASSWORD, play_random

pytestmark = pytest.mark.django_db

OPERATIONS = {
    ("/api/ping/", "get"),
    ("/api/games/", "get"),
    ("/api/matches/", "get"),
    ("/api/matches/", "post"),
    ("/api/matches/{match_id}/", "get"),
    ("/api/matches/{match_id}/join/", "post"),
    ("/api/matches/{match_id}/leave/", "post"),
    ("/api/matches/{match_id}/resign/", "post"),
    ("/api/matches/{match_id}/legal-moves/", "get"),
    ("/api/matches/{match_id}/moves/", "post"),
    ("/api/matches/{match_id}/log/", "get"),
}


def test_the_schema_is_valid_openapi_and_lists_every_operation(api):
    answer = api.get("/api/schema/")
    assert answer.status_code == 200
    schema = yaml.safe_load(answer.content)
    validate_schema(schema)
    found = {(path, method) for path, item in schema["paths"].items() for method in item}
    assert found == OPERATIONS
    assert {"tokenAuth", "cookieAuth"} <= set(schema["components"]["securitySchemes"])
    as_json = api.get("/api/schema/?format=json")
    assert as_json.status_code == 200 and as_json.json()["openapi"].startswith("3.")


def test_the_schema_generates_without_warnings():
    from drf_spectacular.drainage import GENERATOR_STATS

    GENERATOR_STATS.reset()
    SchemaGenerator().get_schema(request=None, public=True)
    assert not GENERATOR_STATS._warn_cache and not GENERATOR_STATS._error_cache


@pytest.mark.parametrize("page", ["api-docs", "api-redoc"])
def test_the_documentation_pages_use_bundled_assets_not_a_cdn(api, page):
    answer = api.get(reverse(page))
    assert answer.status_code == 200
    html = answer.content.decode()
    assert "/static/drf_spectacular_sidecar/" in html
    assert "cdn" not in html.lower() and "unpkg" not in html.lower()
    if page == "api-docs":
        # Swagger UI starts from a script file of its own (the page has no inline script), which names
        # the schema.
        html = api.get(reverse(page) + "?script=").content.decode()
    assert reverse("api-schema") in html
    bundle = (
        "swagger-ui-dist/swagger-ui-bundle.js" if page == "api-docs" else "redoc/bundles/redoc.standalone.js"
    )
    assert finders.find(f"drf_spectacular_sidecar/{bundle}")


def test_the_api_root_links_the_endpoints(api):
    data = api.get("/api/").json()
    assert data["schema"].endswith("/api/schema/") and data["docs"].endswith("/api/docs/")


def test_every_read_endpoint_renders_in_the_browsable_api(client, started_match, alice):
    match = play_random(started_match(), moves=3)
    client.force_login(alice)
    urls = ["/api/", "/api/ping/", "/api/games/", "/api/matches/", "/api/matches/?scope=mine"]
    urls += [f"/api/matches/{match.pk}/{tail}" for tail in ("", "legal-moves/", "log/", "moves/", "join/")]
    for url in urls:
        answer = client.get(url, HTTP_ACCEPT="text/html")
        assert answer.status_code in (200, 405), url
        assert answer["Content-Type"].startswith("text/html"), url


def test_the_browsable_api_offers_the_site_s_login(client, alice):
    page = client.get("/api/", HTTP_ACCEPT="text/html").content.decode()
    assert reverse("rest_framework:login") in page
    answer = client.post(
        reverse("rest_framework:login"), {"username": "alice", "password": PASSWORD, "next": "/api/"}
    )
    assert answer.status_code == 302 and answer["Location"] == "/api/"
    assert client.get("/api/matches/?scope=mine").status_code == 200


def test_a_move_from_the_browsable_api_s_html_form_is_played(client, started_match, alice):
    match = started_match()
    client.force_login(alice)
    answer = client.post(f"/api/matches/{match.pk}/moves/", {"move": "d4", "version": "0"})
    assert answer.status_code == 201 and answer.json()["notation"] == "d4"


# --- malformed requests: always a 4xx with a message --------------------------------------------------


@pytest.fixture
def as_alice(client_for, alice):
    return client_for(alice)


@pytest.mark.parametrize(
    ("body", "content_type", "status"),
    [
        ("{bad", "application/json", 400),
        ('{"move": NaN, "version": 0}', "application/json", 400),
        ('{"move": "d4", "version": 1e400}', "application/json", 400),
        ('{"move": "d4", "version": ' + "9" * 5000 + "}", "application/json", 400),
        ("[" * 50_000 + "]" * 50_000, "application/json", 400),
        ('"just a string"', "application/json", 400),
        ("[1, 2]", "application/json", 400),
        ("null", "application/json", 400),
        ("", "application/json", 400),
        (b"\xff\xfe\x00garbage", "application/json", 400),
        ('{"move": "d4", "version": 0}', "application/json; charset=no-such-charset", 201),
        ("move=d4&version=0", "text/plain", 415),
        ("<move/>", "application/xml", 415),
        ("--x\r\nbroken", "multipart/form-data; boundary=x", 400),
        ("--x\r\nbroken", "multipart/form-data", 400),
        # Text that is no text, anywhere in the body (games/text.py), and nesting no request needs.
        ('{"move": "d4\\u0000", "version": 0}', "application/json", 400),
        ('{"move": {"\\u0000": "d4"}, "version": 0}', "application/json", 400),
        ('{"move": "d4", "version": 0, "x": ["\\ud800"]}', "application/json", 400),
        ('{"move": "d4", "version": 0, "x": "\\uffff"}', "application/json", 400),
        ('{"move": "d4", "version": 0, "x": ' + "[" * 40 + "]" * 40 + "}", "application/json", 400),
        # Only UTF-8: UTF-7 and friends can spell a lone surrogate that no parser would see coming.
        ("move=%2B2AA-d4&version=0", "application/x-www-form-urlencoded; charset=utf-7", 400),
        ('{"move": "d4", "version": 0}'.encode("utf-16"), "application/json; charset=utf-16", 400),
        ("move=d4%EF%BF%BE&version=0", "application/x-www-form-urlencoded", 400),
    ],
)
def test_a_malformed_body_is_a_4xx_with_a_message(as_alice, started_match, body, content_type, status):
    match = started_match()
    answer = as_alice.generic("POST", f"/api/matches/{match.pk}/moves/", body, content_type=content_type)
    assert answer.status_code == status, answer.content
    assert answer.json()["detail"] if status != 201 else answer.json()["notation"] == "d4"
    match.refresh_from_db()
    assert match.version == (1 if status == 201 else 0)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ('{"move": "d4", "version": 0, "x": "a\\u0000"}', "The JSON body's field x holds a NUL character"),
        ('{"move": {"place": ["\\udc00"]}}', "The JSON body's field move.place[0] holds a lone surrogate"),
        ('{"move": "d4", "\\ufdd0": 1}', "The JSON body has a key that holds U+FDD0"),
        ('{"move": ' + "[" * 33 + "]" * 33 + "}", "The JSON body nests lists and objects more than 32"),
    ],
)
def test_a_body_holding_what_is_not_text_is_refused_saying_what_and_where(
    as_alice, started_match, body, reason
):
    match = started_match()
    answer = as_alice.generic(
        "POST", f"/api/matches/{match.pk}/moves/", body, content_type="application/json"
    )
    assert answer.status_code == 400
    assert answer.json()["detail"].startswith(reason), answer.json()


def test_a_non_character_in_a_form_encoded_api_body_is_refused(as_alice, alice):
    body = {"game": "wallgo", "seat_count": "2", "name": "x\ufffe"}
    answer = as_alice.post("/api/matches/", body, format="multipart")
    assert answer.status_code == 400
    assert (
        answer.json()["detail"]
        == "name: This text holds U+FFFE, which Unicode reserves as a non-character; remove it and try again."
    )


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=10_000)
def test_an_oversized_body_is_a_json_413_not_an_html_page(as_alice, started_match):
    match = started_match()
    body = '{"move": "d4", "version": 0, "x": "' + "y" * 20_000 + '"}'
    answer = as_alice.generic(
        "POST", f"/api/matches/{match.pk}/moves/", body, content_type="application/json"
    )
    assert answer.status_code == 413
    assert answer["Content-Type"] == "application/json"
    assert answer.json()["detail"] == "The request is too large: the site reads at most 9 KB of data at once."
    match.refresh_from_db()
    assert match.version == 0


@pytest.mark.parametrize(
    "url",
    [
        "/api/nothing-here/",
        "/api/matches/-1/",
        "/api/matches/abc/",
        "/api/matches/1/join",  # no trailing slash: no redirect that would turn a POST into a GET
    ],
)
def test_an_unknown_address_under_api_is_a_json_404(as_alice, url):
    for method in ("get", "post"):
        answer = getattr(as_alice, method)(url)
        assert answer.status_code == 404, (method, url)
        assert answer.json()["detail"]


def test_huge_ids_are_not_found_by_every_endpoint(as_alice):
    for huge in (2**63 - 1, 2**63, 10**30):
        check_huge(as_alice, huge)


def check_huge(as_alice, huge: int) -> None:
    for tail in ("", "log/", "legal-moves/"):
        assert as_alice.get(f"/api/matches/{huge}/{tail}").status_code == 404
    for tail in ("join/", "leave/", "resign/"):
        assert as_alice.post(f"/api/matches/{huge}/{tail}").status_code == 404
    assert as_alice.post(f"/api/matches/{huge}/moves/", {"move": "d4", "version": 0}).status_code == 404


def test_unknown_fields_and_odd_query_strings_are_harmless(as_alice, alice):
    services.match_create(creator=alice, game="wallgo", seat_count=2)
    assert as_alice.get("/api/matches/?page_size=-5&page=1&x=y").status_code == 200
    assert as_alice.get("/api/matches/?scope=nonsense").status_code == 400
    for query, reason in [
        ("x=\x00", "The query parameter x holds a NUL character (U+0000)."),
        ("scope=\x00", "The query parameter scope holds a NUL character (U+0000)."),
        ("\ufdef=1", "A query parameter's name holds U+FDEF, which Unicode reserves as a non-character."),
        (
            "page=%F4%8F%BF%BF",
            "The query parameter page holds U+10FFFF, which Unicode reserves as a non-character.",
        ),
    ]:
        answer = as_alice.get(f"/api/matches/?{query}")
        assert answer.status_code == 400, query
        assert answer.json() == {"detail": reason}
    made = as_alice.post("/api/matches/", {"game": "wallgo", "seat_count": 2, "colour": "red"}, format="json")
    assert made.status_code == 201


def test_answers_have_the_documented_shape(client_for, started_match, alice, bob):
    from datetime import timedelta

    from games.api import serializers as s

    match = play_random(
        started_match(move_time_limit=timedelta(days=1), bank_initial=timedelta(hours=2)), moves=3
    )
    client = client_for(bob)
    url = f"/api/matches/{match.pk}/"
    answers = [
        (s.MatchDetailSerializer, client.get(url).json()),
        (s.LegalMovesSerializer, client.get(url + "legal-moves/").json()),
        (s.MatchLogSerializer, client.get(url + "log/").json()),
        (s.GameSerializer, client.get("/api/games/").json()[0]),
        (s.MatchSummarySerializer, client.get("/api/matches/?scope=mine").json()["results"][0]),
    ]
    mover = client_for(alice)  # snake order: A B B A
    legal = mover.get(url + "legal-moves/").json()
    answers += [
        (s.LegalMovesSerializer, legal),
        (
            s.MovePlayedSerializer,
            mover.post(url + "moves/", {"move": legal["moves"][0]["notation"], "version": 3}).json(),
        ),
    ]
    for serializer, answer in answers:
        checked = serializer(data=answer)
        assert checked.is_valid(), (serializer.__name__, checked.errors)
        assert set(answer) == set(serializer().fields), serializer.__name__
