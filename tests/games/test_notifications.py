from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.conf import settings
from django.core import mail
from django.core.cache import cache
from django.db import connection

from games import dispatch, notifications, services, tasks
from games.models import Move, Notification, Seat, Turn
from games.notifications import (
    digests_create,
    notification_send,
    notify_match_event,
    notify_turn_started,
    queue_send,
    reminder_create,
)
from games.timefmt import when_text
from tests.conftest import play_random
from tests.support.broker import broker
from wallsite.embedded_redis import free_port

pytestmark = pytest.mark.django_db

Kind = Notification.Kind
Status = Notification.Status
TOKYO = ZoneInfo("Asia/Tokyo")


def open_turn(match, position: int) -> Turn:
    return Turn.objects.select_related("seat__user", "match").get(
        match=match, seat__position=position, closed_at__isnull=True
    )


def your_turn_row(turn: Turn) -> Notification:
    """The row the services wrote when the turn opened (or write it, if they do not yet)."""
    notify_turn_started(turn=turn, now=turn.started_at)
    return Notification.objects.get(user=turn.seat.user, key=f"turn:{turn.pk}:start")


def send(notification: Notification, **kwargs) -> str:
    return notification_send(notification_id=notification.pk, **kwargs)


def mails_to(user) -> list:
    return [message for message in mail.outbox if message.to == [user.email]]


# --- one message per event --------------------------------------------------------------------------


def test_announcing_a_turn_twice_makes_one_notification(started_match, alice):
    turn = open_turn(started_match(), 0)
    notify_turn_started(turn=turn, now=turn.started_at)
    again = notify_turn_started(turn=turn, now=turn.started_at)
    assert again is None
    rows = Notification.objects.filter(user=alice, key=f"turn:{turn.pk}:start")
    assert rows.count() == 1
    assert rows.get().kind == Kind.YOUR_TURN and rows.get().status == Status.PENDING


def test_sending_twice_in_a_row_sends_one_email(started_match, alice):
    note = your_turn_row(open_turn(started_match(), 0))
    assert send(note) == "sent"
    assert send(note) == "already sent"
    assert len(mails_to(alice)) == 1
    note.refresh_from_db()
    assert note.status == Status.SENT and note.sent_at is not None


@pytest.mark.django_db(transaction=True)
def test_two_sends_at_the_same_time_send_one_email(started_match, alice):
    turn = open_turn(started_match(move_time_limit=timedelta(days=2)), 0)
    # Outside a test transaction the turn's own e-mail went out on commit; race over a fresh row.
    note = reminder_create(turn=turn, lead=24, now=turn.started_at)
    mail.outbox.clear()
    results: list[str] = []
    start = threading.Barrier(2)

    def worker() -> None:
        try:
            start.wait()
            results.append(send(note))
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["already sent", "sent"]
    assert len(mails_to(alice)) == 1


# --- not needed any more ----------------------------------------------------------------------------


def test_no_email_once_the_player_has_moved(started_match, alice):
    match = started_match()
    note = your_turn_row(open_turn(match, 0))
    play_random(match, moves=1)
    assert send(note) == "skipped: you already moved"
    assert not mails_to(alice)
    note.refresh_from_db()
    assert note.status == Status.SKIPPED and note.skip_reason == "you already moved"


def test_no_email_while_the_player_has_the_match_open(started_match, alice):
    turn = open_turn(started_match(), 0)
    note = your_turn_row(turn)
    now = datetime.now(UTC)
    Seat.objects.filter(pk=turn.seat_id).update(last_seen_at=now - timedelta(minutes=1))
    assert send(note, now=now) == "skipped: you had the match open"
    assert not mail.outbox


def test_a_visit_longer_ago_than_the_presence_window_does_not_hold_the_email(started_match, alice):
    turn = open_turn(started_match(), 0)
    note = your_turn_row(turn)
    now = datetime.now(UTC)
    window = getattr(settings, "PRESENCE_WINDOW", timedelta(minutes=3))
    Seat.objects.filter(pk=turn.seat_id).update(last_seen_at=now - window - timedelta(seconds=1))
    assert send(note, now=now) == "sent"


