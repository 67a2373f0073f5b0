"""Task paths through a real Redis and real Celery worker processes."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.utils import timezone

from games import services
from games.dispatch import FLUSH_QUEUED
from games.models import Match, Move, Notification, Turn
from games.sweep import sweep_run
from tests.conftest import no_vacation, play_random
from tests.tasks.conftest import use_broker
from wallsite.embedded_redis import free_port, redis_start, redis_stop
from wallsite.settings.base import redis_database

DAY = timedelta(days=1)


def dice_match(alice, bob) -> Match:
    """A test-engine match whose setup leaves a chance step (the deal) for the worker."""
    match = services.match_create(creator=alice, game="testdice", seat_count=2)
    services.seat_join(match_id=match.pk, user=bob)
    return match


def version_of(match: Match) -> int:
    return Match.objects.values_list("version", flat=True).get(pk=match.pk)


def chance_moves(match: Match) -> int:
    return Move.objects.filter(match=match, seat__isnull=True).count()


def wait_until(condition, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_chance_step_is_resolved_by_the_worker_exactly_once(workers, alice, bob):
    workers.start()
    match = dice_match(alice, bob)
    wait_until(lambda: version_of(match) == 1, "the worker to deal")
    time.sleep(1)  # nothing more may happen
    assert version_of(match) == 1 and chance_moves(match) == 1
    match.refresh_from_db()
    assert match.work_due_at is None


def test_a_task_delivered_twice_applies_once(workers, alice, bob):
    from games import tasks

    match = dice_match(alice, bob)  # its own task goes out too: three deliveries in all
    tasks.chance_resolve.delay(match.pk, 0)
    tasks.chance_resolve.delay(match.pk, 0)
    workers.start()
    wait_until(lambda: version_of(match) == 1, "the worker to deal")
    time.sleep(1.5)
    assert version_of(match) == 1 and chance_moves(match) == 1


def test_a_worker_killed_in_the_middle_of_a_task_has_it_redelivered_and_applied_once(workers, alice, bob):
    first = workers.start(WALLSITE_TEST_CHANCE_PAUSE="3")
    match = dice_match(alice, bob)
    time.sleep(1.5)  # the worker is now asleep inside the chance step, its transaction open
    workers.kill(first)
    assert version_of(match) == 0 and chance_moves(match) == 0
    # Redis hands the unacknowledged task to the next worker once its visibility timeout (4 s) passes.
    workers.start(WALLSITE_TEST_CHANCE_PAUSE="0")
    wait_until(lambda: version_of(match) == 1, "the redelivered task", timeout=45)
    time.sleep(1)
    assert version_of(match) == 1 and chance_moves(match) == 1


@pytest.mark.django_db(transaction=True)
def test_two_sweeps_at_once_send_one_reminder_and_apply_one_timeout(
    workers, started_match, alice, bob, carol
):
    no_vacation(alice, bob, carol)
    expiring = started_match(move_time_limit=DAY, timeout_policy="skip")
    reminded = services.match_create(creator=carol, game="wallgo", seat_count=2, move_time_limit=3 * DAY)
    services.seat_join(match_id=reminded.pk, user=bob)
    expiring_turn = Turn.objects.get(match=expiring, closed_at__isnull=True)
    reminded_turn = Turn.objects.get(match=reminded, closed_at__isnull=True)
    # Make one turn overdue and the other's 24-hour reminder due.
    now = timezone.now()
    Turn.objects.filter(pk=expiring_turn.pk).update(deadline=now - timedelta(minutes=1), remind_at=None)
    Turn.objects.filter(pk=reminded_turn.pk).update(deadline=now + timedelta(hours=23), remind_at=now)
    Notification.objects.all().delete()  # leave only what the sweeps make

    workers.start()
    reports = []
    barrier = threading.Barrier(2)

    def sweep() -> None:
        barrier.wait()
        try:
            reports.append(sweep_run())
        finally:
            connection.close()

    threads = [threading.Thread(target=sweep) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(len(r.expired) for r in reports) == [0, 1]
    assert sorted(len(r.reminders) for r in reports) == [0, 1]
    wait_until(lambda: version_of(expiring) == 1, "the timeout")
    reminder = Notification.objects.get(user=carol, kind="reminder")
    wait_until(lambda: Notification.objects.get(pk=reminder.pk).status == "sent", "the reminder")
    time.sleep(1.5)
    assert version_of(expiring) == 1
    assert Notification.objects.filter(kind="reminder").count() == 1
    reminders = [
        mail for mail in workers.sent_mail() if "carol@example.com" in mail and "remind" in mail.lower()
    ]
    assert len(reminders) == 1


def test_a_move_made_while_redis_is_down_is_saved_and_its_notification_goes_out_once_redis_is_back(
    workers, tmp_path, started_match, alice, bob
):
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    broker = redis_start(port=port, directory=tmp_path / "own-redis")
    workers.broker = url
    use_broker(url)
    match = started_match(move_time_limit=3 * DAY)
    worker = workers.start()
    redis_stop(broker)

    # Redis is down: the move is saved all the same, and bob's notification waits in the outbox.
    services.move_play(match_id=match.pk, user=alice, expected_version=0, text="d4")
    assert version_of(match) == 1
    note = Notification.objects.get(user=bob, kind="your_turn")
    assert note.status == "pending"

    broker = redis_start(port=port, directory=tmp_path / "own-redis")
    try:
        workers.wait_for(
            lambda: "Connected to redis" in worker.log.read_text().split("Cannot connect")[-1],
            "the worker to reconnect",
            worker,
        )
        time.sleep(1.5)  # REQUEUE_AFTER in the worker's settings is one second
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("django.conf.settings.REQUEUE_AFTER", timedelta(seconds=1))
            report = sweep_run()
        assert note.pk in report.notifications
        wait_until(lambda: Notification.objects.get(pk=note.pk).status == "sent", "the notification")
        sweep_run(now=timezone.now() + timedelta(minutes=5))  # a later sweep sends nothing again
        time.sleep(1.5)
        to_bob = [mail for mail in workers.sent_mail() if "bob@example.com" in mail]
        assert len(to_bob) == 1
    finally:
        workers.stop_all()
        redis_stop(broker)


def test_beat_runs_the_sweep_every_few_seconds(workers, started_match, alice, bob):
    no_vacation(alice, bob)
    match = started_match(move_time_limit=DAY, timeout_policy="skip")
    Turn.objects.filter(match=match).update(deadline=timezone.now() - timedelta(minutes=1))
    workers.start()
    workers.start_beat(SWEEP_SECONDS="1")
    wait_until(lambda: version_of(match) == 1, "beat's sweep to expire the turn", timeout=45)


def test_moves_made_while_a_flush_waits_share_it_and_each_e_mail_goes_out_once(
    workers, started_match, alice, bob, settings, redis_url
):
    # This process plays the web server's part: its flag is in the workers' cache too.
    settings.NOTIFY_COALESCE = True
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_database(redis_url, 1),
        }
    }
    cache.delete(FLUSH_QUEUED)
    match = started_match()
    play_random(match, moves=6)  # no worker yet: the first commit's flush waits in the queue
    worker = workers.start()
    # A row for the opening turn and one per move; by the time the flush runs, every turn but the
    # last was played, so only its player gets an e-mail: nobody hears of a turn they already took.
    notes = Notification.objects.filter(match=match, kind="your_turn")
    assert notes.count() == 7
    wait_until(lambda: not notes.filter(status="pending").exists(), "the flush")
    time.sleep(1)  # nothing more may go out
    assert notes.filter(status="sent").count() == 1 and notes.filter(status="skipped").count() == 6
    log = worker.log.read_text()
    received = [line for line in log.splitlines() if "notifications_flush[" in line and "received" in line]
    assert len(received) == 1, log[-3000:]
    assert "games.notifications_send[" not in log
    awaited = Turn.objects.select_related("seat__user").get(match=match, closed_at__isnull=True).seat.user
    mails = workers.sent_mail()
    assert len(mails) == 1 and f"To: {awaited.email}" in mails[0]

    # The flush has started, so the next move queues a flush of its own, sent at once.
    play_random(match, moves=1, seed=2)
    wait_until(lambda: len(workers.sent_mail()) == 2, "the next move's e-mail")
