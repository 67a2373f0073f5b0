"""No other seat's secrets reach a player: not on the match page, in the SVG, the API or the log.

For every game with hidden hands the test plays into the middle of a match, records everything one
player can fetch, then re-deals everything that player may not know (``sample_hidden``: the other
hands, the draw pile) straight into the database and fetches it all again. If any byte depended on
another seat's cards, the two would differ. Games added later are covered as soon as they are
registered.
"""

from __future__ import annotations

import json
import random
import re

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token

from games import notifications, services
from games.engines import registry
from games.engines.base import Engine, has_secrets
from games.models import HiddenHand, Match, Move, Notification

pytestmark = pytest.mark.django_db

SECRET_GAMES = [slug for slug in registry.slugs() if has_secrets(registry.get_engine(slug))]
STEPS = 40
# The CSRF token is masked afresh on every page; nothing else may change.
CSRF = re.compile(r'(name="csrfmiddlewaretoken" value=|data-csrf=)"[A-Za-z0-9]+"')


def advance(match: Match, *, steps: int, rng: random.Random) -> Match:
    """Chance steps and random legal moves through the services, until ``steps`` or the end."""
    for _ in range(steps):
        match.refresh_from_db()
        if match.status != Match.Status.ACTIVE:
            break
        engine = match.engine
        if engine.chance_pending(match.engine_state):
            services.chance_resolve(match_id=match.pk, version=match.version)
            continue
        actor = min(engine.actors(match.engine_state))
        seat = match.seats.get(position=actor)
        move = rng.choice(engine.legal_moves(match.engine_state, actor))
        services.move_play(match_id=match.pk, user=seat.user, expected_version=match.version, move=move)
    match.refresh_from_db()
    return match


def everything(client: Client, match: Match, token: str | None) -> dict[str, str]:
    """Every answer a seated player (``token`` given) or a spectator (None) can fetch about the match."""
    api = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    pages = ["page", "svg", "log", "replay", "api-match", "api-match-log"]
    if token:
        pages += ["api-match-legal-moves", "api-mine", "my-matches", "calendar"]
    user = Token.objects.get(key=token).user if token else None
    answers = {}
    for name in pages:
        response = client.get(_address(name, match, user), **(api if name.startswith("api-") else {}))
        # Comparing two error pages would prove nothing: every answer must be the real one.
        assert response.status_code == 200, f"{name}: {response.status_code}"
        text = response.content.decode()
        answers[name] = json.dumps(response.json(), sort_keys=True) if name.startswith("api-") else text
    if user is not None:
        answers["email"] = _turn_email(match, user)
    return {name: CSRF.sub("csrf", text) for name, text in answers.items()}


def _address(name: str, match: Match, user) -> str:
    if name == "api-mine":
        return reverse("api-matches") + "?scope=mine"
    if name == "my-matches":
        return reverse("my-matches")
    if name == "calendar":
        return reverse("calendar-feed", args=[user.calendar_token])
    named = {"page": "match-detail", "svg": "match-board", "log": "match-log", "replay": "match-replay"}
    return reverse(named.get(name, name), args=[match.pk])


def _turn_email(match: Match, user) -> str:
    """The "your turn" e-mail the player would get now (or a match-event one when it is not their turn)."""
    seat = match.seats.get(user=user)
    turn = match.turns.filter(seat=seat, closed_at__isnull=True).first()
    kind = Notification.Kind.YOUR_TURN if turn else Notification.Kind.MATCH_EVENT
    note = Notification(user=user, match=match, turn=turn, kind=kind, key="probe", text="News.")
    message = notifications._email(note, user, timezone.now())
    return "\n".join([message.subject, message.body, *(body for body, _ in message.alternatives)])


