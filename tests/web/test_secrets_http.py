"""Whole matches of every game with secrets, played over HTTP by every seat while a spectator watches.

Each seat is a browser of its own (a logged-in client that must send the CSRF token of the page it
read) and a program of its own (an API token). After every step one viewer in turn reads the match over
the API, and the seats it names as awaited read their legal moves there; one of them plays a random one,
through the match page's form or through the API (a move object or its notation) in turn. Chance steps
run as the worker runs them, by calling the tasks of games/tasks.py, and so do the turn e-mails, which
their recipients read from the outbox.

Every few steps one viewer in turn (every one of them at the end) fetches everything it can
(``everything`` of test_secrets.py); then, in a savepoint rolled back afterwards, all it may not know
is re-dealt and it fetches everything again: not one byte may differ. Every answer, submission and
e-mail is scanned: none may carry another seat's private view, the content of a hidden deck or the
random generator's state, nor name a key that only the server's copy of the position has.

The pages keep their parts in the cache, per version of the match and viewer seat (games/views.py),
and the test runs with that cache on (the test settings' in-process cache; one case on a real Redis).
Every part a viewer is served from the cache must have been made for its own seat; at a checkpoint the
re-dealt fetch is made twice, from the warm cache and again once the cache is emptied, so that the parts
made anew from the re-dealt position are checked too.

Fetching everything for every viewer after every step would cost minutes per match; one viewer a step
and one checkpoint every few steps see every viewer at many points of every phase.
"""

from __future__ import annotations

import contextlib
import html
import json
import random
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.core.cache import cache, caches
from django.db import transaction
from django.test import Client
from django.urls import reverse

from games import dispatch, livekeys, tasks
from games.api.tokens import api_token_create
from games.engines import registry
from games.engines.base import Engine
from games.models import Match, Notification
from games.services import recording
from tests.web.test_secrets import SECRET_GAMES, _turn_email, everything, redeal_hidden

pytestmark = pytest.mark.django_db


def _seat_counts(slug: str) -> list[int]:
    engine = registry.get_engine(slug)
    return sorted({engine.min_players, engine.max_players})


CASES = [
    pytest.param(slug, seats, id=f"{slug}-{seats}") for slug in SECRET_GAMES for seats in _seat_counts(slug)
]
# A few hundred steps: random matches of these games end in 60 to 220; the cap stops one that would not.
MAX_STEPS = 300
CHECK_EVERY = 6
START = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
# Longer than the presence window: the seat to act last read the match a step ago, so its e-mail goes out.
STEP_TIME = timedelta(minutes=5)
# Keys of a position that no view has and no answer may name, whatever the game calls its secrets.
SERVER_ONLY = {"rng", "rng_state", "seed", "engine_state", "state_after"}
SECRET_NAME = re.compile(r"deck|pile|rng|seed")
SUBMIT_WAYS = ("form", "api-object", "api-notation")

JSON_SCRIPT = re.compile(r'<script[^>]*type="application/json"[^>]*>(.*?)</script>', re.S)
ATTRIBUTE = re.compile(r'\s([A-Za-z_:][-A-Za-z0-9_:.]*)="([^"]*)"')
FORM_CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([A-Za-z0-9]+)"')
FORM_VERSION = re.compile(r'name="version" value="(\d+)"')


@dataclass
class Viewer:
    """A seat's player (a logged-in client and an API token), or the anonymous spectator."""

    position: int | None
    client: Client
    token: str | None = None
    user: Any = None
    seen: dict[str, str] = field(default_factory=dict)  # the latest answer to each fetch
    keys: dict[str, str] = field(default_factory=dict)  # every JSON key or attribute name -> where first
    mails: int = 0

    @property
    def label(self) -> str:
        return "the spectator" if self.position is None else f"seat {self.position}"