def test_no_email_when_the_player_turned_emails_off_after_it_was_written(started_match, alice):
    note = your_turn_row(open_turn(started_match(), 0))
    alice.notify = "off"
    alice.save()
    assert send(note) == "skipped: e-mails are turned off"
    assert not mail.outbox


def test_no_turn_email_or_reminder_is_written_for_a_player_with_emails_off(started_match, bob):
    bob.notify = "off"
    bob.save()
    match = started_match(move_time_limit=timedelta(days=2))
    play_random(match, moves=1)
    turn = open_turn(match, 1)
    assert notify_turn_started(turn=turn, now=turn.started_at) is None
    assert reminder_create(turn=turn, lead=24, now=turn.started_at) is None
    assert not Notification.objects.filter(user=bob).exists()


def test_no_email_on_vacation(started_match, alice):
    turn = open_turn(started_match(move_time_limit=timedelta(days=2)), 0)
    note = your_turn_row(turn)
    alice.on_vacation = True
    alice.save()
    assert send(note) == "skipped: you are on vacation"
    turn = open_turn(turn.match, 0)
    assert notify_turn_started(turn=turn, now=turn.started_at) is None
    assert reminder_create(turn=turn, lead=2, now=turn.started_at) is None
    assert not mail.outbox


def test_nothing_is_written_for_a_seat_the_computer_plays(started_match):
    turn = open_turn(started_match(), 0)
    Seat.objects.filter(pk=turn.seat_id).update(autopilot=True)
    turn.seat.refresh_from_db()
    Notification.objects.all().delete()
    assert notify_turn_started(turn=turn, now=turn.started_at) is None
    assert reminder_create(turn=turn, lead=24, now=turn.started_at) is None


# --- digests ----------------------------------------------------------------------------------------


@pytest.fixture
def digest_alice(alice):
    alice.notify = "digest"
    alice.time_zone = "Asia/Tokyo"
    alice.digest_hour = 9
    alice.save()
    return alice


def test_a_digest_reader_gets_no_email_per_turn(started_match, digest_alice):
    turn = open_turn(started_match(), 0)
    assert notify_turn_started(turn=turn, now=turn.started_at) is None
    assert not Notification.objects.filter(user=digest_alice, kind=Kind.YOUR_TURN).exists()


def test_one_digest_a_day_at_the_chosen_local_hour(started_match, digest_alice):
    started_match(move_time_limit=timedelta(days=3), name="Morning game")
    nine_in_tokyo = datetime(2025, 3, 4, 0, 0, tzinfo=UTC)

    assert digests_create(now=nine_in_tokyo - timedelta(minutes=1)) == []  # 08:59 in Tokyo
    first = digests_create(now=nine_in_tokyo)
    assert len(first) == 1
    assert digests_create(now=nine_in_tokyo + timedelta(minutes=30)) == []
    assert digests_create(now=nine_in_tokyo + timedelta(hours=9)) == []  # 09:00 UTC is 18:00 there
    next_day = digests_create(now=nine_in_tokyo + timedelta(days=1))
    assert len(next_day) == 1

    digest = Notification.objects.get(pk=first[0])
    assert digest.kind == Kind.DIGEST and digest.user == digest_alice
    assert digest.key == "digest:2025-03-04"
    assert Notification.objects.get(pk=next_day[0]).key == "digest:2025-03-05"


def test_the_digest_lists_each_awaiting_match_with_its_deadline_in_local_time(started_match, digest_alice):
    match = started_match(move_time_limit=timedelta(days=3), name="Morning game")
    turn = open_turn(match, 0)
    now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    digest_alice.digest_hour = now.astimezone(TOKYO).hour
    digest_alice.save()
    [digest_id] = digests_create(now=now)
    assert notification_send(notification_id=digest_id, now=now) == "sent"
    [message] = mails_to(digest_alice)
    assert "Morning game" in message.body
    assert when_text(turn.deadline, TOKYO) in message.body and "JST" in message.body
    assert settings.SITE_URL + match.get_absolute_url() in message.body


def test_no_digest_for_someone_with_nothing_to_play_or_the_wrong_mode(started_match, digest_alice, bob):
    bob.notify = "digest"
    bob.digest_hour = 0
    bob.save()
    started_match()  # alice is to move, bob is not
    midnight_utc = datetime(2025, 3, 4, 0, 0, tzinfo=UTC)
    made = Notification.objects.filter(pk__in=digests_create(now=midnight_utc))
    assert [note.user for note in made] == [digest_alice]


