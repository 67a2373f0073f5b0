"""Computer opponents' moves have a queue of their own ("bots"), so a crowd of them never holds up the
default queue's "your turn" e-mails: real worker processes, one per queue as `make run` starts them."""

from __future__ import annotations

import time

import redis as redis_client

from games import services
from games.models import Match, Notification

BOT_MATCHES = 12
BOT_PAUSE = 2.5  # seconds each computer's move takes in the bots' worker (WALLSITE_TEST_BOT_PAUSE)
DEADLINE = 5.0


def wait_until(condition, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_your_turn_email_goes_out_at_once_while_the_bots_queue_is_full(workers, alice, bob, carol):
    broker = redis_client.Redis.from_url(workers.broker)
    # A dozen matches against a slow computer, each dealt, so each owes a computer's move: a full queue.
    for _ in range(BOT_MATCHES):
        match = services.match_create(creator=alice, game="testdice", seat_count=2, bots=["random"])
        services.chance_resolve(match_id=match.pk, version=0)
    assert broker.llen("bots") == BOT_MATCHES
    people = services.match_create(creator=bob, game="wallgo", seat_count=2)
    services.seat_join(match_id=people.pk, user=carol)

    workers.start(queues="bots", WALLSITE_TEST_BOT_PAUSE=str(BOT_PAUSE))
    workers.start(queues="celery")
    # The default queue drains (the deals' no-op tasks, alice's and bob's e-mails); the bots' does not.
    wait_until(
        lambda: broker.llen("celery") == 0 and not Notification.objects.filter(status="pending").exists(),
        "the default queue to drain",
    )

    started = time.monotonic()
    services.move_play(match_id=people.pk, user=bob, expected_version=0, text="d4")
    note = Notification.objects.get(user=carol, kind="your_turn")
    wait_until(lambda: Notification.objects.get(pk=note.pk).status == "sent", "carol's e-mail", DEADLINE)
    elapsed = time.monotonic() - started
    waiting = broker.llen("bots")

    assert elapsed < DEADLINE
    assert any("To: carol@example.com" in mail for mail in workers.sent_mail())
    # Had the computers' moves shared the default queue, carol's e-mail would have been queued behind
    # the ones still waiting now: those alone take waiting * BOT_PAUSE seconds, or half that with the two
    # worker processes `make run` started before the split. Over the deadline either way.
    assert waiting * BOT_PAUSE / 2 > DEADLINE, waiting
    # And the bots' worker does play them, one after the other.
    wait_until(lambda: Match.objects.filter(created_by=alice, version=2).exists(), "a computer's move", 10)
