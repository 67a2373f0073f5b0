"""Fuzz every operation of the published OpenAPI schema: no request, valid or not, gets a 5xx, and
every answer matches the schema's description of it.

Schemathesis loads the schema from the WSGI application and calls it in process. Its pytest
integration would want the schema at import time and a database per example, so the runs are driven
by hand inside one transactional test: the WSGI handler closes its database connection after each
request, which only a committed database survives. Every operation runs twice: once with whatever ids
Hypothesis makes up, once aimed at real matches, as a player seated there (so the ids exist and the
services get past their first checks). Examples are few and derandomised so that CI is stable and fast.
"""

from __future__ import annotations

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from games import services
from games.models import Match
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

    assert len(ran) == 11, ran


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
