"""Every URL of the site gives each kind of visitor exactly what it should (the table: access_cases.py).

The world of real objects is built once for the module, through the services, inside a transaction that is
rolled back at the end; each test runs in a savepoint inside it, so whatever one test writes is gone before
the next. A refused request must leave every table as it was; a write carried out must change one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from string import Formatter
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.messages import get_messages
from django.db import connection, transaction
from django.http import HttpResponse
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver, resolve

from tests.web.access_cases import (
    ADMIN_LOGIN_PAGE,
    CARD,
    CASES,
    LOGIN_PAGE,
    MISSING,
    OK,
    ROLES,
    Case,
    Expect,
    World,
    world_build,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, redis_url) -> Iterator[World]:
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        built = world_build()
    # /healthz asks Redis too: point it at a real one.
    with override_settings(REDIS_URL=redis_url):
        yield built
    with django_db_blocker.unblock():
        transaction.set_rollback(True)
        outer.__exit__(None, None, None)


# --- what the database holds ------------------------------------------------------------------------------

# Sessions come and go with every log-in; content types and permissions are fixed by migrations.
UNWATCHED = {"sessions.Session", "contenttypes.ContentType", "auth.Permission"}


def database_rows() -> dict[str, list[tuple]]:
    """Every row of every table the site writes (plain SQL: decoding by the ORM costs ten times more)."""
    rows = {}
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        for model in apps.get_models(include_auto_created=True):
            meta = model._meta
            if meta.proxy or not meta.managed or meta.label in UNWATCHED:
                continue
            cursor.execute(f"SELECT * FROM {quote(meta.db_table)} ORDER BY {quote(meta.pk.column)}")
            rows[meta.label] = cursor.fetchall()
    return rows


def changes_made(action: Callable[[], HttpResponse]) -> tuple[HttpResponse, list[str]]:
    """The answer, and the tables the request changed."""
    before = database_rows()
    response = action()
    after = database_rows()
    return response, sorted(label for label in before if before[label] != after[label])


# --- sending a request as a role ----------------------------------------------------------------------------


@dataclass
class Sent:
    path: str
    response: HttpResponse
    changed: list[str]


def send(
    world: World,
    case: Case,
    role: str,
    method: str,
    *,
    enforce_csrf: bool = False,
    csrf_token: bool = False,
    session: bool = False,
    **values: str,
) -> Sent:
    """The request ``role`` makes. The API is called with the user's key (with the session instead when
    ``session``), pages with a session. ``values`` replace the world's (to address something missing)."""
    client = Client(enforce_csrf_checks=enforce_csrf)
    user = world.user_for(role, case.subject)
    path = world.fill(case.path, **values)
    data = {key: world.fill(v, **values) if isinstance(v, str) else v for key, v in case.data.items()}
    headers: dict[str, str] = {}
    if user is not None:
        if case.json and not session:
            headers["HTTP_AUTHORIZATION"] = f"Token {world.tokens[user.username]}"
        else:
            world.log_in(client, user)
    if csrf_token:
        client.get("/accounts/login/")  # any page with a form sets the CSRF cookie
        token = client.cookies["csrftoken"].value
        data["csrfmiddlewaretoken"] = token
        headers["HTTP_X_CSRFTOKEN"] = token  # how a program sends it to the API
    if method == "get":
        body, content_type = "", "application/octet-stream"
    elif case.json:
        body, content_type = json.dumps(data), "application/json"
    else:
        body, content_type = urlencode(data), "application/x-www-form-urlencoded"
    response, changed = changes_made(
        lambda: client.generic(method.upper(), path, body, content_type=content_type, **headers)
    )
    return Sent(path, response, changed)


# --- checking an answer -------------------------------------------------------------------------------------


