"""The schema and its documentation pages, the browsable API, and 4xx answers for malformed requests."""

from __future__ import annotations

import pytest
import yaml
from django.contrib.staticfiles import finders
from django.test import override_settings
from django.urls import reverse
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema
from openapi_spec_validator import validate

from games import services
from games.models import Match
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
    ("/api/matches/{match_id}/forecast/", "get"),
    ("/api/matches/{match_id}/forecast/", "put"),
    ("/api/matches/{match_id}/forecast/", "delete"),
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


def test_the_schema_passes_openapi_spec_validator(api):
    validate(yaml.safe_load(api.get("/api/schema/").content))


def test_every_operation_that_reads_a_key_documents_the_401_and_takes_either_prefix(api):
    schema = yaml.safe_load(api.get("/api/schema/").content)
    schemes = schema["components"]["securitySchemes"]
    assert schemes["bearerAuth"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "`Authorization: Bearer <key>`, the key from your settings page.",
    }
    assert schemes["tokenAuth"]["in"] == "header" and schemes["tokenAuth"]["name"] == "Authorization"
    for path, method in OPERATIONS:
        operation = schema["paths"][path][method]
        if path == "/api/ping/":
            assert "security" not in operation and set(operation["responses"]) == {"200"}
            continue
        assert {"bearerAuth": []} in operation["security"] and {"tokenAuth": []} in operation["security"]
        assert "401" in operation["responses"], (method, path)


def test_the_schema_declares_json_bodies_that_refuse_unknown_fields(api):
    schema = yaml.safe_load(api.get("/api/schema/").content)
    for path, method in OPERATIONS:
        operation = schema["paths"][path][method]
        if "requestBody" not in operation:
            continue
        assert list(operation["requestBody"]["content"]) == ["application/json"], path
        assert "415" in operation["responses"], path
        ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        body = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
        assert body["additionalProperties"] is False, path


def test_the_schema_describes_the_list_parameters_as_they_are_checked(api):
    schema = yaml.safe_load(api.get("/api/schema/").content)
    parameters = {p["name"]: p["schema"] for p in schema["paths"]["/api/matches/"]["get"]["parameters"]}
    assert parameters["page"]["minimum"] == 1 and parameters["page"]["type"] == "integer"
    assert (parameters["page_size"]["minimum"], parameters["page_size"]["maximum"]) == (1, 100)
    assert parameters["scope"]["enum"] == ["open", "mine"]


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


@pytest.mark.parametrize("format", ["multipart", None])
def test_a_form_body_is_a_415_that_asks_for_json_and_plays_nothing(client, started_match, alice, format):
    """A form cannot carry a move object or the options: the API reads JSON only, as its schema says."""
    match = started_match()
    client.force_login(alice)
    url = f"/api/matches/{match.pk}/moves/"
    if format == "multipart":
        answer = client.post(url, {"move": "d4", "version": "0"})
        sent = "multipart/form-data"
    else:
        answer = client.post(url, "version=0&place=d4", content_type="application/x-www-form-urlencoded")
        sent = "application/x-www-form-urlencoded"
    assert answer.status_code == 415
    detail = answer.json()["detail"]
    assert detail.startswith(
        "The API reads JSON bodies only: send the body with Content-Type: application/json (not " + sent
    ), detail
    match.refresh_from_db()
    assert match.version == 0


def test_the_browsable_api_posts_json(client, started_match, alice):
    match = started_match()
    client.force_login(alice)
    page = client.get(f"/api/matches/{match.pk}/moves/", HTTP_ACCEPT="text/html").content.decode()
    assert "application/json" in page and "multipart/form-data" not in page
    played = client.post(
        f"/api/matches/{match.pk}/moves/", {"move": "d4", "version": 0}, content_type="application/json"
    )
    assert played.status_code == 201 and played.json()["notation"] == "d4"


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
        ("--x\r\nbroken", "multipart/form-data; boundary=x", 415),
        ("--x\r\nbroken", "multipart/form-data", 415),
        ("move=d4&version=0", "application/x-www-form-urlencoded", 415),
        ('{"move": "d4", "version": 0}', "", 415),
        # Text that is no text, anywhere in the body (games/text.py), and nesting no request needs.
        ('{"move": "d4\\u0000", "version": 0}', "application/json", 400),
        ('{"move": {"\\u0000": "d4"}, "version": 0}', "application/json", 400),
        ('{"move": "d4", "version": 0, "x": ["\\ud800"]}', "application/json", 400),
        ('{"move": "d4", "version": 0, "x": "\\uffff"}', "application/json", 400),
        ('{"move": "d4", "version": 0, "x": ' + "[" * 40 + "]" * 40 + "}", "application/json", 400),
        # Only UTF-8: UTF-7 and friends can spell a lone surrogate that no parser would see coming.
        ("move=%2B2AA-d4&version=0", "application/x-www-form-urlencoded; charset=utf-7", 400),
        ('{"move": "d4", "version": 0}'.encode("utf-16"), "application/json; charset=utf-16", 400),
        ("move=d4%EF%BF%BE&version=0", "application/x-www-form-urlencoded", 415),
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


@pytest.mark.parametrize(
    ("char", "code"),
    [
        ("\r\n", "U+000D"),
        ("\n", "U+000A"),
        ("\t", "U+0009"),
        ("\x1b", "U+001B"),
        ("\u202e", "U+202E"),
        ("\u2028", "U+2028"),
    ],
)
def test_a_match_name_with_a_control_or_formatting_character_is_refused(as_alice, char, code):
    answer = as_alice.post("/api/matches/", {"game": "wallgo", "seat_count": 2, "name": f"Evening{char}game"})
    assert answer.status_code == 400
    assert answer.json()["detail"] == (
        f"name: A name is one line of text; this one holds {code}, a control or formatting character: "
        "remove it and try again."
    )
    assert not Match.objects.exists()


def test_a_match_name_may_hold_any_printable_text_and_spaces(as_alice):
    name = "Soirée\u00a0à trois \u2014 \u5c0f\u5b50 \U0001f600"
    answer = as_alice.post("/api/matches/", {"game": "wallgo", "seat_count": 2, "name": name})
    assert answer.status_code == 201 and answer.json()["name"] == name


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


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        ({"bots": ["random"]}, "bots"),
        ({"colour": "red", "bots": 1}, "bots"),
        ({"seats": 2}, "seats"),
    ],
)
def test_an_unknown_field_in_a_new_match_is_a_400_naming_it(as_alice, extra, named):
    answer = as_alice.post("/api/matches/", {"game": "wallgo", "seat_count": 2, **extra})
    assert answer.status_code == 400
    data = answer.json()
    assert data["detail"].startswith(f"{named}: There is no field {named}; the fields are game, seat_count, ")
    assert set(data["errors"]) == set(extra)
    assert not Match.objects.exists()


def test_an_unknown_field_in_a_move_is_a_400_naming_it(as_alice, started_match):
    match = started_match()
    answer = as_alice.post(f"/api/matches/{match.pk}/moves/", {"move": "d4", "version": 0, "seat": 1})
    assert answer.status_code == 400
    assert answer.json()["detail"] == "seat: There is no field seat; the fields are move, version."
    match.refresh_from_db()
    assert match.version == 0


def test_odd_query_strings_are_harmless(as_alice, alice):
    services.match_create(creator=alice, game="wallgo", seat_count=2)
    assert as_alice.get("/api/matches/?page_size=5&page=1&x=y").status_code == 200
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