@dataclass
class Secrets:
    """What one viewer may not learn at one step, in the forms an answer could carry it."""

    pairs: dict[str, dict[str, str]] = field(default_factory=dict)  # key -> JSON value -> whose
    wholes: dict[frozenset, dict[str, str]] = field(default_factory=dict)  # keys -> JSON of a view -> whose
    attributes: dict[tuple[str, str], str] = field(default_factory=dict)  # (name, value) -> whose
    texts: dict[str, str] = field(default_factory=dict)  # views, deck orders, RNG state: in no text


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _walk(value: Any) -> Iterator[tuple[str | None, Any]]:
    """Every (key, value) pair of a JSON document, and every container in it (with key None)."""
    if isinstance(value, dict):
        yield None, value
        for key, item in value.items():
            yield key, item
            yield from _walk(item)
    elif isinstance(value, list):
        yield None, value
        for item in value:
            yield from _walk(item)


def _trivial(value: Any) -> bool:
    return value is None or isinstance(value, bool) or value in ("", 0, [], {})


def _json_forms(value: Any) -> set[str]:
    forms = {json.dumps(value), json.dumps(value, separators=(",", ":"))}
    if isinstance(value, dict):
        forms |= {json.dumps(value, sort_keys=True), json.dumps(value, sort_keys=True, separators=(",", ":"))}
    return forms


def _attribute_forms(value: Any) -> set[str]:
    forms = _json_forms(value)
    if isinstance(value, list) and all(isinstance(item, str | int) for item in value):
        forms |= {" ".join(map(str, value)), ",".join(map(str, value))}
    elif isinstance(value, str | int):
        forms.add(str(value))
    return forms


def _differing_keys(a: Any, b: Any, path: tuple[str, ...] = ()) -> Iterator[str]:
    """The keys along every path where two positions differ."""
    if a == b:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a.keys() | b.keys():
            yield from _differing_keys(a.get(key), b.get(key), (*path, key))
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for x, y in zip(a, b, strict=True):
            yield from _differing_keys(x, y, path)
    else:
        yield from path


class CacheWatch:
    """Which page parts each viewer is served from the cache (games/livekeys.cache_read)."""

    def __init__(self) -> None:
        self.viewer: Viewer | None = None
        self.hits: dict[str, Counter[str]] = {}
        self.strays: list[str] = []

    def record(self, found: dict[str, Any]) -> None:
        viewer = self.viewer
        if viewer is None:
            return
        for key in found:
            if not key.startswith("page:"):
                continue
            name, owner = key.split(":")[1:3]
            if name.startswith("mine-"):
                # My matches' rows and count, named by the user's matches' key (u<user id>. ...).
                mine = viewer.user is not None and owner.startswith(f"u{viewer.user.pk}.")
            else:
                mine = owner == ("spectator" if viewer.position is None else f"seat{viewer.position}")
            if not mine:
                self.strays.append(f"{viewer.label} was served {key}")
            self.hits.setdefault(viewer.label, Counter())[name] += 1

    @contextlib.contextmanager
    def fetching(self, viewer: Viewer) -> Iterator[None]:
        self.viewer = viewer
        try:
            yield
        finally:
            self.viewer = None