class PostForms(HTMLParser):
    """Each <form method="post"> of a page: where it posts, and whether it carries the CSRF token."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, Any]] = []
        self._open: list[dict[str, Any]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "form":
            method = (attributes.get("method") or "get").lower()
            form = {"method": method, "action": attributes.get("action"), "token": False}
            self.forms.append(form)
            self._open.append(form)
        elif tag == "input" and attributes.get("name") == "csrfmiddlewaretoken" and self._open:
            self._open[-1]["token"] = bool(attributes.get("value"))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self._open:
            self._open.pop()


def post_forms(html: str) -> list[dict[str, Any]]:
    parser = PostForms()
    parser.feed(html)
    parser.close()
    return [form for form in parser.forms if form["method"] == "post"]


def csrf_exempt_target(action: str) -> bool:
    """A form may leave the token out only when the view it posts to is exempt by design."""
    return getattr(resolve(urlsplit(action).path).func, "csrf_exempt", False)


def login_address(page: str, path: str) -> str:
    start = {LOGIN_PAGE: "/accounts/login/", ADMIN_LOGIN_PAGE: "/admin/login/"}[page]
    return f"{start}?{urlencode({'next': path}, safe='/')}"


def check(world: World, case: Case, sent: Sent, expect: Expect) -> None:
    """The answer is the expected one, and the database changed exactly when the request was carried out."""
    path, response = sent.path, sent.response
    body = response.content.decode(errors="replace")
    assert response.status_code != 500, body[:2000]
    assert response.status_code == expect.status, f"got {response.status_code}: {body[:600]}"
    if expect.to in (LOGIN_PAGE, ADMIN_LOGIN_PAGE):
        assert response["Location"] == login_address(expect.to, path)
    elif expect.to and expect.to.startswith("re:"):
        assert re.fullmatch(world.fill(expect.to[3:]), response["Location"]), response["Location"]
    elif expect.to:
        assert response["Location"] == world.fill(expect.to)
    if expect.flash:
        levels = {message.level_tag for message in get_messages(response.wsgi_request)}
        assert expect.flash in levels, f"expected a {expect.flash} message, got {levels}"
        assert not ({"error", "success"} - {expect.flash}) & levels, f"mixed messages: {levels}"
    content_type = response.get("Content-Type", "")
    if case.json and response.status_code != 204:
        assert content_type.startswith("application/json"), f"not JSON but {content_type}: {body[:200]}"
        data = response.json()
        if response.status_code >= 400:
            assert isinstance(data.get("detail"), str) and data["detail"], data
        if response.status_code == 401:
            assert response["WWW-Authenticate"] == 'Bearer realm="api"'
    if content_type.startswith("text/html"):
        unprotected = [
            form["action"]
            for form in post_forms(body)
            if not form["token"] and not csrf_exempt_target(form["action"] or path)
        ]
        assert not unprotected, f"POST forms without a CSRF token: {unprotected}"
    if expect.changes:
        assert sent.changed, "the request was carried out but changed nothing"
    else:
        assert not sent.changed, f"the request changed {sent.changed}"


# --- the matrix ---------------------------------------------------------------------------------------------


def matrix_rows() -> Iterator[Any]:
    for key, case in CASES.items():
        for method in case.methods():
            for role in ROLES:
                yield pytest.param(key, method, role, id=f"{case.path} {method.upper()} {role}")


@pytest.mark.parametrize(("key", "method", "role"), list(matrix_rows()))
def test_the_matrix(world: World, key: str, method: str, role: str) -> None:
    case = CASES[key]
    check(world, case, send(world, case, role, method), case.methods()[method][role])


def test_public_pages_read_the_same_for_everyone() -> None:
    """What the table calls public answers 200 to a GET from every role, anonymous visitors too."""
    for key, case in CASES.items():
        if case.public:
            assert case.get is not None and {expect.status for expect in case.get.values()} == {200}, key


def test_the_api_docs_script_is_served_to_everyone(world: World) -> None:
    """The Swagger page's start-up script, served by the docs view itself (the page's only own asset)."""
    for role in ROLES:
        case = Case(path="/api/docs/?script=")
        sent = send(world, case, role, "get")
        check(world, case, sent, OK)
        assert sent.response["Content-Type"].startswith("application/javascript")


# --- every URL pattern is in the table ----------------------------------------------------------------------


def url_patterns(
    resolver: URLResolver | None = None, prefix: str = "", namespaces: tuple[str, ...] = ()
) -> Iterator[tuple[str, str, Callable, tuple[str, ...]]]:
    """(view name as ResolverMatch.view_name gives it, route, view, namespaces) of every pattern."""
    for pattern in (resolver or get_resolver()).url_patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            inner = (*namespaces, pattern.namespace) if pattern.namespace else namespaces
            yield from url_patterns(pattern, route, inner)
        else:
            assert isinstance(pattern, URLPattern)
            view = pattern.callback
            name = pattern.name or f"{view.__module__}.{getattr(view, '__qualname__', view.__name__)}"
            yield ":".join([*namespaces, name]), route, view, namespaces


ADMIN_SITE_VIEWS = {"index", "login", "logout", "password_change", "password_change_done"}
ADMIN_SITE_VIEWS |= {"autocomplete", "jsi18n", "view_on_site", "app_list"}
MODEL_ADMIN_VIEWS = ("changelist", "add", "history", "delete", "change")


def admin_internal(name: str, view: Callable, namespaces: tuple[str, ...]) -> bool:
    """Django admin's own machinery, which Django tests; a view the project adds to the admin is not."""
    if namespaces != ("admin",):
        return False
    name = name.removeprefix("admin:")
    models = {f"{model._meta.app_label}_{model._meta.model_name}" for model in admin.site._registry}
    standard = name in ADMIN_SITE_VIEWS or any(
        name == f"{model}_{suffix}" for model in models for suffix in MODEL_ADMIN_VIEWS
    )
    return standard or view.__module__.startswith("django.")


