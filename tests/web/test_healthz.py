"""/healthz answers 200 when the database and Redis answer, 503 naming the one that does not."""

from __future__ import annotations

import pytest
from django.test import override_settings
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_health_is_reported_when_both_services_answer(client, settings, redis_url):
    settings.REDIS_URL = redis_url
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    data = response.json()
    assert data["healthy"] is True
    statuses = {name: check["status"] for name, check in data["checks"].items()}
    assert statuses == {"database": "ok", "redis": "ok"}
    assert response["Cache-Control"].startswith("max-age=0")


@override_settings(REDIS_URL="redis://127.0.0.1:1/0")
def test_an_unreachable_redis_makes_it_unhealthy_and_says_which(client):
    response = client.get(reverse("healthz"))
    assert response.status_code == 503
    data = response.json()
    assert data["healthy"] is False
    assert data["checks"]["database"]["status"] == "ok"
    assert data["checks"]["redis"]["status"].startswith("failing (")
    assert "127.0.0.1" not in response.content.decode()


def test_only_get_is_allowed(client):
    assert client.post(reverse("healthz")).status_code == 405