class Table:
    """One match and everyone at it: plays steps, delivers mail, watches, and collects what leaked."""

    def __init__(self, *, slug: str, seats: int, users: list, rng: random.Random, watch: CacheWatch) -> None:
        self.slug, self.seats, self.rng, self.watch = slug, seats, rng, watch
        self.engine: Engine = registry.get_engine(slug)
        self.players = [
            Viewer(k, Client(enforce_csrf_checks=True), api_token_create(user=user).key, user)
            for k, user in enumerate(users)
        ]
        for player, user in zip(self.players, users, strict=True):
            player.client.force_login(user)
        self.spectator = Viewer(None, Client(enforce_csrf_checks=True))
        self.viewers = [*self.players, self.spectator]
        self.match = self._open()
        self.step = 0
        self.checkpoints = 0
        self.submitted = 0
        self.automatic = 0
        self.mailed = len(mail.outbox)
        self.findings: list[str] = []
        self.redealt: Counter[str] = Counter()
        self.hidden_keys: set[str] = set()
        self.view_keys: set[str] = set()
        self.state_keys: set[str] = set()
        self.secrets: dict[int | None, Secrets] = {}
        self.answers: list[tuple[Viewer, str, str]] = []
        self.awaited: list[int] = []

    # --- setting up, over the API --------------------------------------------------------------------

    def _open(self) -> Match:
        first, *others = self.players
        created = first.client.post(
            reverse("api-matches"),
            {"game": self.slug, "seat_count": self.seats, "move_time_limit_hours": 72},
            content_type="application/json",
            **self._auth(first),
        )
        assert created.status_code == 201, created.content
        match_id = created.json()["id"]
        for player in others:
            joined = player.client.post(reverse("api-match-join", args=[match_id]), **self._auth(player))
            assert joined.status_code == 200, joined.content
        match = Match.objects.get(pk=match_id)
        assert match.status == Match.Status.ACTIVE
        seated = {seat.position: seat.user.email for seat in match.seats.select_related("user")}
        assert seated == {player.position: player.user.email for player in self.players}
        return match

    @staticmethod
    def _auth(player: Viewer) -> dict[str, str]:
        return {"HTTP_AUTHORIZATION": f"Token {player.token}"}

    def where(self) -> str:
        return f"{self.slug} ({self.seats} seats), step {self.step}"

    # --- one step: a move over HTTP, or the worker's chance step ------------------------------------

    def play_one(self) -> None:
        self.step += 1
        match = self.match
        match.refresh_from_db()
        owed = recording.automatic_work(match, self.engine, match.engine_state)
        if owed:
            # What the commit queued (and work_due_at records for the sweep): run it as the worker does.
            assert match.work_due_at is not None, f"{self.where()}: owed work is not recorded"
            for work in owed:
                self._run_task(work)
            self.automatic += 1
            return
        assert self.awaited, f"{self.where()}: nobody is awaited and no automatic step is owed"
        mover = self.players[self.rng.choice(self.awaited)]
        offered = json.loads(mover.seen["api-match-legal-moves"])
        assert offered["your_turn"] and offered["version"] == match.version and offered["moves"], self.where()
        choice = self.rng.choice(offered["moves"])
        way = SUBMIT_WAYS[self.submitted % len(SUBMIT_WAYS)]
        self.submitted += 1
        answer = self._submit_form(mover, choice) if way == "form" else self._submit_api(mover, choice, way)
        self.answers.append((mover, f"answer to its {way} move", answer))

    def settle(self) -> None:
        """After a step: learn what is secret in the new position, then scan the mover's answer."""
        self.match.refresh_from_db()
        self._learn_secrets(self.match.engine_state, self.match.rng_state, self.match)
        for viewer, name, answer in self.answers:
            self._scan(viewer, name, answer)
        self.answers.clear()

    def _run_task(self, work: dispatch.Work) -> None:
        if work.kind == "chance":
            task, args = tasks.chance_resolve, (work.match_id, work.version)
        else:
            task, args = tasks.bot_move, (work.match_id, work.version, work.position)
        assert task(*args) is not None, f"{self.where()}: the queued {work.kind} step did nothing"
        # Redelivered after a worker died (acks_late): the second delivery must change nothing.
        assert task(*args) is None, f"{self.where()}: a {work.kind} step delivered twice was applied twice"

    def _submit_form(self, mover: Viewer, choice: dict[str, Any]) -> str:
        """Read the match page, then post its move form with the page's CSRF token and version."""
        url = reverse("match-detail", args=[self.match.pk])
        with self.watch.fetching(mover):
            page = mover.client.get(url)
        assert page.status_code == 200
        text = page.content.decode()
        self.answers.append((mover, "page with its move form", text))
        form = text[text.index('id="move-form"') :]
        token, version = FORM_CSRF.search(form)[1], FORM_VERSION.search(form)[1]
        assert int(version) == self.match.version, self.where()
        response = mover.client.post(
            reverse("match-move", args=[self.match.pk]),
            {"csrfmiddlewaretoken": token, "move": choice["notation"], "version": version},
            follow=True,
        )
        assert response.status_code == 200, (
            f"{self.where()}: {choice['notation']!r} -> {response.status_code}"
        )
        assert response.redirect_chain == [(url, 302)], f"{self.where()}: {choice['notation']!r} was refused"
        answer = response.content.decode()
        assert f"Played {html.escape(choice['notation'])}." in answer, self.where()
        return answer

    def _submit_api(self, mover: Viewer, choice: dict[str, Any], way: str) -> str:
        version = self.match.version
        move = choice["move"] if way == "api-object" else choice["notation"]
        response = mover.client.post(
            reverse("api-match-moves", args=[self.match.pk]),
            {"move": move, "version": version},
            content_type="application/json",
            **self._auth(mover),
        )
        assert response.status_code == 201, f"{self.where()}: {move!r} -> {response.content!r}"
        played = response.json()
        assert played["version"] == version + 1 and played["move"] == choice["move"], self.where()
        return json.dumps(played, sort_keys=True)

    # --- the worker's e-mails -------------------------------------------------------------------------

    def deliver_mail(self) -> None:
        """Send what the step queued, as the worker would, and hand each message to its recipient."""
        pending = list(
            Notification.objects.filter(match=self.match, status=Notification.Status.PENDING).values_list(
                "pk", flat=True
            )
        )
        if pending:
            tasks.notifications_send(pending)
        by_address = {player.user.email: player for player in self.players}
        for message in mail.outbox[self.mailed :]:
            assert len(message.to) == 1 and message.to[0] in by_address, f"{self.where()}: to {message.to}"
            player = by_address[message.to[0]]
            text = "\n".join([message.subject, message.body, *(body for body, _ in message.alternatives)])
            self._scan(player, f"e-mail {message.subject!r}", text)
            player.mails += 1
            # The e-mail that went out is the one a checkpoint renders for the seat both ways (a seat's
            # first few show it; rendering one costs as much as a page).
            if message.subject.startswith("Your move in ") and player.mails <= 2:
                probe = _turn_email(self.match, player.user)
                assert text == probe, f"{self.where()}: {player.label}'s e-mail is not the one re-rendered"
        self.mailed = len(mail.outbox)

    # --- watching -------------------------------------------------------------------------------------

    def poll(self) -> None:
        """One viewer in turn reads the match over the API; the seats it names as awaited ask the API
        for their legal moves, as a program waiting for its turn does."""
        viewer = self.viewers[self.step % len(self.viewers)]
        response = viewer.client.get(
            reverse("api-match", args=[self.match.pk]), **(self._auth(viewer) if viewer.token else {})
        )
        assert response.status_code == 200
        text = json.dumps(response.json(), sort_keys=True)
        self._scan(viewer, "api-match", text)
        self._check_view(viewer, text)
        self.awaited = json.loads(text)["to_act"]
        for position in self.awaited:
            player = self.players[position]
            response = player.client.get(
                reverse("api-match-legal-moves", args=[self.match.pk]), **self._auth(player)
            )
            assert response.status_code == 200
            player.seen["api-match-legal-moves"] = text = json.dumps(response.json(), sort_keys=True)
            self._scan(player, "api-match-legal-moves", text)

    def observe(self, viewer: Viewer) -> None:
        """The viewer fetches everything it can; each answer is scanned for secrets."""
        with self.watch.fetching(viewer):
            viewer.seen = everything(viewer.client, self.match, viewer.token)
        for name, text in viewer.seen.items():
            self._scan(viewer, name, text)
        self._check_view(viewer, viewer.seen["api-match"])
        if viewer.position is not None:
            offered = json.loads(viewer.seen["api-match-legal-moves"])
            assert offered["your_turn"] == (viewer.position in self.awaited), self.where()

    def _check_view(self, viewer: Viewer, text: str) -> None:
        """The API hands out the engine's view for that seat, exactly: nothing more, nothing less."""
        answer = json.loads(text)
        state = self.match.engine_state
        expected = json.loads(json.dumps(self.engine.view(state, viewer.position)))
        assert answer["view"] == expected, (
            f"{self.where()}: the API's view for {viewer.label} is not the engine's"
        )
        active = self.match.status == Match.Status.ACTIVE
        assert answer["to_act"] == (sorted(self.engine.actors(state)) if active else []), self.where()

    def _learn_secrets(self, state: dict[str, Any], rng_state: list[Any] | None, match: Match) -> None:
        """What each viewer may not learn now: the other seats' private views (the parts the viewer
        cannot read off its own view or legal moves), the content of what no view shows, the RNG state."""
        engine = self.engine
        public = engine.public_view(state)
        privates = [engine.private_view(state, p) for p in range(self.seats)]
        # The keys of every view and of every legal move (whose notation anyone may read) are public.
        moves = [engine.legal_moves(state, p) for p in range(self.seats)]
        for document in (public, *privates, *moves):
            self.view_keys |= {key for key, _ in _walk(document) if key is not None}
        self.state_keys |= {key for key, _ in _walk(state) if key is not None}
        # What a re-deal changes names the keys that hold secrets; one viewer a step is enough to learn them.
        viewer = self.viewers[self.step % len(self.viewers)]
        self.hidden_keys |= set(
            _differing_keys(state, engine.sample_hidden(state, viewer.position, random.Random(self.step)))
        )
        texts: dict[str, str] = {}
        unseen = (self.hidden_keys - self.view_keys) | SERVER_ONLY
        seat_numbers = set(range(self.seats))
        for key, value in _walk(state):
            if key not in unseen or not isinstance(value, list) or len(value) < 4:
                continue
            # A list of seat numbers could be anything (the seats to act, say): there is no telling.
            if all(isinstance(item, int) and item in seat_numbers for item in value):
                continue
            texts.update(dict.fromkeys(_json_forms(value), f"the position's {key!r}"))
        if rng_state:
            # A run of the generator's internal words would give the whole state away.
            words = rng_state[1][1:4]
            forms = (", ".join(map(str, words)), ",".join(map(str, words)))
            texts.update(dict.fromkeys(forms, "the RNG state"))
        if match.seed and match.status == Match.Status.ACTIVE:
            # A match drawing from a seed: every draw to come follows from it until it is told at the end.
            texts[match.seed] = "the match's seed"
        private_keys = {key for private in privates for key in private}

        def pairs(document: Any) -> set[tuple[str, str]]:
            return {(key, _canon(value)) for key, value in _walk(document) if key in private_keys}

        # Seat numbers are public, and so is whatever the public view holds.
        public_pairs = pairs(public) | {("seat", _canon(p)) for p in range(self.seats)}
        self.secrets = {}
        for viewer in self.viewers:
            mine = privates[viewer.position] if viewer.position is not None else {}
            known = public_pairs
            if viewer.position is not None:
                known = known | pairs([mine, moves[viewer.position]])
            # A short list may look like one the viewer may read ([1, 2, 3, 4] as a deck and as a track):
            # where the viewer's own documents hold the same text, finding it proves nothing.
            legal = moves[viewer.position] if viewer.position is not None else []
            allowed = "\n".join(form for document in (public, mine, legal) for form in _json_forms(document))
            secrets = Secrets(texts={text: whose for text, whose in texts.items() if text not in allowed})
            for other, private in enumerate(privates):
                if other == viewer.position:
                    continue
                whose = f"seat {other}'s private view"
                for key, value in private.items():
                    if _trivial(value) or (key, _canon(value)) in known:
                        continue
                    secrets.pairs.setdefault(key, {})[_canon(value)] = f"{whose} ({key})"
                    for form in _attribute_forms(value):
                        for name in (key, f"data-{key}"):
                            secrets.attributes[(name, form)] = f"{whose} ({key})"
                if any(not _trivial(v) for v in private.values()) and private != mine:
                    secrets.wholes.setdefault(frozenset(private), {})[_canon(private)] = whose
                    secrets.texts.update(dict.fromkeys(_json_forms(private), whose))
            self.secrets[viewer.position] = secrets

    def _scan(self, viewer: Viewer, name: str, text: str) -> None:
        secrets = self.secrets[viewer.position]
        documents: list[Any] = []
        attributes: list[tuple[str, str]] = []
        if text[:1] in "{[":
            documents.append(json.loads(text))
        else:
            documents += [json.loads(found) for found in JSON_SCRIPT.findall(text)]
            for attribute, raw in ATTRIBUTE.findall(text):
                value = html.unescape(raw)
                attributes.append((attribute.lower(), value))
                if value.strip()[:1] in "{[":
                    with contextlib.suppress(ValueError):
                        documents.append(json.loads(value))
        where = f"{self.where()}: {viewer.label}'s {name}"
        for document in documents:
            for key, value in _walk(document):
                if key is None:
                    wholes = secrets.wholes.get(frozenset(value)) if isinstance(value, dict) else None
                    if wholes and _canon(value) in wholes:
                        self._found(f"{where} holds {wholes[_canon(value)]}")
                    continue
                viewer.keys.setdefault(key, where)
                carried = secrets.pairs.get(key)
                if carried and _canon(value) in carried:
                    self._found(f"{where} has the key {key!r} carrying {carried[_canon(value)]}")
        for attribute, value in attributes:
            viewer.keys.setdefault(attribute.removeprefix("data-"), f"{where} (attribute {attribute})")
            whose = secrets.attributes.get((attribute, value))
            if whose:
                self._found(f"{where} has the attribute {attribute}={value!r} carrying {whose}")
        plain = html.unescape(text)
        for secret, whose in secrets.texts.items():
            if secret in text or secret in plain:
                self._found(f"{where} contains {whose}: {secret[:80]}")

    def _found(self, finding: str) -> None:
        if finding not in self.findings:
            self.findings.append(finding)

    def leaked_keys(self) -> list[str]:
        """Keys of what no view shows (deck orders, hands of the position, the RNG) that an answer used."""
        named = {key for key in self.state_keys if SECRET_NAME.search(key)}
        forbidden = SERVER_ONLY | ((self.hidden_keys | named) - self.view_keys)
        return [
            f"{viewer.label} saw the key {key!r} first in: {viewer.keys[key]}"
            for viewer in self.viewers
            for key in sorted(forbidden & viewer.keys.keys())
        ]

    # --- checkpoints: re-deal what one viewer may not know, and nothing it fetches may change ---------

    def checkpoint(self, viewers: list[Viewer]) -> None:
        """Each viewer fetches everything; then, in a savepoint rolled back afterwards, all it may not
        know is re-dealt and it fetches everything again, from the warm cache and, every other checkpoint
        and at the last, from an empty one too (every part made anew from the re-dealt position): not one
        byte may differ."""
        self.checkpoints += 1
        caches_tried = ("warm", "emptied") if self.checkpoints % 2 or len(viewers) > 1 else ("warm",)
        for viewer in viewers:
            self.observe(viewer)
            self.check_copies_stay_with_their_viewer(viewer)
            with transaction.atomic():
                redealt = redeal_hidden(self.match, self.engine, viewer.position, self.rng, decks_too=True)
                if redealt:
                    for cached in caches_tried:
                        if cached == "emptied":
                            cache.clear()
                        with self.watch.fetching(viewer):
                            again = everything(viewer.client, self.match, viewer.token)
                        for name, before in viewer.seen.items():
                            if again[name] != before:
                                change = _diff(before, again[name])
                                what = f"{viewer.label}'s {name} ({cached} cache)"
                                self._found(f"{self.where()}: {what} changed {change}")
                transaction.set_rollback(True)
            # The parts made from the re-dealt position go with it: they must not outlive the savepoint.
            cache.clear()
            self.match.refresh_from_db()
            self.redealt[viewer.label] += redealt

    def check_copies_stay_with_their_viewer(self, viewer: Viewer) -> None:
        """The page's ETag confirms the viewer's own copy (a 304) and nobody else's: every other seat and
        the spectator sending it get the page drawn for them, so a 304 never hands one seat's copy on."""
        address = reverse("match-detail", args=[self.match.pk])
        tag = viewer.client.get(address)["ETag"]  # the clock stands still meanwhile (_play_and_watch)
        assert viewer.client.get(address, HTTP_IF_NONE_MATCH=tag).status_code == 304, self.where()
        for other in self.viewers:
            if other is not viewer:
                answer = other.client.get(address, HTTP_IF_NONE_MATCH=tag)
                assert answer.status_code == 200, f"{self.where()}: {other.label} was sent a 304"
                self._scan(other, "page", answer.content.decode())


