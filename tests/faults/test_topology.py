"""The production topology on loopback: two web processes, two Celery workers and one beat, sharing
PostgreSQL and one Redis, play many matches at once; nothing is processed twice.

Clients alternate between the two web processes (there is no balancer), both with the production
settings behind what a TLS-terminating proxy would send. Work the workers do: chance steps (the test
game's deal and die), computer moves (in Wall Go and the test game), deadline reminders and expired
turns claimed by beat's sweep. Beat sweeps every second and re-queues anything owed for over a second,
so the same work is often queued again while a worker is on it; the row locks and versions must make
each happen once.
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from functools import partial

from games.engines import registry
from tests.faults.conftest import (
    Api,
    Db,
    assert_chance_once_per_round,
    assert_consistent,
    names,
    play_dice,
    run_threads,
    wait_until,
)

PROXY = {"X-Forwarded-Proto": "https"}  # what the TLS-terminating proxy in front would add
PRODUCTION = {
    "DJANGO_SETTINGS_MODULE": "wallsite.settings.production",
    "SECRET_KEY": "topology-test-" + "k" * 40,
    "ALLOWED_HOSTS": "127.0.0.1",
    "CSRF_TRUSTED_ORIGINS": "https://127.0.0.1",
    "SWEEP_SECONDS": "1",
    "REQUEUE_AFTER_SECONDS": "1",
}
DICE_PAIRS = 3  # test-dice matches between two players
DICE_BOTS = 3  # test-dice matches against a computer
WALLGO_BOTS = 2  # Wall Go against a computer
HUMAN_WALLGO_MOVES = 5  # the four placements and one real move
REMINDED = 3  # idle matches whose reminder falls due
EXPIRED = 2  # idle matches whose turn has run out (policy: skip)


def replay_wallgo(pg: Db, match_id: int) -> None:
    """Replay the log from the start: every line a legal move of the seat awaited, ending in the stored
    state. A computer's move applied twice could not pass."""
    engine = registry.get_engine("wallgo")
    match = pg.rows("SELECT seat_count, options, engine_state FROM games_match WHERE id = %s", [match_id])[0]
    # Wall Go's setup draws nothing: the starting position does not depend on the generator.
    state = engine.new_state(seats=match["seat_count"], options=match["options"], rng=random.Random(0))
    for line in pg.rows(
        "SELECT m.move, s.position FROM games_move m JOIN games_seat s ON s.id = m.seat_id "
        "WHERE m.match_id = %s ORDER BY m.seq",
        [match_id],
    ):
        assert line["position"] in engine.actors(state), f"match {match_id}: a move out of turn"
        assert line["move"] in engine.legal_moves(state, line["position"])
        state, _ = engine.apply(state, line["position"], line["move"])
    assert state == match["engine_state"]


