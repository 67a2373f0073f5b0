"""Fuzz every operation of the published OpenAPI schema: no request, valid or not, gets a 5xx, and
every answer matches the schema's description of it.

Schemathesis loads the schema from the WSGI application and calls it in process. Its pytest
integration would want the schema at import time and a database per example, so the runs are driven
by hand inside one transactional test: the WSGI handler closes its database connection after each
request, which only a committed database survives. Every operation runs twice: once with whatever ids
Hypothesis makes up, once aimed at real matches, as a player seated there (so the ids exist and the
services get past their first checks). Examples are few and derandomised so that CI is stable and fast.

Then schemathesis as a third-party developer runs it, from its command line against a live server:
every check it has (``--checks all``: answers and status codes as documented, schema-valid input
accepted and invalid input refused, authentication not ignored, deleted or missing resources...) over
every phase, the stateful one included, which chains operations through the links it infers (a match
created, then read, joined, moved in). tests/api/schemathesis.toml says which refusals the game makes
beyond the schema. A few examples per operation here; a long run is a command in the test's docstring.

Two more runs keep the refusals of bad input covered: every operation again with text that is no text (a
NUL, a lone surrogate, a non-character) put into its body or query string, which must be a 400 naming the
character; and, for every game of the registry, move objects of every wrong kind (wrong types, nested,
huge, such text) played by the seat whose turn it is, which must be a 4xx that leaves the match as it was.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.test import Client
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from games import services
from games.engines import registry
from games.models import Match, Move
from tests.conftest import play_random

EXAMPLES = 25
MODES = (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE)


def _matches(alice, bob, carol) -> list[Match]:
    """A match in play, one waiting for a player, and a test-dice match with hidden hands."""
    in_play = services.match_create(creator=alice, game="wallgo", seat_count=2)
    services.seat_join(match_id=in_play.pk, user=bob)
    play_random(in_play, moves=4)
    waiting = services.match_create(creator=bob, game="wallgo", seat_count=3)
    services.seat_join(match_id=waiting.pk, user=alice)
    dice = services.match_create(creator=alice, game="testdice", seat_count=2)
    services.seat_join(match_id=dice.pk, user=carol)  # eager tasks: the deal runs at once, no transaction
    return [in_play, waiting, dice]


@pytest.mark.django_db(transaction=True)
def test_no_operation_of_the_schema_answers_with_a_server_error(alice, bob, carol):
    matches = _matches(alice, bob, carol)
    token = Token.objects.create(user=alice)
    headers = {"Authorization": f"Token {token.key}"}
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", WSGIHandler())

    ran: list[str] = []
    for result in schema.get_all_operations():
        operation = result.ok()
        has_body = any(True for _ in operation.body)
        has_input = has_body or any(True for _ in operation.query) or "{" in operation.path
        for mode in MODES:
            negative = mode == schemathesis.GenerationMode.NEGATIVE
            # Nothing to break in an operation without input: a negative run would be unsatisfiable.
            if negative and not has_input:
                continue
            # Real ids first: Hypothesis leans towards the first strategy of a one_of.
            strategies = []
            if "{match_id}" in operation.path and (has_body or not negative):
                strategies += [
                    operation.as_strategy(generation_mode=mode, path_parameters={"match_id": match.pk})
                    for match in matches
                ]
            strategies.append(operation.as_strategy(generation_mode=mode))
            _run(st.one_of(*strategies), headers)
        ran.append(operation.label)

    assert len(ran) == 14, ran


def _run(strategy, headers: dict[str, str]) -> None:
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )
    @given(case=strategy)
    def call(case: schemathesis.Case) -> None:
        response = case.call(headers=headers)
        case.validate_response(response, checks=[not_a_server_error, response_schema_conformance])

    call()


# --- schemathesis's own command line: every check, every phase ------------------------------------------

CONFIG = Path(__file__).with_name("schemathesis.toml")
CLI_EXAMPLES = 4


@pytest.mark.backend_neutral
@pytest.mark.django_db(transaction=True)
def test_schemathesis_with_every_check_and_the_stateful_phase_reports_no_failure(
    live_server, settings, alice, bob, carol
):
    """The command line as a developer would type it, against the live server, with few examples. The
    long run, against a server of its own (``manage.py runserver``) holding the same kind of data:

        schemathesis --config-file tests/api/schemathesis.toml run <url>/api/schema/?format=json \\
            --checks all -H "Authorization: Bearer <key>" --max-examples 250 -w 1
    """
    # Thousands of matches are created: the account's caps would turn most of them into 403s and 429s.
    settings.MAX_OPEN_MATCHES_PER_USER = settings.MAX_MATCHES_CREATED_PER_HOUR = 10**6
    settings.MAX_BOT_SEATS_PER_USER = 10**6
    _matches(alice, bob, carol)
    key = Token.objects.create(user=alice).key
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "schemathesis.cli",
            "--config-file",
            str(CONFIG),
            "run",
            f"{live_server.url}/api/schema/?format=json",
            "--checks",
            "all",
            "--phases",
            "examples,coverage,fuzzing,stateful",
            "--header",
            f"Authorization: Bearer {key}",
            "--max-examples",
            str(CLI_EXAMPLES),
            "--workers",
            "1",
            "--seed",
            "1",
            "--generation-deterministic",
            "--no-color",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-6000:]
    assert "Stateful" in output and re.search(r"\b14 passed\b", output), output[-3000:]


# --- text that is no text, in every operation ---------------------------------------------------------

# Lone surrogates travel only as JSON escapes (no UTF-8 text can carry one, so the schemathesis client
# cannot send them): the move bodies below, and tests/api/test_schema_and_errors.py, send them.
NOT_TEXT = ["\x00", "\ufdd0", "\ufffe", "\U0010ffff"]
NOT_TEXT_IN_BODIES = [*NOT_TEXT, "\ud800", "\udfff"]
REFUSED_CHARACTER = re.compile(r"U\+[0-9A-F]{4,6}\b")


@pytest.mark.django_db(transaction=True)
def test_every_operation_refuses_text_that_is_no_text_with_a_400_naming_it(alice, bob, carol):
    matches = _matches(alice, bob, carol)
    token = Token.objects.create(user=alice)
    headers = {"Authorization": f"Token {token.key}"}
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", WSGIHandler())
    mode = schemathesis.GenerationMode.POSITIVE
    ran = []
    for result in schema.get_all_operations():
        operation = result.ok()
        strategies = []
        if "{match_id}" in operation.path:
            strategies += [
                operation.as_strategy(generation_mode=mode, path_parameters={"match_id": m.pk})
                for m in matches
            ]
        strategies.append(operation.as_strategy(generation_mode=mode))
        _run_poisoned(st.one_of(*strategies), headers)
        ran.append(operation.label)
    assert len(ran) == 14, ran


def _run_poisoned(strategy, headers: dict[str, str]) -> None:
    @settings(
        max_examples=8,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )
    @given(case=strategy, data=st.data())
    def call(case: schemathesis.Case, data: st.DataObject) -> None:
        if isinstance(case.body, dict):
            # The parser sees every key, and refuses the character before any field is read.
            char = data.draw(st.sampled_from(NOT_TEXT))
            where = data.draw(st.sampled_from(["key", "value", "nested"]))
            poison = {"key": {f"k{char}": 1}, "value": {"note": f"x{char}"}, "nested": {"n": [{"v": char}]}}
            case.body = {**case.body, **poison[where]}
            case.media_type = "application/json"
        else:
            char = data.draw(st.sampled_from(NOT_TEXT))
            case.query = {**(case.query or {}), "q": f"x{char}"}
        response = case.call(headers=headers)
        assert response.status_code == 400, (case.method, case.formatted_path, response.text[:300])
        detail = response.json()["detail"]
        # The first refused character is named: ours, or one the generated input held already.
        assert REFUSED_CHARACTER.search(detail), detail

    call()


# --- move objects of every wrong kind, for every game -------------------------------------------------

# Text a move could hold: none of it is legal anywhere (short printable text too may be no move).
TEXTS = st.one_of(
    st.sampled_from([*NOT_TEXT_IN_BODIES, "a\x00b", "x" * 100_000, "", " "]),
    st.text(max_size=8),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=2**63),
    st.floats(allow_nan=False, allow_infinity=False),
    TEXTS,
)
JUNK = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXTS, inner, max_size=3)),
    max_leaves=10,
)


def _move_bodies(engine, version: int) -> st.SearchStrategy[tuple[str, Any]]:
    """JSON bodies whose move is no move of ``engine``: its own keys holding junk (most often, so that
    most reach the engine), any keys, junk that is not an object at all, and text that is no text."""
    keys = sorted(engine.move_fields) or ["play", "roll"]
    shaped = st.dictionaries(st.sampled_from(keys), st.one_of(SCALARS, JUNK), min_size=1, max_size=3)
    moves = st.one_of(
        shaped,
        shaped,
        shaped,
        st.dictionaries(TEXTS, JUNK, max_size=3),
        st.lists(JUNK, max_size=3),
        SCALARS.filter(lambda value: not isinstance(value, str)),
        st.sampled_from(NOT_TEXT_IN_BODIES),
    )
    return moves.map(lambda move: (json.dumps({"move": move, "version": version}), move))


def _hand_made_bodies(engine, legal: list[dict], version: int) -> list[str]:
    """Each kind of wrong move at least once: nested hundreds of levels deep (once parsing, once storing
    would recurse), a megabyte-sized text, a NUL or a lone surrogate in the game's own key, every value
    of a legal move turned into the wrong type, and a legal move with a key too many."""
    key = sorted(engine.move_fields or {"play": int})[0]

    def body(move: Any) -> str:
        return json.dumps({"move": move, "version": version})

    deep = [f'{{"move": {{"{key}": {"[" * n}{"]" * n}}}, "version": {version}}}' for n in (33, 990)]
    bodies = [*deep, body({key: "x" * 1_000_000}), body({key: "\x00"}), body({key: "\ud800"})]
    model = legal[0]
    for name, value in model.items():
        wrong = [None, 1.5, {"nested": value}, [value]] + (["1"] if isinstance(value, int) else [7])
        bodies += [body({**model, name: junk}) for junk in wrong]
    bodies.append(body({**model, "extra": 1}))
    return bodies


def _started(slug: str, users: list, capture) -> Match:
    engine = registry.get_engine(slug)
    seats = max(2, engine.min_players)
    match = services.match_create(creator=users[0], game=slug, seat_count=seats)
    with capture(execute=True):  # the deal and other chance steps run as the workers would
        for user in users[1:seats]:
            services.seat_join(match_id=match.pk, user=user)
    match.refresh_from_db()
    return match


@pytest.mark.django_db
@pytest.mark.parametrize("slug", registry.slugs())
def test_no_malformed_move_object_of_any_game_is_played_or_a_server_error(
    slug, make_user, django_capture_on_commit_callbacks
):
    users = [make_user(f"p{index}") for index in range(6)]
    match = _started(slug, users, django_capture_on_commit_callbacks)
    engine = match.engine
    actors = sorted(engine.actors(match.engine_state))
    assert actors, f"{slug}: nobody is to move"
    seat = match.seats.get(position=actors[0])
    client = Client()
    client.defaults["HTTP_AUTHORIZATION"] = f"Token {Token.objects.create(user=seat.user).key}"
    legal = engine.legal_moves(match.engine_state, seat.position)
    before = (match.version, match.engine_state, Move.objects.filter(match=match).count())
    url = f"/api/matches/{match.pk}/moves/"

    def refused(body: str) -> None:
        response = client.post(url, body, content_type="application/json")
        assert 400 <= response.status_code < 500, (body[:300], response.content[:300])
        assert response.json()["detail"], response.content[:300]
        match.refresh_from_db()
        after = (match.version, match.engine_state, Move.objects.filter(match=match).count())
        assert after == before, f"{slug}: a refused move changed the match ({body[:300]})"

    for body in _hand_made_bodies(engine, legal, match.version):
        refused(body)

    @settings(
        max_examples=30,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )
    @given(sent=_move_bodies(engine, match.version))
    def play(sent: tuple[str, Any]) -> None:
        body, move = sent
        assume(move not in legal)
        refused(body)

    play()