def _diff(before: str, after: str) -> str:
    at = next(
        (k for k, (a, b) in enumerate(zip(before, after, strict=False)) if a != b),
        min(len(before), len(after)),
    )
    return f"at {at}: {before[max(0, at - 60) : at + 60]!r} -> {after[max(0, at - 60) : at + 60]!r}"


@pytest.fixture
def cache_watch(monkeypatch) -> CacheWatch:
    watch = CacheWatch()
    read = livekeys.cache_read

    def watched(names: list[str]) -> dict[str, Any]:
        found = read(names)
        watch.record(found)
        return found

    monkeypatch.setattr(livekeys, "cache_read", watched)
    return watch


@pytest.fixture
def redis_cache(settings, redis_url) -> Iterator[None]:
    """Django's cache on a real Redis (the suite's own, or the one REDIS_URL names) for one test."""
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": redis_url}
    }
    cache.clear()
    yield
    cache.clear()


# What an answer shows is made by the same views from the same positions on any database: one pass covers
# it (the test of the parts kept in Redis runs on both).
@pytest.mark.backend_neutral
@pytest.mark.parametrize(("slug", "seats"), CASES)
def test_every_seat_plays_a_whole_match_over_http_and_learns_only_what_it_may(
    slug, seats, make_user, cache_watch, django_capture_on_commit_callbacks
) -> None:
    _play_and_watch(slug, seats, make_user, cache_watch, django_capture_on_commit_callbacks)