def test_every_url_pattern_is_in_the_matrix() -> None:
    patterns = list(url_patterns())
    ours = [(name, route) for name, route, view, spaces in patterns if not admin_internal(name, view, spaces)]
    names = [name for name, _ in ours]
    assert len(names) == len(set(names)), "two patterns share a name: the table cannot tell them apart"
    uncovered = [f"{name} ({route})" for name, route in ours if name not in CASES]
    assert not uncovered, f"URL patterns the access matrix does not check: {uncovered}"
    stale = set(CASES) - {name for name, *_ in patterns}
    assert not stale, f"cases for patterns that no longer exist: {stale}"


def test_each_case_addresses_its_own_pattern(world: World) -> None:
    found = {key: resolve(urlsplit(world.fill(case.path)).path).view_name for key, case in CASES.items()}
    assert {key: name for key, name in found.items() if name != key} == {}


# --- missing objects and broken keys -----------------------------------------------------------------------


def missing_rows() -> Iterator[Any]:
    for key, case in CASES.items():
        fields = {name for _, name, _, _ in Formatter().parse(case.path) if name}
        for field in sorted(fields & set(MISSING)):
            for method, by_role in case.methods().items():
                if by_role["staff"].status != 405:
                    yield pytest.param(key, field, method, id=f"{case.path} {field} {method.upper()}")


@pytest.mark.parametrize(("key", "field", "method"), list(missing_rows()))
def test_an_address_of_nothing_is_a_clear_answer_that_changes_nothing(
    world: World, key: str, field: str, method: str
) -> None:
    """What does not exist answers 404 (a broken signed link: 400, or Django's invalid-link page), even to
    a superuser, who may see everything that does exist: never a 500."""
    case = CASES[key]
    value, status = MISSING[field]
    check(world, case, send(world, case, "staff", method, **{field: value}), Expect(status))


# --- a match in every state is public -----------------------------------------------------------------------

MATCH_PAGES = ("/matches/{m}/", "/matches/{m}/board.svg", "/matches/{m}/log/", "/matches/{m}/replay/")
MATCH_API = ("/api/matches/{m}/", "/api/matches/{m}/log/")