def test_digests_cost_one_query_when_none_is_due(
    started_match, digest_alice, make_user, django_assert_num_queries
):
    for _ in range(5):
        make_user(notify="digest", digest_hour=3)
    started_match()
    with django_assert_num_queries(1):
        assert digests_create(now=datetime(2025, 3, 4, 5, 0, tzinfo=UTC)) == []


def test_a_digest_is_skipped_when_nothing_awaits_any_more(started_match, digest_alice):
    match = started_match()
    nine_in_tokyo = datetime(2025, 3, 4, 0, 0, tzinfo=UTC)
    [digest_id] = digests_create(now=nine_in_tokyo)
    play_random(match, moves=1)
    assert notification_send(notification_id=digest_id) == "skipped: nothing awaits you any more"


# --- reminders and match events ----------------------------------------------------------------------


def test_reminders_have_one_key_per_lead_time(started_match, alice):
    turn = open_turn(started_match(move_time_limit=timedelta(days=2)), 0)
    now = turn.started_at
    first = reminder_create(turn=turn, lead=24, now=now)
    assert first is not None and first.key == f"turn:{turn.pk}:remind:24" and first.kind == Kind.REMINDER
    assert reminder_create(turn=turn, lead=24, now=now) is None
    second = reminder_create(turn=turn, lead=2, now=now)
    assert second is not None and second.key == f"turn:{turn.pk}:remind:2"
    assert Notification.objects.filter(user=alice, kind=Kind.REMINDER).count() == 2


def test_digest_readers_get_reminders_too(started_match, digest_alice):
    turn = open_turn(started_match(move_time_limit=timedelta(days=2)), 0)
    note = reminder_create(turn=turn, lead=2, now=turn.deadline - timedelta(hours=2))
    assert note is not None
    assert send(note, now=turn.deadline - timedelta(hours=2)) == "sent"
    [message] = mails_to(digest_alice)
    assert message.subject.startswith("Reminder: your move in")
    assert "in 2 hours" in message.subject


def test_a_match_event_reaches_every_seated_person_except_those_who_opted_out(alice, bob, carol, make_user):

    bob.notify = "digest"
    bob.save()
    carol.notify = "off"
    carol.save()
    dave = make_user("dave")
    match = services.match_create(creator=alice, game="wallgo", seat_count=4, name="Four walls")
    for user in (bob, carol, dave):
        services.seat_join(match_id=match.pk, user=user)
    dave.on_vacation = True  # vacation quiets turn e-mails, not news of the match
    dave.save()
    now = datetime.now(UTC)
    text = "carol ran out of time; the turn is skipped."
    made = notify_match_event(match=match, key="timeout:77", text=text, now=now)
    assert sorted(note.user.username for note in made) == ["alice", "bob", "dave"]
    assert {note.key for note in made} == {f"match:{match.pk}:timeout:77"}
    assert notify_match_event(match=match, key="timeout:77", text=text, now=now) == []
    for note in made:
        assert send(note) == "sent"
    assert sorted(message.to[0] for message in mail.outbox) == [
        "alice@example.com",
        "bob@example.com",
        "dave@example.com",
    ]
    assert all(text in message.body and "Four walls" in message.subject for message in mail.outbox)


# --- what every e-mail carries ----------------------------------------------------------------------


def _one_of_each_kind(match, alice) -> list[Notification]:
    turn = open_turn(match, 0)
    now = datetime.now(UTC)
    notes = [your_turn_row(turn), reminder_create(turn=turn, lead=24, now=now)]
    notes += notify_match_event(match=match, key="news", text="Something happened.", now=now)
    notes.append(
        Notification.objects.create(user=alice, kind=Kind.DIGEST, key="digest:2025-03-04", due_at=now)
    )
    return [note for note in notes if note.user_id == alice.pk]