def redeal_hidden(
    match: Match, engine: Engine, viewer: int | None, rng: random.Random, *, decks_too: bool = False
) -> bool:
    """Store a sample of what ``viewer`` (None: a spectator) cannot know as the real position; False if
    nothing moved. A sample must change another seat's hand, or with ``decks_too`` at least the
    server-only part (a draw pile's content or order), which is all a lone player cannot know."""
    match.refresh_from_db()
    state = match.engine_state
    others = [p for p in range(match.seat_count) if p != viewer]
    fallback = None
    for _ in range(20):
        sample = engine.sample_hidden(state, viewer, rng)
        if any(engine.private_view(sample, p) != engine.private_view(state, p) for p in others):
            break
        if decks_too and fallback is None and sample != state:
            fallback = sample
    else:
        if fallback is None:
            return False
        sample = fallback
    assert engine.public_view(sample) == match.public_view, "a re-deal must not change the public view"
    if viewer is not None:
        assert engine.private_view(sample, viewer) == engine.private_view(state, viewer)
    Match.objects.filter(pk=match.pk).update(engine_state=sample)
    # The latest log line holds the same position: its replay must not tell the two apart either.
    Move.objects.filter(match=match, seq=match.log_length).update(state_after=sample)
    for hand in HiddenHand.objects.filter(seat__match=match).select_related("seat"):
        hand.data = engine.private_view(sample, hand.seat.position)
        hand.save(update_fields=["data"])
    return True


@pytest.mark.parametrize("slug", SECRET_GAMES)
def test_a_player_fetches_the_same_bytes_whatever_the_other_hands_hold(slug, make_user) -> None:
    engine = registry.get_engine(slug)
    seats = min(max(engine.min_players, 3), engine.max_players)
    users = [make_user(f"{slug}-{k}") for k in range(seats)]
    rng = random.Random(f"secrets-{slug}")
    with time_machine.travel("2026-06-01 12:00:00+00:00", tick=False):
        match = services.match_create(creator=users[0], game=slug, seat_count=seats)
        for user in users[1:]:
            services.seat_join(match_id=match.pk, user=user)
        checked = 0
        for _round in range(4):
            match = advance(match, steps=STEPS // 4, rng=rng)
            if match.status != Match.Status.ACTIVE:
                break
            for viewer, user in enumerate(users):
                client = Client()
                client.force_login(user)
                token = Token.objects.get_or_create(user=user)[0].key
                before = everything(client, match, token)
                if not redeal_hidden(match, engine, viewer, rng):
                    continue
                after = everything(client, match, token)
                for name in before:
                    assert before[name] == after[name], f"{slug}: seat {viewer}'s {name} changed"
                checked += 1
        assert checked >= 3, f"{slug}: too few positions had anything hidden to re-deal"


def test_no_other_seats_cards_are_named_anywhere_in_walls_and_stairways(make_user) -> None:
    """The same, checked by name: a card another seat holds and nobody has seen is in no answer."""
    # The deal is random: now and then a game is over within 25 steps. Then the next players try
    # (new ones, so that the first player's lists hold this match alone).
    for attempt in range(5):
        users = [make_user(f"ws{attempt}-{k}") for k in range(3)]
        match = services.match_create(creator=users[0], game="stairways", seat_count=3)
        for user in users[1:]:
            services.seat_join(match_id=match.pk, user=user)
        match = advance(match, steps=25, rng=random.Random(f"named-{attempt}"))
        if match.status == Match.Status.ACTIVE:
            break
    assert match.status == Match.Status.ACTIVE
    state = match.engine_state
    player, spectator = Client(), Client()
    player.force_login(users[0])
    token = Token.objects.get_or_create(user=users[0])[0].key
    answers = everything(player, match, token)
    # Seen: seat 0's own cards and every card a spectator is shown (discards, cards played in the log).
    public = {
        spectator.get(reverse(name, args=[match.pk])).content.decode()
        for name in ("match-detail", "match-board", "api-match", "api-match-log")
    }
    seen = set(state["hands"][0]) | {card for text in public for card in CARD.findall(text)}
    # The game's notation example ("bid S7", in the turn e-mail) names fixed cards, the same for all.
    seen |= set(CARD.findall(match.engine.notation_example))
    unseen = {card for other in (1, 2) for card in state["hands"][other]} - seen
    assert unseen, "the other seats should hold some card seat 0 has not seen"
    for name, text in answers.items():
        for card in unseen:
            assert not re.search(rf"\b{card}\b", text), f"{card} of another seat is in the {name}"
    assert all(re.search(rf"\b{card}\b", answers["page"]) for card in state["hands"][0])


CARD = re.compile(r"\b[HCDS](?:10|[1-9])\b")