@pytest.mark.parametrize("state", ["open", "finished", "stairways"])
@pytest.mark.parametrize("role", ["anonymous", "nonplayer"])
def test_spectators_read_a_match_in_any_state(world: World, state: str, role: str) -> None:
    for template in MATCH_PAGES + MATCH_API:
        case = Case(path=template.replace("{m}", f"{{{state}}}"), json=template.startswith("/api/"))
        check(world, case, send(world, case, role, "get"), OK)


# --- seat-private data --------------------------------------------------------------------------------------


@pytest.mark.parametrize("viewer", ["alice", "bob", "carol", None])
def test_each_seat_sees_its_own_hand_and_no_one_elses(world: World, viewer: str | None) -> None:
    """Walls and Stairways: alice and bob hold cards no page names otherwise (access_cases._deal_apart);
    carol and an anonymous visitor are spectators."""
    match_id = world.values["stairways"]
    own = set(world.hands.get(viewer, []))
    others = {card for name, hand in world.hands.items() if name != viewer for card in hand}
    page_client, api_client = Client(), Client()
    if viewer is not None:
        world.log_in(page_client, world.users[viewer])
        api_client.defaults["HTTP_AUTHORIZATION"] = f"Token {world.tokens[viewer]}"

    page = page_client.get(f"/matches/{match_id}/")
    detail = api_client.get(f"/api/matches/{match_id}/")
    legal = api_client.get(f"/api/matches/{match_id}/legal-moves/")
    assert page.status_code == detail.status_code == 200
    answers = {"page": page.content.decode(), "api-match": detail.content.decode()}
    if viewer is None:
        assert legal.status_code == 401
    else:
        assert legal.status_code == 200
        answers["legal-moves"] = legal.content.decode()
    for name, text in answers.items():
        shown = set(re.findall(CARD, text)) & others
        assert not shown, f"the {name} shows another seat's cards {sorted(shown)}"
    assert own <= set(re.findall(CARD, answers["page"])), "the page shows the viewer's own hand"
    private = detail.json()["view"]["private"]
    if own:
        assert set(private) == {"hand"} and set(private["hand"]) == own
    else:
        assert private == {}


# --- CSRF ---------------------------------------------------------------------------------------------------


def allowed_role(case: Case) -> str:
    """The role whose POST the view carries out (the player's when nobody's is)."""
    return next((role for role in ROLES if case.post[role].changes), "player")


WEB_POSTS = [key for key, case in CASES.items() if case.post is not None and not case.json]
API_WRITES = [
    key
    for key, case in CASES.items()
    if case.json and case.post and any(expect.changes for expect in case.post.values())
]


@pytest.mark.parametrize("key", WEB_POSTS, ids=[CASES[key].path for key in WEB_POSTS])
def test_a_web_form_posted_without_its_csrf_token_is_refused(world: World, key: str) -> None:
    case = CASES[key]
    role = allowed_role(case)
    sent = send(world, case, role, "post", enforce_csrf=True)
    if case.csrf_exempt:
        check(world, case, sent, case.post[role])
        return
    check(world, case, sent, Expect(403))
    # With its token the same request is what the matrix says: the token was all that was missing.
    sent = send(world, case, role, "post", enforce_csrf=True, csrf_token=True)
    check(world, case, sent, case.post[role])


@pytest.mark.parametrize("key", API_WRITES)
def test_the_api_with_a_session_needs_the_csrf_token(world: World, key: str) -> None:
    """DRF's session authentication checks CSRF as the pages do."""
    case = CASES[key]
    role = allowed_role(case)
    sent = send(world, case, role, "post", enforce_csrf=True, session=True)
    check(world, case, sent, Expect(403))
    assert "CSRF" in sent.response.json()["detail"]
    sent = send(world, case, role, "post", enforce_csrf=True, session=True, csrf_token=True)
    check(world, case, sent, case.post[role])


@pytest.mark.parametrize("key", API_WRITES)
def test_the_api_with_a_key_needs_no_csrf_token(world: World, key: str) -> None:
    case = CASES[key]
    role = allowed_role(case)
    check(world, case, send(world, case, role, "post", enforce_csrf=True), case.post[role])