def test_every_email_links_to_the_match_and_to_a_one_click_unsubscribe(started_match, alice):
    alice.time_zone = "Asia/Tokyo"
    alice.save()
    match = started_match(move_time_limit=timedelta(days=2), name="Linked match")
    turn = open_turn(match, 0)
    notes = _one_of_each_kind(match, alice)
    assert {note.kind for note in notes} == set(Kind.values)
    for note in notes:
        assert send(note) == "sent", note.kind
    match_url = settings.SITE_URL + match.get_absolute_url()
    deadline = when_text(turn.deadline, TOKYO)
    assert len(mail.outbox) == 4
    for message in mail.outbox:
        unsubscribe = message.extra_headers["List-Unsubscribe"]
        assert unsubscribe.startswith(f"<{settings.SITE_URL}/accounts/unsubscribe/")
        assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert unsubscribe.strip("<>") in message.body
        assert match_url in message.body
        assert deadline in message.body, message.subject  # in alice's zone, not the server's
        [(html, mimetype)] = message.alternatives
        assert mimetype == "text/html" and match_url in html and unsubscribe.strip("<>") in html
    subjects = [message.subject for message in mail.outbox]
    assert "Your move in Linked match" in subjects
    assert "Linked match: Something happened." in subjects


def test_the_turn_email_shows_the_last_move_and_its_deadline(started_match, bob):
    match = started_match(move_time_limit=timedelta(days=2))
    play_random(match, moves=1)
    turn = open_turn(match, 1)
    note = your_turn_row(turn)
    notation = Move.objects.filter(match=match).latest("seq").notation
    assert send(note, now=turn.started_at) == "sent"
    [message] = mails_to(bob)
    assert f"alice played {notation}." in message.body
    assert "due " + when_text(turn.deadline, ZoneInfo("UTC")) in message.body
    assert "(in 2 days)" in message.body


def test_an_event_hidden_from_the_recipient_never_reaches_the_email(started_match, bob):
    match = started_match()
    play_random(match, moves=1)
    last = Move.objects.filter(match=match).latest("seq")
    last.events = [
        *last.events,
        {"kind": "secret", "text": "ALICE-ONLY-SECRET", "data": {}, "visible_to": [0]},
        {"kind": "note", "text": "A public remark.", "data": {}, "visible_to": None},
    ]
    last.save()
    note = your_turn_row(open_turn(match, 1))
    assert send(note) == "sent"
    [message] = mails_to(bob)
    assert "A public remark." in message.body
    assert "ALICE-ONLY-SECRET" not in message.body
    assert "ALICE-ONLY-SECRET" not in message.alternatives[0][0]


def test_a_failing_mail_server_keeps_the_message_for_later_then_gives_up(started_match, alice, settings):
    # The real SMTP backend, aimed at a port where no mail server listens.
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", free_port(), 2
    note = your_turn_row(open_turn(started_match(), 0))
    now = datetime.now(UTC)
    assert send(note, now=now).startswith("pending:")
    note.refresh_from_db()
    assert note.status == Status.PENDING and note.attempts == 1 and note.due_at > now
    for _ in range(notifications.MAX_ATTEMPTS - 1):
        send(note, now=now)
    note.refresh_from_db()
    assert note.status == Status.FAILED and note.attempts == notifications.MAX_ATTEMPTS
    assert send(note) == "already failed"


# --- queueing after commit ---------------------------------------------------------------------------


def test_sending_is_queued_only_after_the_commit(started_match, django_capture_on_commit_callbacks):
    note = your_turn_row(open_turn(started_match(), 0))
    with django_capture_on_commit_callbacks() as callbacks:
        queue_send([note.pk])
        note.refresh_from_db()
        assert note.status == Status.PENDING and not mail.outbox
    assert len(callbacks) == 1
    callbacks[0]()  # the commit: the (eager) task sends it
    note.refresh_from_db()
    assert note.status == Status.SENT and len(mail.outbox) == 1


