"""What a request that fails on our side gets (wallsite/errors.py); tests/faults/test_database_down.py
shows it through a real server with the database really gone."""

from __future__ import annotations

import json

from django.db import OperationalError
from django.test import RequestFactory

from wallsite import errors


def answer_while_handling(exc: Exception, path: str):
    try:
        raise exc
    except Exception:
        return errors.server_error(RequestFactory().get(path))


def test_an_unreachable_database_is_a_503_in_json_under_the_api_with_a_time_to_retry():
    response = answer_while_handling(OperationalError("connection refused"), "/api/matches/1/")
    assert response.status_code == 503
    assert response["Content-Type"] == "application/json"
    assert response["Retry-After"] == str(errors.RETRY_AFTER_SECONDS)
    detail = json.loads(response.content)["detail"]
    assert "database" in detail and "connection refused" not in detail


def test_an_unreachable_database_is_a_short_page_elsewhere():
    response = answer_while_handling(OperationalError("connection refused"), "/matches/1/")
    assert response.status_code == 503 and response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert "database" in page and "try again" in page and "connection refused" not in page


def test_any_other_failure_is_a_plain_500_that_names_nothing_inside():
    api = answer_while_handling(KeyError("engine_state"), "/api/matches/1/")
    assert api.status_code == 500 and not api.has_header("Retry-After")
    assert json.loads(api.content) == {"detail": errors.SERVER_ERROR}
    page = answer_while_handling(KeyError("engine_state"), "/matches/1/")
    assert page.status_code == 500 and "engine_state" not in page.content.decode()
