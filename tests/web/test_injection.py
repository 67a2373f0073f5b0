"""Hostile text in match names and chat is shown as text everywhere: never markup, script or SVG."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token

from chat.services import message_post
from games import services
from tests.conftest import PASSWORD, play_random

pytestmark = pytest.mark.django_db

PAYLOADS = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(2)>',
    "<svg onload=alert(3)>",
    "' onmouseover='alert(4)",
    "</title><script>alert(5)</script>",
]
NAME = "".join(PAYLOADS)[:80]


def _dangerous(text: str) -> list[str]:
    """Pieces of the payloads that would be live if they reached the page unescaped."""
    # Escaped, the same letters are harmless text ("&lt;img src=x onerror=..."); live, a tag opens or
    # a quote closes an attribute.
    live = ["<script>alert(", "<img src=x", "<svg onload", '"><img', "' onmouseover='", "</title><script>"]
    return [piece for piece in live if piece in text]


def test_a_hostile_match_name_and_chat_are_inert_on_every_page(client, alice, bob):
    match = services.match_create(creator=alice, game="wallgo", seat_count=2, name=NAME)
    services.seat_join(match_id=match.pk, user=bob)
    play_random(match, moves=2)
    for payload in PAYLOADS:
        message_post(match_id=match.pk, user=bob, text=payload + " good luck")
    client.force_login(alice)
    urls = [
        reverse("lobby"),
        reverse("my-matches"),
        reverse("match-detail", args=[match.pk]),
        reverse("match-board", args=[match.pk]),
        reverse("match-log", args=[match.pk]),
        reverse("match-replay", args=[match.pk]),
        reverse("profile", args=["alice"]),
        reverse("profile", args=["bob"]),
    ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        assert _dangerous(response.content.decode()) == [], url
    page = client.get(reverse("match-detail", args=[match.pk])).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # shown, as text
    assert "good luck" in page


def test_the_api_returns_the_text_as_data_not_markup(client, alice, bob):
    match = services.match_create(creator=alice, game="wallgo", seat_count=2, name=NAME)
    token = Token.objects.create(user=alice).key
    answer = client.get(reverse("api-match", args=[match.pk]), HTTP_AUTHORIZATION=f"Token {token}")
    assert answer["Content-Type"].startswith("application/json")
    assert json.loads(answer.content)["name"] == NAME.strip()


def test_usernames_cannot_carry_markup(client):
    response = client.post(
        reverse("signup"),
        {
            "username": "<svg onload=alert(1)>",
            "email": "x@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert response.status_code in (200, 400)
    assert "username" in response.context["form"].errors
    assert _dangerous(response.content.decode()) == []