# --- text that is not text ----------------------------------------------------------------------------------

# A NUL (PostgreSQL stores none), a non-character, and the last code point of all (one too). Lone
# surrogates cannot come through an address or a UTF-8 form; tests/api sends them in JSON and UTF-7.
NOT_TEXT = ("\x00", "\ufdd0", "\U0010ffff")


def code_point(char: str) -> str:
    return f"U+{ord(char):04X}"


def in_the_address(path: str, char: str) -> str:
    """``path`` with ``char`` at the end of its last segment (the user name of /players/alice/); under
    /api/ the address stays there (/api/ itself gets a segment of its own)."""
    base, mark, query = path.partition("?")
    if base == "/api/":
        return f"/api/{char}/{mark}{query}"
    base = base[:-1] + char + "/" if base.endswith("/") else base + char
    return base + mark + query


def in_the_query(path: str, char: str) -> str:
    return path + ("&" if "?" in path else "?") + urlencode({"q": f"x{char}"})


def acting_role(case: Case, method: str) -> str:
    """The role whose request the view carries out (the player's when nobody's is)."""
    return next((role for role in ROLES if case.methods()[method][role].changes), "player")


def address_rows() -> Iterator[Any]:
    for index, (key, case) in enumerate(CASES.items()):
        for method in case.methods():
            char = NOT_TEXT[index % len(NOT_TEXT)]
            yield pytest.param(key, method, char, id=f"{case.path} {method.upper()} {code_point(char)}")


@pytest.mark.parametrize(("key", "method", "char"), list(address_rows()))
def test_an_address_or_query_string_holding_what_is_not_text_is_a_400_that_changes_nothing(
    world: World, key: str, method: str, char: str
) -> None:
    """Refused with the reason before any view reads it (wallsite.middleware.TextCheckMiddleware), so no
    view can pass it on to the database: a NUL in /players/<name>/ or in a moderator's filter was a 500
    on PostgreSQL."""
    case = CASES[key]
    role = acting_role(case, method)
    for place in (in_the_address, in_the_query):
        poisoned = replace(case, path=place(case.path, char))
        sent = send(world, poisoned, role, method)
        check(world, poisoned, sent, Expect(400))
        assert code_point(char) in sent.response.content.decode(), sent.response.content[:300]


def field_rows() -> Iterator[Any]:
    for key, case in CASES.items():
        if case.post is None or not any(expect.changes for expect in case.post.values()):
            continue
        for field in sorted(name for name, value in case.data.items() if isinstance(value, str)):
            yield pytest.param(key, field, id=f"{case.path} {field}")


@pytest.mark.parametrize(("key", "field"), list(field_rows()))
def test_a_field_holding_what_is_not_text_is_refused_with_the_reason_and_changes_nothing(
    world: World, key: str, field: str
) -> None:
    """Every field of every form and API body that the site carries out: the same request with the
    field's value ending in a NUL or a non-character changes nothing and says why (a text field names
    the character; a choice or a number is refused as not one of its values)."""
    case = CASES[key]
    role = allowed_role(case)
    for char in NOT_TEXT:
        poisoned = replace(case, data={**case.data, field: case.data[field] + char})
        sent = send(world, poisoned, role, "post")
        response = sent.response
        body = response.content.decode(errors="replace")
        assert response.status_code < 500, body[:2000]
        assert not sent.changed, f"{code_point(char)} in {field}: the request changed {sent.changed}"
        if case.json:
            assert 400 <= response.status_code < 500
            assert code_point(char) in response.json()["detail"], response.json()
            continue
        flashes = [message for message in get_messages(response.wsgi_request) if message.level_tag == "error"]
        form = (response.context or {}).get("form") if response.status_code == 200 else None
        named = code_point(char) in body + " ".join(str(message) for message in flashes)
        refused = 400 <= response.status_code < 500 or bool(flashes) or bool(form is not None and form.errors)
        assert named or refused, f"{code_point(char)} in {field}: {response.status_code} {body[:600]}"
