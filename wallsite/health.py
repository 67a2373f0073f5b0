"""``/healthz``: whether this web process can reach the database and Redis, for load balancers."""

from __future__ import annotations

import time

import redis
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

TIMEOUT_SECONDS = 2.0


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return "ok"


def _redis() -> str:
    client = redis.Redis.from_url(
        settings.REDIS_URL, socket_timeout=TIMEOUT_SECONDS, socket_connect_timeout=TIMEOUT_SECONDS
    )
    try:
        client.ping()
    finally:
        client.close()
    return "ok"


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when both answer, else 503 naming what failed (the error's kind only: no addresses)."""
    checks = {}
    healthy = True
    for name, check in (("database", _database), ("redis", _redis)):
        started = time.perf_counter()
        try:
            status = check()
        except Exception as exc:  # any failure is an unhealthy answer, never a 500
            status = f"failing ({type(exc).__name__})"
            healthy = False
        checks[name] = {"status": status, "ms": round((time.perf_counter() - started) * 1000, 1)}
    return JsonResponse({"healthy": healthy, "checks": checks}, status=200 if healthy else 503)
