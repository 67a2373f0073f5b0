"""Post-game analysis (games/services/analysing.py): one row per match, one run, progress and marks."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services
from games.errors import Conflict
from games.models import Analysis, Move

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(started_match, alice, bob):
    """A Wall Go match alice won when bob resigned, after he put his first token in a corner."""
    match = started_match()
    services.move_play(match_id=match.pk, user=alice, expected_version=0, text="d4")
    services.move_play(match_id=match.pk, user=bob, expected_version=1, text="a1")
    services.match_resign(match_id=match.pk, user=bob)
    match.refresh_from_db()
    assert match.status == match.Status.FINISHED
    return match


def test_asking_twice_makes_one_analysis_and_queues_it_once(finished, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as first:
        services.analysis_request(match_id=finished.pk)
    with django_capture_on_commit_callbacks() as second:
        again = services.analysis_request(match_id=finished.pk)
    assert Analysis.objects.filter(match=finished).count() == 1
    assert (len(first), len(second)) == (1, 0)
    assert again.status == Analysis.Status.QUEUED


def test_the_queued_task_rates_the_moves_and_stores_the_marks(finished, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        services.analysis_request(match_id=finished.pk)
    analysis = Analysis.objects.get(match=finished)
    assert analysis.status == Analysis.Status.DONE
    assert (analysis.done, analysis.total) == (2, 2)
    assert analysis.finished_at is not None
    by_seq = {entry["seq"]: entry for entry in analysis.marks}
    assert set(by_seq) == {1, 2}  # the resignation's line is no move
    corner = by_seq[2]
    assert corner["mark"] == "??" and corner["loss"] >= 5
    assert corner["best_move"] != {"place": "a1"}
    assert corner["best"] == finished.engine.format_move(corner["best_move"])


def test_a_task_delivered_twice_has_the_effect_of_once(finished, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks():  # queued, not run
        services.analysis_request(match_id=finished.pk)
    first = services.analysis_run(match_id=finished.pk)
    marks, finished_at = first.marks, first.finished_at
    assert services.analysis_run(match_id=finished.pk) is None
    analysis = Analysis.objects.get(match=finished)
    assert (analysis.status, analysis.marks, analysis.finished_at) == (
        Analysis.Status.DONE,
        marks,
        finished_at,
    )


def test_a_run_while_another_holds_the_row_does_nothing(finished, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks():
        services.analysis_request(match_id=finished.pk)
    Analysis.objects.filter(match=finished).update(status=Analysis.Status.RUNNING)
    assert services.analysis_run(match_id=finished.pk) is None
    assert Analysis.objects.get(match=finished).marks == []


def test_an_analysis_of_the_same_match_gives_the_same_marks(finished, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        services.analysis_request(match_id=finished.pk)
    first = Analysis.objects.get(match=finished).marks
    Analysis.objects.filter(match=finished).update(status=Analysis.Status.QUEUED, marks=[])
    services.analysis_run(match_id=finished.pk)
    assert Analysis.objects.get(match=finished).marks == first


def test_only_a_finished_match_is_analysed(started_match, alice):
    match = started_match()
    services.move_play(match_id=match.pk, user=alice, expected_version=0, text="d4")
    with pytest.raises(Conflict, match="finished"):
        services.analysis_request(match_id=match.pk)
    assert not Analysis.objects.exists()


def test_progress_is_saved_while_it_runs(finished, monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setattr("games.services.analysing.PROGRESS_EVERY", 1)
    with django_capture_on_commit_callbacks():
        services.analysis_request(match_id=finished.pk)
    with CaptureQueriesContext(connection) as queries:
        services.analysis_run(match_id=finished.pk)
    updates = [q["sql"] for q in queries if q["sql"].startswith("UPDATE") and "games_analysis" in q["sql"]]
    # Claimed, the total set, each position done, then the marks.
    assert len(updates) == 5, updates
    assert '"total" = 2' in updates[1]
    assert ['"done" = 1' in updates[2], '"done" = 2' in updates[3]] == [True, True]
    assert "\"status\" = 'done'" in updates[4]


def test_a_request_queues_again_an_analysis_left_waiting_for_ten_minutes(
    finished, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks():
        services.analysis_request(match_id=finished.pk)
    Analysis.objects.filter(match=finished).update(created_at=timezone.now() - timedelta(minutes=9))
    with django_capture_on_commit_callbacks() as soon:
        services.analysis_request(match_id=finished.pk)
    Analysis.objects.filter(match=finished).update(created_at=timezone.now() - timedelta(minutes=11))
    with django_capture_on_commit_callbacks(execute=True) as late:
        services.analysis_request(match_id=finished.pk)
    assert (len(soon), len(late)) == (0, 1)
    assert Analysis.objects.get(match=finished).status == Analysis.Status.DONE


def test_a_run_that_breaks_is_marked_failed_and_a_new_request_tries_again(
    finished, django_capture_on_commit_callbacks, caplog
):
    good = Move.objects.get(match=finished, seq=1).state_after
    Move.objects.filter(match=finished, seq=1).update(state_after={"phase": "placement"})
    with django_capture_on_commit_callbacks(execute=True):
        services.analysis_request(match_id=finished.pk)
    analysis = Analysis.objects.get(match=finished)
    assert analysis.status == Analysis.Status.FAILED
    assert "analysis of match" in caplog.text
    Move.objects.filter(match=finished, seq=1).update(state_after=good)
    with django_capture_on_commit_callbacks(execute=True):
        services.analysis_request(match_id=finished.pk)
    assert Analysis.objects.get(match=finished).status == Analysis.Status.DONE
