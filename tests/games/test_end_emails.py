"""The e-mails around a match's start and end: the result goes once to every player who is away, however
the match ended; nobody is called back by e-mail to a page they are on."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings
from django.core import mail
from django.utils import timezone

from games import notifications, services
from games.engines import registry
from games.models import Match, Notification, Seat, Turn
from moderation import services as moderation
from tests.conftest import no_vacation

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def score_games() -> Iterator[None]:
    registry.register("testscores", "tests.ratings.scoregame.ScoreGame")
    registry.register("testsealed", "tests.support.sealedscores.SealedScoreGame")
    yield
    registry.unregister("testscores")
    registry.unregister("testsealed")


@pytest.fixture
def on_commit(django_capture_on_commit_callbacks):
    """Run what the services queue after their commit (the e-mails) as the site would."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def scores_match(*users, game: str = "testscores", **kwargs) -> Match:
    match = services.match_create(creator=users[0], game=game, seat_count=len(users), name="Scores", **kwargs)
    for user in users[1:]:
        services.seat_join(match_id=match.pk, user=user)
    match.refresh_from_db()
    return match


def score(match: Match, user, points: int) -> None:
    match.refresh_from_db()
    services.move_play(match_id=match.pk, user=user, expected_version=match.version, text=f"score {points}")


def on_the_page(match: Match, user) -> None:
    Seat.objects.filter(match=match, user=user).update(last_seen_at=timezone.now())


def results_to(user) -> list:
    return [m for m in mail.outbox if m.to == [user.email] and "is over" in m.body]


def mails_to(user) -> list:
    return [m for m in mail.outbox if m.to == [user.email]]


# --- the result, once, to every player who is away ----------------------------------------------------


def test_a_match_ended_by_play_mails_each_player_the_result_once(alice, bob, on_commit):
    match = scores_match(alice, bob)
    with on_commit():
        score(match, alice, 7)
        score(match, bob, 3)
    [to_alice], [to_bob] = results_to(alice), results_to(bob)
    assert to_alice.subject == to_bob.subject == "Scores: alice wins with 7 points."
    assert "You finished 1st of 2." in to_alice.body and "You finished 2nd of 2." in to_bob.body
    url = settings.SITE_URL + match.get_absolute_url()
    for message in (to_alice, to_bob):
        assert url in message.body and "1st  alice" in message.body and "2nd  bob" in message.body
        html = message.alternatives[0][0]
        assert url in html and "alice wins with 7 points." in html
    assert Notification.objects.filter(key=f"match:{match.pk}:end").count() == 2


def test_a_resignation_mails_the_others_and_not_the_player_on_the_page(alice, bob, carol, on_commit):
    match = scores_match(alice, bob, carol)
    with on_commit():
        score(match, alice, 5)
    mail.outbox.clear()
    on_the_page(match, bob)
    with on_commit():
        services.match_resign(match_id=match.pk, user=bob)
        services.match_resign(match_id=match.pk, user=carol)  # alice alone is left: the match ends
    assert not results_to(bob)
    [to_alice], [to_carol] = results_to(alice), results_to(carol)
    assert to_alice.subject == "Scores: alice wins: every other player is out."
    assert "carol resigns." in to_alice.body and "resigned" in to_carol.body
    assert Notification.objects.filter(key=f"match:{match.pk}:end").count() == 2


def test_a_timeout_that_ends_the_match_sends_one_email_with_the_result(alice, bob, on_commit):
    match = scores_match(alice, bob, move_time_limit=timedelta(hours=2), timeout_policy="forfeit")
    no_vacation(alice, bob)
    mail.outbox.clear()
    turn = Turn.objects.get(match=match, closed_at__isnull=True)
    with on_commit():
        assert services.turn_expire(turn_id=turn.pk, now=turn.deadline + timedelta(minutes=1)) == "forfeit"
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    for user in (alice, bob):
        [message] = mails_to(user)  # the result only, no separate word about the timeout
        assert message.subject == "Scores: bob wins: every other player is out."
        assert "alice runs out of time and is out." in message.body


def test_a_moderators_result_is_mailed_once_in_place_of_the_news_of_the_action(
    alice, bob, moderator, on_commit
):
    match = scores_match(alice, bob)
    mail.outbox.clear()
    with on_commit():
        moderation.match_adjudicate(moderator=moderator, match_id=match.pk, ranks=[2, 1], reason="Stalling")
    for user in (alice, bob):
        [message] = mails_to(user)
        assert message.subject == "Scores: Adjudicated: bob wins."
        assert "A moderator adjudicated the match: Stalling" in message.body
    # Cancelling the finished match later is news of its own; the end is not announced twice.
    with on_commit():
        moderation.match_end(moderator=moderator, match_id=match.pk, status="cancelled", reason="Spam")
    assert len(results_to(alice)) == 1 and len(mails_to(alice)) == 2
    assert "A moderator cancelled the match: Spam" in mails_to(alice)[-1].body


