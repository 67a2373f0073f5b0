"""Many submissions to one match at once, through a real gunicorn on PostgreSQL: one move applies."""

from __future__ import annotations

import random
import threading
from collections import Counter

import httpx
import pytest

from games.engines import registry
from tests.faults.conftest import Api, Db, Stack, assert_consistent, names, run_threads

PLACEMENTS = 8  # Wall Go's token placements: after them a seat has thousands of legal moves


@pytest.fixture(scope="module")
def server(pg_url, tmp_path_factory):
    """One gunicorn for the module: three processes of eight threads, so that 24 requests really run
    at once and meet at the match's row lock."""
    stack = Stack(database_url=pg_url, root=tmp_path_factory.mktemp("concurrency"))
    redis = stack.redis()
    web = stack.web(redis=redis, workers=3, threads=8)
    yield stack, redis, web
    stack.stop_all()


def placed_match(stack: Stack, redis, *, sessions: bool = False) -> tuple[dict, dict]:
    ann, ben = names("cc", 2)
    staged = stack.stage(
        {
            "users": [ann, ben],
            "sessions": sessions,
            "matches": [{"game": "wallgo", "players": [ann, ben], "play": PLACEMENTS, "seed": 5}],
        },
        redis=redis,
    )
    return staged["users"], staged["matches"][0]


def position(pg: Db, match_id: int) -> tuple[dict, int]:
    row = pg.rows("SELECT engine_state, version FROM games_match WHERE id = %s", [match_id])[0]
    return row["engine_state"], row["version"]


def mover_token(users: dict, pg: Db, match_id: int, seat: int) -> str:
    user_id = pg.value(
        "SELECT user_id FROM games_seat WHERE match_id = %s AND position = %s", [match_id, seat]
    )
    return next(user["token"] for user in users.values() if user["id"] == user_id)


def at_once(count: int, send) -> list[httpx.Response]:
    """``count`` requests released together, each on a connection of its own."""
    barrier = threading.Barrier(count)
    answers: list[httpx.Response] = []
    lock = threading.Lock()

    def one(index: int) -> None:
        barrier.wait()
        answer = send(index)
        with lock:
            answers.append(answer)

    errors = run_threads([lambda index=index: one(index) for index in range(count)])
    assert not errors, errors
    return answers


def test_fifty_different_moves_sent_at_once_apply_exactly_one(server, pg):
    stack, redis, web = server
    users, match = placed_match(stack, redis)
    state, version = position(pg, match["id"])
    assert version == PLACEMENTS
    engine = registry.get_engine("wallgo")
    seat = min(engine.actors(state))
    moves = random.Random(50).sample(engine.legal_moves(state, seat), 50)
    token = mover_token(users, pg, match["id"], seat)

    def send(index: int) -> httpx.Response:
        api = Api(web.base, token)
        try:
            return api.move(match["id"], moves[index], version)
        finally:
            api.close()

    answers = at_once(50, send)

    assert Counter(a.status_code for a in answers) == {201: 1, 409: 49}, [a.text[:200] for a in answers]
    played = next(a.json() for a in answers if a.status_code == 201)
    for refused in (a for a in answers if a.status_code == 409):
        assert refused.headers["content-type"].startswith("application/json")
        assert "moved on" in refused.json()["detail"]
    state_after, version_after = position(pg, match["id"])
    assert version_after == version + 1 == played["version"]
    assert pg.value("SELECT count(*) FROM games_move WHERE match_id = %s", [match["id"]]) == version + 1
    last = pg.rows(
        "SELECT seq, move FROM games_move WHERE match_id = %s ORDER BY seq DESC LIMIT 1", [match["id"]]
    )
    assert last[0]["seq"] == played["seq"] == version + 1
    assert last[0]["move"] == played["move"] and played["move"] in moves
    assert state_after == engine.apply(state, seat, played["move"])[0]
    assert_consistent(pg, [match["id"]])


def test_a_move_sent_again_with_the_same_version_applies_once(server, pg):
    stack, redis, web = server
    users, match = placed_match(stack, redis, sessions=True)
    engine = registry.get_engine("wallgo")

    # Over the API: the answer was lost, so the client sends the very same request again (twice at once
    # too, as an impatient retry would); one 201, every other copy a 409 and nothing more played.
    state, version = position(pg, match["id"])
    seat = min(engine.actors(state))
    move = random.Random(1).choice(engine.legal_moves(state, seat))
    token = mover_token(users, pg, match["id"], seat)
    api = Api(web.base, token)
    first = api.move(match["id"], move, version)
    assert first.status_code == 201, first.text
    again = [api.move(match["id"], move, version)]
    api.close()

    def resend(_: int) -> httpx.Response:
        client = Api(web.base, token)
        try:
            return client.move(match["id"], move, version)
        finally:
            client.close()

    again += at_once(10, resend)
    assert {a.status_code for a in again} == {409}
    assert all("moved on" in a.json()["detail"] for a in again)
    assert position(pg, match["id"])[1] == version + 1
    assert pg.value("SELECT count(*) FROM games_move WHERE match_id = %s", [match["id"]]) == version + 1

    # Through the page's form: a double click posts the form twice at once; one is played, the other
    # gets the page back with the reason, and the log holds the move once.
    state, version = position(pg, match["id"])
    seat = min(engine.actors(state))
    notation = engine.format_move(random.Random(2).choice(engine.legal_moves(state, seat)))
    logged = "SELECT count(*) FROM games_move WHERE match_id = %s AND notation = %s"
    before = pg.value(logged, [match["id"], notation])
    player = next(u for u in users.values() if u["token"] == mover_token(users, pg, match["id"], seat))
    page = httpx.get(f"{web.base}/matches/{match['id']}/", cookies={"sessionid": player["session"]})
    assert page.status_code == 200
    cookies = {"sessionid": player["session"], "csrftoken": page.cookies["csrftoken"]}
    form = {"move": notation, "version": str(version), "csrfmiddlewaretoken": page.cookies["csrftoken"]}

    def post(_: int) -> httpx.Response:
        return httpx.post(f"{web.base}/matches/{match['id']}/move/", data=form, cookies=cookies, timeout=30)

    answers = at_once(2, post)
    assert sorted(a.status_code for a in answers) == [302, 409], [a.text[:300] for a in answers]
    refused = next(a for a in answers if a.status_code == 409)
    assert "moved on" in refused.text
    assert position(pg, match["id"])[1] == version + 1
    assert pg.value(logged, [match["id"], notation]) == before + 1
    assert pg.value("SELECT count(*) FROM games_move WHERE match_id = %s", [match["id"]]) == version + 1
    assert_consistent(pg, [match["id"]])
