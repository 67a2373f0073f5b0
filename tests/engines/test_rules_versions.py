"""Every engine's ``rules_version`` names what it plays: a seeded game of each setting, replayed here, must
give the digest written beside the version. A change that makes a game play differently (a rule, a
preset layout, an event's text) fails this test until the version is raised and the new digest written,
so a match's record is never checked against rules it was not played under without the site knowing."""

from __future__ import annotations

import hashlib
import itertools
import random

import pytest

from games.engines import registry
from games.engines.base import Engine, Event
from games.records import canonical

STEPS = 120  # moves and chance steps a setting plays: past every game's setup and first rounds
SKIP_AT = 15  # a turn skipped for time, as the clock does, so the skip is covered too

# slug: (rules_version, the digest of its settings' seeded games). After a change of rules: raise the
# engine's rules_version, write the new digest here and say what changed in the game's rules digest.
PLAYED = {
    "greatwall": (1, "aef2e28e11c56b38cc240386d9511483e62f240803fff189293e9a932d3c0cad"),
    "stairways": (8, "5c62f57ea44911b40e8d259c41feec75c19ef0321b7235a1f2c062562bd19874"),
    "thewall": (1, "19ee8fb6e8ed8a89881f34ed3b826b8b9ce2ea49b97541d4ccd4ddd726113ac8"),
    "wallgo": (1, "6e09c68a9cc3b4b7132f312c97e1c1f25f581e96a3b605ac66719984681ceac1"),
    "wildlings": (1, "44f7c36e2b188fc4b228a0c648e3e39c47b9368293822fdceed45138a91a9bd6"),
}


def _settings(engine: Engine) -> list[tuple[int, dict[str, str]]]:
    """Every seat count with the default options, each other choice of an option, and each two such
    choices of two options together (a preset is often named by two: the layout and the piece set)."""
    others = [
        [(name, value) for value in option.choices if value != option.default]
        for name, option in engine.options.items()
    ]
    chosen: list[dict[str, str]] = [{}]
    chosen += [dict([choice]) for choices in others for choice in choices]
    for first, second in itertools.combinations(others, 2):
        chosen += [dict(pair) for pair in itertools.product(first, second)]
    counts = range(engine.min_players, engine.max_players + 1)
    return [(seats, options) for seats in counts for options in chosen]


def _events(events: list[Event]) -> str:
    return canonical([event.to_dict() for event in events])


def played_digest(engine: Engine) -> str:
    """The SHA-256 of seeded games of every setting: each event, move and public position on the way."""
    digest = hashlib.sha256()
    for seats, chosen in _settings(engine):
        options = engine.resolve_options(chosen, seats=seats)
        rng = random.Random(f"{engine.slug}:{seats}:{canonical(options)}")
        state = engine.new_state(seats=seats, options=options, rng=rng)
        digest.update(canonical(engine.public_view(state)).encode())
        for step in range(STEPS):
            if engine.is_over(state):
                break
            if engine.chance_pending(state):
                state, events = engine.resolve_chance(state, rng)
            else:
                seat = min(engine.actors(state))
                if step == SKIP_AT:
                    state, events = engine.skip(state, seat, rng)
                    digest.update(f"skip {seat}".encode())
                else:
                    move = rng.choice(engine.legal_moves(state, seat))
                    state, events = engine.apply(state, seat, move)
                    digest.update(engine.format_move(move).encode())
            digest.update(_events(events).encode())
        digest.update(canonical(engine.public_view(state)).encode())
    return digest.hexdigest()


def test_every_game_has_its_rules_version_and_digest_written_here() -> None:
    # The test suite's own engines (tests/support) are no game of the site's.
    games = {slug for slug in registry.slugs() if not registry.ENGINES[slug].startswith("tests.")}
    assert set(PLAYED) == games


@pytest.mark.parametrize("slug", sorted(PLAYED))
def test_a_game_plays_as_its_rules_version_says(slug: str) -> None:
    engine = registry.get_engine(slug)
    version, digest = PLAYED[slug]
    found = played_digest(engine)
    assert (engine.rules_version, found) == (version, digest), (
        f"{engine.title} now plays differently from what version {version} of its rules recorded. If its "
        "rules changed, raise its rules_version and write the new digest in PLAYED; if they should not "
        "have, find what changed."
    )


def test_the_settings_cover_every_seat_count_and_every_pair_of_choices() -> None:
    for slug in PLAYED:
        engine = registry.get_engine(slug)
        settings = _settings(engine)
        assert {seats for seats, _ in settings} == set(range(engine.min_players, engine.max_players + 1))
        for seats in range(engine.min_players, engine.max_players + 1):
            chosen = [options for count, options in settings if count == seats]
            for (a, first), (b, second) in itertools.combinations(engine.options.items(), 2):
                pairs = {(each.get(a, first.default), each.get(b, second.default)) for each in chosen}
                assert pairs == set(itertools.product(first.choices, second.choices)), (slug, seats, a, b)