def test_a_match_a_moderator_abandons_in_play_tells_the_players_it_ended(alice, bob, moderator, on_commit):
    match = scores_match(alice, bob)
    mail.outbox.clear()
    with on_commit():
        moderation.match_end(moderator=moderator, match_id=match.pk, status="abandoned", reason="Bug")
    for user in (alice, bob):
        [message] = mails_to(user)
        assert message.subject == "Scores: Abandoned by a moderator."
        assert "A moderator abandoned the match: Bug" in message.body


def test_announcing_the_same_end_twice_sends_one_email_each(alice, bob, on_commit):
    match = scores_match(alice, bob)
    with on_commit():
        score(match, alice, 7)
        score(match, bob, 3)
    mail.outbox.clear()
    seats = list(match.seats.select_related("user"))
    with on_commit():
        again = notifications.notify_match_ended(match=match, seats=seats, how="", now=timezone.now())
        notifications.queue_send(again)
    assert again == [] and not mail.outbox
    assert Notification.objects.filter(key=f"match:{match.pk}:end").count() == 2


def test_a_player_who_opens_the_match_before_the_result_goes_out_is_not_sent_it(alice, bob):
    match = scores_match(alice, bob)
    score(match, alice, 7)
    score(match, bob, 3)  # no commit hook ran: the rows wait, as in a queue outage
    on_the_page(match, alice)
    rows = {row.user_id: row for row in Notification.objects.filter(key=f"match:{match.pk}:end")}
    sent = notifications.notification_send(notification_id=rows[alice.pk].pk)
    assert sent == "skipped: you had the match open"
    assert notifications.notification_send(notification_id=rows[bob.pk].pk) == "sent"
    assert not results_to(alice) and len(results_to(bob)) == 1


def test_digest_readers_and_players_on_vacation_get_the_result_at_once_and_those_who_turned_emails_off_do_not(
    alice, bob, carol, on_commit
):
    alice.notify, bob.on_vacation, carol.notify = "digest", True, "off"
    for user in (alice, bob, carol):
        user.save()
    match = scores_match(alice, bob, carol)
    with on_commit():
        for user, points in ((alice, 1), (bob, 2), (carol, 3)):
            score(match, user, points)
    assert len(results_to(alice)) == 1 and len(results_to(bob)) == 1 and not mails_to(carol)


def test_a_player_seen_longer_ago_than_the_presence_window_counts_as_away(alice, bob, on_commit):
    match = scores_match(alice, bob)
    window = getattr(settings, "PRESENCE_WINDOW", timedelta(minutes=3))
    stale = datetime.now(UTC) - window - timedelta(seconds=5)
    Seat.objects.filter(match=match).update(last_seen_at=stale)
    with on_commit():
        score(match, alice, 7)
        score(match, bob, 3)
    assert len(results_to(alice)) == 1 and len(results_to(bob)) == 1


# --- nobody is called back to the page they are on -------------------------------------------------


def test_the_creator_against_computers_gets_no_email_for_the_first_move(alice, on_commit):
    with on_commit():
        match = services.match_create(creator=alice, game="wallgo", seat_count=2, bots=["random"])
    assert match.status == Match.Status.ACTIVE
    assert Turn.objects.filter(match=match, seat__user=alice, closed_at__isnull=True).exists()
    assert not Notification.objects.filter(user=alice).exists() and not mails_to(alice)
    # The computers answer within seconds, perhaps before the page has loaded: that counts as there.
    assert Seat.objects.get(match=match, user=alice).last_seen_at is not None


def test_the_player_whose_join_starts_the_match_gets_no_email_while_the_others_do(
    alice, bob, carol, on_commit
):
    with on_commit():
        match = scores_match(alice, bob, carol, game="testsealed")  # all three name a score at once
    assert set(match.engine.actors(match.engine_state)) == {0, 1, 2}
    assert len(mails_to(alice)) == 1 and len(mails_to(bob)) == 1
    assert mails_to(alice)[0].subject == "Your move in Scores"
    assert not mails_to(carol) and not Notification.objects.filter(user=carol).exists()


def test_a_match_the_site_starts_in_the_players_names_mails_every_first_mover(alice, bob, carol, on_commit):
    with on_commit():
        match = services.match_create(
            creator=alice, game="testsealed", seat_count=3, present=False, name="Scores"
        )
        for user in (bob, carol):
            services.seat_join(match_id=match.pk, user=user, present=False)
    assert all(len(mails_to(user)) == 1 for user in (alice, bob, carol))