def test_an_unreachable_queue_leaves_the_rows_pending_for_the_sweep(
    started_match, django_capture_on_commit_callbacks, caplog
):
    note = your_turn_row(open_turn(started_match(), 0))
    with (
        broker(f"redis://127.0.0.1:{free_port()}/0"),  # nothing listens there
        caplog.at_level(logging.WARNING, logger="games.dispatch"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        queue_send([note.pk])
    note.refresh_from_db()
    assert note.status == Status.PENDING
    assert not mail.outbox
    assert "the sweep will queue it again" in caplog.text


# --- coalescing (NOTIFY_COALESCE) --------------------------------------------------------------------


@pytest.fixture
def coalescing(settings):
    """One flush task for the e-mails of many commits, as in production."""
    settings.NOTIFY_COALESCE = True
    cache.delete(dispatch.FLUSH_QUEUED)


def test_a_flush_sends_every_pending_row_then_due_once_and_leaves_the_rest(started_match, alice):
    due = [your_turn_row(open_turn(started_match(), 0)) for _ in range(2)]
    later = Notification.objects.create(
        user=alice,
        kind="your_turn",
        key="later",
        match=due[0].match,
        due_at=datetime.now(UTC) + timedelta(hours=1),
    )
    assert tasks.notifications_flush() == {"sent": 2}
    assert tasks.notifications_flush() == {}  # delivered twice: nothing more goes out
    assert len(mail.outbox) == 2
    assert {note.status for note in Notification.objects.filter(pk__in=[n.pk for n in due])} == {Status.SENT}
    later.refresh_from_db()
    assert later.status == Status.PENDING


def test_commits_queue_one_flush_until_it_starts_then_the_next_commit_queues_another(
    coalescing, redis_url, started_match, django_capture_on_commit_callbacks
):
    import redis

    queue = redis.Redis.from_url(redis_url)
    queue.flushdb()
    notes = [your_turn_row(open_turn(started_match(), 0)) for _ in range(2)]
    with broker(redis_url):
        for note in notes:
            with django_capture_on_commit_callbacks(execute=True):
                queue_send([note.pk])
        assert queue.llen("celery") == 1 and cache.get(dispatch.FLUSH_QUEUED)
        assert tasks.notifications_flush() == {"sent": 2}  # as the worker would run it
        assert cache.get(dispatch.FLUSH_QUEUED) is None
        later = your_turn_row(open_turn(started_match(), 0))
        with django_capture_on_commit_callbacks(execute=True):
            queue_send([later.pk])
        assert queue.llen("celery") == 2 and cache.get(dispatch.FLUSH_QUEUED)
    queue.flushdb()


def test_a_lost_flush_holds_the_flag_only_until_it_expires(
    coalescing, redis_url, started_match, django_capture_on_commit_callbacks
):
    import redis

    queue = redis.Redis.from_url(redis_url)
    queue.flushdb()
    note = your_turn_row(open_turn(started_match(), 0))
    with broker(redis_url), time_machine.travel(datetime.now(UTC), tick=False) as clock:
        with django_capture_on_commit_callbacks(execute=True):
            queue_send([note.pk])
        queue.flushdb()  # the flush is lost (a Redis restarted empty)
        with django_capture_on_commit_callbacks(execute=True):
            queue_send([note.pk])
        assert queue.llen("celery") == 0  # the flag still stands
        clock.shift(timedelta(seconds=dispatch.FLUSH_FLAG_SECONDS + 1))
        with django_capture_on_commit_callbacks(execute=True):
            queue_send([note.pk])
        assert queue.llen("celery") == 1
    queue.flushdb()


def test_a_commit_that_could_not_queue_its_flush_takes_its_flag_down(
    coalescing, started_match, django_capture_on_commit_callbacks, caplog
):
    with (
        broker(f"redis://127.0.0.1:{free_port()}/0"),
        caplog.at_level(logging.WARNING),
        django_capture_on_commit_callbacks(execute=True),
    ):
        queue_send([your_turn_row(open_turn(started_match(), 0)).pk])
    assert "Could not queue 1 notification(s)" in caplog.text
    assert cache.get(dispatch.FLUSH_QUEUED) is None  # the next commit tries again


def test_with_coalescing_an_unreachable_queue_leaves_the_rows_pending_for_the_sweep(
    coalescing, started_match, django_capture_on_commit_callbacks, caplog
):
    note = your_turn_row(open_turn(started_match(), 0))
    with (
        broker(f"redis://127.0.0.1:{free_port()}/0"),
        caplog.at_level(logging.WARNING, logger="games.dispatch"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        queue_send([note.pk])
    note.refresh_from_db()
    assert note.status == Status.PENDING and not mail.outbox
    assert "the sweep will queue it again" in caplog.text
