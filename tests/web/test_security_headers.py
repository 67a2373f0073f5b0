"""Scripts run only from our static files, and the production settings pass Django's deploy checks."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from tests.conftest import play_random

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
SCRIPT_TAG = re.compile(r"<script\b([^>]*)>", re.IGNORECASE)


def inline_scripts(html: str) -> list[str]:
    """Script elements that carry code in the page itself (data blocks of JSON are not code)."""
    return [
        attrs
        for attrs in SCRIPT_TAG.findall(html)
        if "src=" not in attrs and 'type="application/json"' not in attrs
    ]


INLINE_HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.IGNORECASE)


def inline_handlers(html: str) -> list[str]:
    """Event-handler attributes (onclick=...): the policy blocks them as it blocks inline scripts."""
    return INLINE_HANDLER.findall(html)


def policy_of(response) -> dict[str, str]:
    header = response["Content-Security-Policy"]
    return {part.split()[0]: part for part in (p.strip() for p in header.split(";")) if part}


def test_every_page_forbids_inline_scripts_and_has_none(client, started_match, alice):
    match = play_random(started_match(), moves=4)
    client.force_login(alice)
    urls = [
        reverse("lobby"),
        reverse("my-matches"),
        reverse("match-create"),
        reverse("match-detail", args=[match.pk]),
        reverse("match-log", args=[match.pk]),
        reverse("match-replay", args=[match.pk]),
        reverse("account-settings"),
        reverse("profile", args=["alice"]),
        reverse("api-docs"),
        reverse("leagues"),
        reverse("leaderboards"),
    ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        policy = policy_of(response)
        assert policy["script-src"] == "script-src 'self'", url
        assert policy["object-src"] == "object-src 'none'" and "frame-ancestors" in policy, url
        assert inline_scripts(response.content.decode()) == [], url
        assert inline_handlers(response.content.decode()) == [], url
    client.logout()
    for url in (reverse("login"), reverse("signup"), reverse("lobby")):
        response = client.get(url)
        html = response.content.decode()
        assert inline_scripts(html) == [] and inline_handlers(html) == [], url
        assert policy_of(response)["script-src"] == "script-src 'self'", url


SITE_POLICY = {
    "default-src": "default-src 'self'",
    "script-src": "script-src 'self'",
    "style-src": "style-src 'self' 'unsafe-inline'",
    "img-src": "img-src 'self' data:",
    "font-src": "font-src 'self'",
    "connect-src": "connect-src 'self'",
    "object-src": "object-src 'none'",
    "base-uri": "base-uri 'self'",
    "form-action": "form-action 'self'",
    "frame-ancestors": "frame-ancestors 'none'",
}


def test_the_header_carries_the_whole_policy_and_nothing_else(client):
    for url in (reverse("lobby"), reverse("login"), reverse("api-docs")):
        assert policy_of(client.get(url)) == SITE_POLICY, url


def test_only_the_redoc_page_may_run_its_own_inline_start_up_script(client):
    response = client.get(reverse("api-redoc"))
    assert response.status_code == 200
    assert policy_of(response) == {
        **SITE_POLICY,
        "script-src": "script-src 'self' 'unsafe-inline'",
        "worker-src": "worker-src 'self' blob:",
    }
    assert "'unsafe-inline'" not in policy_of(client.get(reverse("api-docs")))["script-src"]


@pytest.mark.parametrize("page", ["api-docs", "api-redoc"])
def test_the_api_documentation_loads_nothing_from_another_host(client, page):
    html = client.get(reverse(page)).content.decode()
    outside = re.findall(r'(?:src|href)="((?:https?:)?//[^"]*)"', html)
    assert outside == [], outside


def test_the_production_settings_pass_the_deploy_checks():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "wallsite.settings.production",
        "SECRET_KEY": secrets.token_urlsafe(60),
        "ALLOWED_HOSTS": "wallsite.example",
        "CSRF_TRUSTED_ORIGINS": "https://wallsite.example",
    }
    # The browser tests set this for their own process; a deployment never does.
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