def test_two_web_processes_and_two_workers_process_every_move_reminder_and_chance_step_once(
    stack, pg, pg_url
):
    redis = stack.redis()
    users = names("topo", 2 * DICE_PAIRS + DICE_BOTS + WALLGO_BOTS + 2 * REMINDED + 2 * EXPIRED)
    take = iter(users)

    def duel(name: str, **more) -> dict:
        return {"game": "wallgo", "name": name, "players": [next(take), next(take)], **more}

    groups: dict[str, list[dict]] = {
        "dice_pairs": [
            {"game": "testdice", "name": f"Pair {i}", "players": [next(take), next(take)]}
            for i in range(DICE_PAIRS)
        ],
        "dice_bots": [
            {"game": "testdice", "name": f"Bot dice {i}", "players": [next(take)], "bots": ["random"]}
            for i in range(DICE_BOTS)
        ],
        "wallgo_bots": [
            {"game": "wallgo", "name": f"Bot wall {i}", "players": [next(take)], "bots": ["random"]}
            for i in range(WALLGO_BOTS)
        ],
        "reminded": [duel(f"Idle {i}", move_time_limit_hours=72) for i in range(REMINDED)],
        "expired": [
            duel(f"Late {i}", move_time_limit_hours=24, timeout_policy="skip") for i in range(EXPIRED)
        ],
    }
    specs = [spec for group in groups.values() for spec in group]
    staged = stack.stage({"users": users, "matches": specs}, redis=redis)
    made = iter(staged["matches"])
    ids = {group: [next(made)["id"] for _ in specs_of] for group, specs_of in groups.items()}
    token = {name: staged["users"][name]["token"] for name in users}
    user_ids = [staged["users"][name]["id"] for name in users]
    addresses = {staged["users"][name]["email"] for name in users}
    all_ids = [match_id for group in ids.values() for match_id in group]

    # Due work for the sweep: reminders due now, turns run out a minute ago (no vacation day left).
    pg.run(
        "UPDATE games_turn SET remind_at = now() WHERE closed_at IS NULL AND match_id = ANY(%s)",
        [ids["reminded"]],
    )
    late = [name for spec in groups["expired"] for name in spec["players"]]
    pg.run(
        "UPDATE accounts_user SET vacation_days_left = 0, vacation_year = extract(year from now()) "
        "WHERE username = ANY(%s)",
        [late],
    )
    pg.run(
        "UPDATE games_turn SET deadline = now() - interval '1 minute', remind_at = NULL "
        "WHERE closed_at IS NULL AND match_id = ANY(%s)",
        [ids["expired"]],
    )

    webs = [stack.web(redis=redis, workers=1, threads=4, headers=PROXY, **PRODUCTION) for _ in range(2)]
    workers = [stack.worker(redis=redis, **PRODUCTION) for _ in range(2)]
    stack.beat(redis=redis, **PRODUCTION)

    def apis(name: str) -> list[Api]:
        return [Api(web.base, token[name], headers=PROXY) for web in webs]

    give_up = time.monotonic() + 120

    def dice_seat(match_id: int, name: str, seed: int) -> None:
        clients = apis(name)
        play_dice(
            clients,
            match_id,
            database_url=pg_url,
            rng=random.Random(seed),
            until=lambda: time.monotonic() > give_up,
        )
        for client in clients:
            client.close()

    def wallgo_seat(match_id: int, name: str, seed: int) -> None:
        clients = apis(name)
        rng = random.Random(seed)
        played = calls = 0
        while played < HUMAN_WALLGO_MOVES and time.monotonic() < give_up:
            legal = clients[calls % 2].legal(match_id).json()
            calls += 1
            if not legal["your_turn"]:
                time.sleep(0.1)
                continue
            answer = clients[calls % 2].move(match_id, rng.choice(legal["moves"])["move"], legal["version"])
            calls += 1
            assert answer.status_code in (201, 409), answer.text
            played += answer.status_code == 201
        for client in clients:
            client.close()

    dice_specs = groups["dice_pairs"] + groups["dice_bots"]
    seats = [
        partial(dice_seat, match_id, name, index)
        for index, (match_id, spec) in enumerate(
            zip(ids["dice_pairs"] + ids["dice_bots"], dice_specs, strict=True)
        )
        for name in spec["players"]
    ]
    seats += [
        partial(wallgo_seat, match_id, spec["players"][0], index)
        for index, (match_id, spec) in enumerate(zip(ids["wallgo_bots"], groups["wallgo_bots"], strict=True))
    ]
    errors = run_threads(seats)
    assert not errors, errors

    # Everything owed gets done: the games played out, the computers' replies, reminders, expiries, mail.
    dice = ids["dice_pairs"] + ids["dice_bots"]
    wait_until(
        lambda: (
            pg.value("SELECT count(*) FROM games_match WHERE id = ANY(%s) AND status = 'active'", [dice]) == 0
        ),
        "the dice matches to finish",
    )
    wait_until(
        lambda: (
            pg.value(
                "SELECT count(*) FROM games_match WHERE id = ANY(%s) AND work_due_at IS NULL",
                [ids["wallgo_bots"]],
            )
            == WALLGO_BOTS
        ),
        "the computers' last Wall Go replies",
    )
    wait_until(
        lambda: (
            pg.value("SELECT count(*) FROM games_match WHERE id = ANY(%s) AND version = 1", [ids["expired"]])
            == EXPIRED
        ),
        "the expired turns",
    )
    pending = "SELECT count(*) FROM games_notification WHERE status = 'pending' AND user_id = ANY(%s)"
    wait_until(lambda: pg.value(pending, [user_ids]) == 0, "every notification to go out")

    def snapshot() -> tuple:
        versions = pg.rows("SELECT id, version FROM games_match WHERE id = ANY(%s) ORDER BY id", [all_ids])
        notes = pg.value("SELECT count(*) FROM games_notification WHERE user_id = ANY(%s)", [user_ids])
        return versions, notes, len(stack.sent_mail(to=addresses))

    before = snapshot()
    time.sleep(3)  # three more sweeps, each re-queueing anything it still thinks owed
    assert snapshot() == before, "work was done again after everything had settled"

    # Moves: every log whole, one line per version, the positions the logs lead to.
    assert_consistent(pg, all_ids)
    for match_id in dice:
        assert assert_chance_once_per_round(pg, match_id) >= 3
    for match_id in ids["wallgo_bots"]:
        replay_wallgo(pg, match_id)
        assert (
            pg.value("SELECT version FROM games_match WHERE id = %s", [match_id])
            >= 2 * HUMAN_WALLGO_MOVES - 1
        )
    for match_id in ids["expired"]:
        lines = pg.rows("SELECT notation FROM games_move WHERE match_id = %s", [match_id])
        assert [line["notation"] for line in lines] == ["timeout"]
    for match_id in ids["reminded"]:
        assert pg.value("SELECT version FROM games_match WHERE id = %s", [match_id]) == 0

    # Notifications: one reminder per idle match; one e-mail per notification sent, per player and kind.
    reminders = pg.rows(
        "SELECT match_id, status FROM games_notification WHERE kind = 'reminder' AND user_id = ANY(%s)",
        [user_ids],
    )
    assert sorted(r["match_id"] for r in reminders) == sorted(ids["reminded"])
    assert {r["status"] for r in reminders} == {"sent"}
    assert {
        r["status"]
        for r in pg.rows("SELECT status FROM games_notification WHERE user_id = ANY(%s)", [user_ids])
    } <= {"sent", "skipped"}

    def kind_of(subject: str) -> str:
        return (
            "reminder"
            if subject.startswith("Reminder:")
            else "your_turn"
            if subject.startswith("Your move")
            else "match_event"
        )

    sent = Counter(
        (row["email"], row["kind"])
        for row in pg.rows(
            "SELECT u.email, n.kind FROM games_notification n JOIN accounts_user u ON u.id = n.user_id "
            "WHERE n.status = 'sent' AND n.user_id = ANY(%s)",
            [user_ids],
        )
    )
    mailed = Counter(
        (message["To"], kind_of(re.sub(r"\s+", " ", message["Subject"])))
        for message in stack.sent_mail(to=addresses)
    )
    assert mailed == sent
    # Of the news: each player of an expired turn hears of the timeout once; the rest are results, one
    # to each player of each match that ended (they are never on its page here).
    news = pg.rows(
        "SELECT n.key, n.match_id FROM games_notification n "
        "WHERE n.kind = 'match_event' AND n.status = 'sent' AND n.user_id = ANY(%s)",
        [user_ids],
    )
    assert sum(":timeout:" in row["key"] for row in news) == 2 * EXPIRED
    finished = {row["id"] for row in pg.rows("SELECT id FROM games_match WHERE status = 'finished'")}
    results = Counter(row["match_id"] for row in news if row["key"].endswith(":end"))
    assert set(results) <= finished
    # Two people who never opened the page: both are told how a finished match ended, once.
    assert all(results[match_id] == 2 for match_id in set(ids["dice_pairs"]) & finished), results
    assert sum(count for (_, kind), count in mailed.items() if kind == "match_event") == len(news)

    # The topology was really used: both web processes answered and both workers ran tasks.
    for web in webs:
        health = Api(web.base, token[users[0]], headers=PROXY).http.get("/healthz")
        assert health.status_code == 200, health.text
    for web in webs:
        assert "POST /api/matches/" in web.text()
    for worker in workers:
        assert "succeeded" in worker.text(), worker.text()[-2000:]
    # How often the same work reached a worker again and was turned away (informative: it varies).
    log = "".join(worker.text() for worker in workers)
    stale = len(re.findall(r"games\.(?:chance_resolve|bot_move)\[[^]]+\] succeeded in [^:]+: None", log))
    again = log.count("'already sent'")
    print(f"topology: {stale} stale or repeated automatic steps and {again} repeated sends turned away")
