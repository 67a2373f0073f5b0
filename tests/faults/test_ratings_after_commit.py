"""The move that finishes a match never waits for its game's ratings: a worker rates the match after the
move has committed. Real gunicorn, Celery worker and Redis on PostgreSQL, where the rating board is a
real row lock that another transaction can hold."""

from __future__ import annotations

import time

import psycopg

from games.engines import registry
from tests.faults.conftest import Api, libpq, names, wait_until, wallgo_lines


def test_a_finishing_move_is_answered_while_the_game_s_ratings_are_locked(stack, pg, pg_url):
    redis = stack.redis()
    web = stack.web(redis=redis)
    ann, ben = names("ra", 2)
    staged = stack.stage(
        {"users": [ann, ben], "matches": [{"game": "wallgo", "players": [ann, ben]}]}, redis=redis
    )
    tokens = (staged["users"][ann]["token"], staged["users"][ben]["token"])
    line = wallgo_lines(pg, staged, lambda _index: tokens)[0]
    apis = [Api(web.base, token, timeout=30) for token in tokens]
    engine = registry.get_engine("wallgo")
    try:
        # Both players move until the next move ends the game.
        while True:
            seat, move = line.next_move()
            if engine.is_over(engine.apply(line.state, seat, move)[0]):
                break
            answer = apis[seat].move(line.match_id, move, line.version)
            assert answer.status_code == 201, answer.text
            line.played(seat, move)

        pg.run(
            "INSERT INTO ratings_ratingboard (game, updated_at) VALUES ('wallgo', now()) "
            "ON CONFLICT DO NOTHING"
        )
        # Another transaction holds Wall Go's rating board, as a long re-rating of the game would.
        with psycopg.connect(libpq(pg_url)) as holder:
            holder.execute("SELECT id FROM ratings_ratingboard WHERE game = 'wallgo' FOR UPDATE")
            began = time.monotonic()
            answer = apis[seat].move(line.match_id, move, line.version)
            took = time.monotonic() - began
            assert answer.status_code == 201, answer.text
            assert answer.json()["status"] == "finished"
            assert pg.value("SELECT status FROM games_match WHERE id = %s", [line.match_id]) == "finished"
            # Answered without waiting for the lock (the client would have waited 30 s), and not rated yet.
            assert took < 20
            assert pg.value("SELECT count(*) FROM ratings_ratedmatch") == 0

            # The queued rating waits for the board in the worker, then counts the match once.
            stack.worker(redis=redis)
            time.sleep(1)
            assert pg.value("SELECT count(*) FROM ratings_ratedmatch") == 0
            holder.rollback()
        wait_until(
            lambda: pg.value("SELECT count(*) FROM ratings_rating WHERE game = 'wallgo'") == 2,
            "the worker to rate the finished match",
        )
        assert pg.rows("SELECT match_id FROM ratings_ratedmatch") == [{"match_id": line.match_id}]
        assert pg.value("SELECT count(*) FROM ratings_ratingchange WHERE match_id = %s", [line.match_id]) == 2
    finally:
        for api in apis:
            api.close()
