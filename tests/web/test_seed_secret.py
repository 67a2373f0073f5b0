"""The match's seed stays on the server while the match is in play: not one answer a player or a
spectator can fetch (pages, board, log, replay, API, calendar, the verify page, the record), nor the
e-mail a player would get at that step (``everything`` of test_secrets.py), carries it in any spelling
until the match has ended; then the verify page and the record do."""

from __future__ import annotations

import base64
import random

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.api.tokens import api_token_create
from games.models import Match, Move
from tests.web.test_secrets import everything

pytestmark = pytest.mark.django_db


def spellings(seed: str) -> list[str]:
    raw = bytes.fromhex(seed)
    return [seed, seed.upper(), base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()[:40]]


def mine(client: Client, match: Match) -> dict[str, str]:
    """The answers of this feature's own addresses."""
    answers = {}
    for name in ("match-verify", "match-record"):
        response = client.get(reverse(name, args=[match.pk]))
        # The page writes long numbers with <wbr> between pieces: read them whole.
        answers[name] = response.content.decode().replace("<wbr>", "")
    return answers


def test_no_answer_and_no_e_mail_carries_the_seed_until_the_match_ends(make_user):
    users = [make_user(f"seed-{k}") for k in range(2)]
    match = services.match_create(creator=users[0], game="testdice", seat_count=2)
    services.seat_join(match_id=match.pk, user=users[1], present=False)
    match.refresh_from_db()
    hidden = spellings(match.seed)
    viewers = []
    for user in users:
        client = Client()
        client.force_login(user)
        viewers.append((client, api_token_create(user=user).key))
    viewers.append((Client(), None))
    rng = random.Random(5)
    steps = 0
    while match.status == Match.Status.ACTIVE:
        for client, token in viewers if steps % 2 == 0 else viewers[-1:]:
            answers = everything(client, match, token) | mine(client, match)
            for name, text in answers.items():
                assert not any(spelling in text for spelling in hidden), f"step {steps}: {name} has the seed"
        engine, state = match.engine, match.engine_state
        if engine.chance_pending(state):
            services.chance_resolve(match_id=match.pk, version=match.version)
        else:
            seat = match.seats.get(position=min(engine.actors(state)))
            move = rng.choice(engine.legal_moves(state, seat.position))
            services.move_play(match_id=match.pk, user=seat.user, expected_version=match.version, move=move)
        steps += 1
        match.refresh_from_db()
    assert steps > 5
    # The log the server keeps holds no seed either.
    for line in Move.objects.filter(match=match):
        assert not any(spelling in str(line.events) + line.notation for spelling in hidden)

    # Ended: anyone may now read it, and re-run the dice.
    for client, _ in viewers:
        answers = mine(client, match)
        assert match.seed in answers["match-verify"] and match.seed in answers["match-record"]
