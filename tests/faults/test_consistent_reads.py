"""A match read while a move commits describes one moment: never "your turn" next to an older position."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from games import selectors, services
from games.api.serializers import legal_moves_data
from games.models import Match


@pytest.mark.django_db(transaction=True)
def test_a_move_committed_in_the_middle_of_a_read_does_not_make_it_the_readers_turn(
    started_match, alice, bob
):
    match = started_match()  # alice (seat 0) to move, version 0
    moved = []

    def alice_moves_now(execute, sql, params, many, context):
        # Once the reader has the match row, and before its next query, alice's move commits on another
        # connection (between statements: SQLite would not let a writer in during one).
        if moved == [False]:
            moved[0] = True
            thread = threading.Thread(target=play)
            thread.start()
            thread.join()
        if not moved and 'FROM "games_match"' in sql:
            moved.append(False)
        return execute(sql, params, many, context)

    def play() -> None:
        try:
            services.move_play(match_id=match.pk, user=alice, expected_version=0, text="d4")
        finally:
            connection.close()

    with connection.execute_wrapper(alice_moves_now):
        mv = selectors.match_view_for(match_id=match.pk, user=bob)

    assert Match.objects.get(pk=match.pk).version == 1  # the move did commit in between
    assert mv.match.version == 0
    data = legal_moves_data(mv)
    # Bob saw version 0, where alice is to move: it is not his turn in what he was shown.
    assert data["your_turn"] is False and data["moves"] == [] and data["version"] == 0
    # Read again, the move is there and it is his turn, with his moves.
    after = legal_moves_data(selectors.match_view_for(match_id=match.pk, user=bob))
    assert after["your_turn"] is True and after["moves"] and after["version"] == 1
