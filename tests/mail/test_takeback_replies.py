"""Takeback requests answered by e-mail: the request's e-mail may be answered ACCEPT or REFUSE, over
real SMTP to the gateway, through the same service as the match page's buttons."""

from __future__ import annotations

import pytest
from django.core import mail

from games import services
from games.models import Match, Move, Notification, Takeback
from games.notifications import notification_send
from tests.mail.conftest import answers_to, reply, send

pytestmark = pytest.mark.django_db(transaction=True)


def alice_asks(started_match, alice) -> tuple[Match, Takeback]:
    """An unrated Wall Go match where alice has just made her second move and asks to take it back."""
    match = started_match(rated=False)
    while True:
        match.refresh_from_db()
        engine = match.engine
        (actor,) = engine.actors(match.engine_state)
        seat = match.seats.select_related("user").get(position=actor)
        move = engine.legal_moves(match.engine_state, actor)[0]
        services.move_play(match_id=match.pk, user=seat.user, expected_version=match.version, move=move)
        match.refresh_from_db()
        if actor == 0 and match.log_length > 1 and 1 in engine.actors(match.engine_state):
            break
    return match, services.takeback_ask(match_id=match.pk, user=alice)


def the_request_email(bob, takeback: Takeback):
    note = Notification.objects.get(user=bob, key__endswith=f"takeback:{takeback.pk}")
    if note.status == Notification.Status.PENDING:
        notification_send(notification_id=note.pk)
    [email] = [m for m in mail.outbox if m.to == [bob.email] and "take back" in m.body]
    return email


def test_a_reply_saying_accept_takes_the_move_back(gateway, started_match, alice, bob):
    match, takeback = alice_asks(started_match, alice)
    email = the_request_email(bob, takeback)
    assert "reply ACCEPT or REFUSE" in email.body
    [reply_to] = email.reply_to
    mail.outbox.clear()
    send(gateway, reply(to=reply_to, sender="bob@example.com", body="Accept\n\n> alice asks ...\n"))
    assert Takeback.objects.get(pk=takeback.pk).status == Takeback.Status.ACCEPTED
    assert Move.objects.filter(match=match).order_by("seq").last().events[0]["kind"] == "takeback"
    [answer] = answers_to(bob)
    assert f"You accepted: alice's move {takeback.move.notation} in Wall Go was taken back." in answer.body


def test_a_reply_saying_refuse_refuses_it(gateway, started_match, alice, bob):
    match, takeback = alice_asks(started_match, alice)
    [reply_to] = the_request_email(bob, takeback).reply_to
    version = Match.objects.get(pk=match.pk).version
    mail.outbox.clear()
    send(gateway, reply(to=reply_to, sender="bob@example.com", body="REFUSE\n"))
    assert Takeback.objects.get(pk=takeback.pk).status == Takeback.Status.REFUSED
    assert Match.objects.get(pk=match.pk).version == version
    [answer] = answers_to(bob)
    assert "You refused" in answer.body and "stands" in answer.body


def test_an_answer_after_the_game_moved_on_is_not_recorded(gateway, started_match, alice, bob):
    match, takeback = alice_asks(started_match, alice)
    [reply_to] = the_request_email(bob, takeback).reply_to
    services.takeback_withdraw(match_id=match.pk, user=alice)
    mail.outbox.clear()
    send(gateway, reply(to=reply_to, sender="bob@example.com", body="accept\n"))
    assert Takeback.objects.get(pk=takeback.pk).status == Takeback.Status.WITHDRAWN
    [answer] = answers_to(bob)
    assert "Your answer in Wall Go was not recorded: that request was withdrawn." in answer.body