def test_the_pages_parts_kept_in_redis_reach_only_their_own_seat(
    make_user, cache_watch, redis_cache, django_capture_on_commit_callbacks
) -> None:
    assert type(caches["default"]).__name__ == "RedisCache"
    _play_and_watch("stairways", 2, make_user, cache_watch, django_capture_on_commit_callbacks)


@contextlib.contextmanager
def committed(capture) -> Iterator[None]:
    """What the requests inside change, as their commits would tell the cache: the live keys of the
    match and of its players move on. The work a commit queues the table runs itself, as the worker does."""
    with capture() as callbacks:
        yield
    for callback in callbacks:
        if callback.__module__ == livekeys.__name__:
            callback()


def _play_and_watch(slug: str, seats: int, make_user, watch: CacheWatch, capture) -> None:
    cache.clear()  # nothing from another test's match of the same number
    users = [make_user(f"{slug}-{seats}-{k}") for k in range(seats)]
    with time_machine.travel(START, tick=False) as clock:
        with committed(capture):
            table = Table(
                slug=slug, seats=seats, users=users, rng=random.Random(f"http-{slug}-{seats}"), watch=watch
            )
        table.settle()
        table.poll()
        while table.step < MAX_STEPS and table.match.status == Match.Status.ACTIVE:
            clock.shift(STEP_TIME)
            with committed(capture):
                table.play_one()
            table.settle()
            with committed(capture):
                table.deliver_mail()
            table.poll()
            if table.step % CHECK_EVERY == 0:
                # One viewer after the other, so that each is checked at several points of the match.
                table.checkpoint([table.viewers[(table.step // CHECK_EVERY) % len(table.viewers)]])
        table.checkpoint(table.viewers)
    where = f"{slug} ({seats} seats)"
    assert table.match.status == Match.Status.FINISHED or table.step == MAX_STEPS, where
    assert table.submitted >= seats, f"{where}: too few moves were played over HTTP"
    assert table.automatic, f"{where}: no chance step ran through the worker's task"
    assert all(table.redealt[viewer.label] for viewer in table.viewers), f"{where}: {table.redealt}"
    assert all(player.mails for player in table.players), f"{where}: a seat got no e-mail"
    assert not table.findings + table.leaked_keys(), "\n".join(table.findings + table.leaked_keys())
    # The cache was used, by every viewer, and never handed one viewer a part made for another.
    assert not watch.strays, "\n".join(watch.strays[:20])
    for viewer in table.viewers:
        served = watch.hits.get(viewer.label, Counter())
        assert served["board"] and served["panel"] and served["log"], f"{where}: {viewer.label} {served}"
