"""The e-mails that may be answered with a move carry a reply address; the others do not."""

from __future__ import annotations

import pytest
from django.core import mail

from games.engines.wallgo.rules import WallGo
from games.models import Notification, Turn
from games.notifications import notification_send, notify_match_event, notify_turn_started, reminder_create
from games.replies import reply_parse

pytestmark = pytest.mark.django_db


def open_turn(match, position: int) -> Turn:
    return Turn.objects.select_related("seat__user", "match").get(
        match=match, seat__position=position, closed_at__isnull=True
    )


def your_turn_row(turn: Turn) -> Notification:
    notify_turn_started(turn=turn, now=turn.started_at)
    return Notification.objects.get(user=turn.seat.user, key=f"turn:{turn.pk}:start")


def test_the_turn_email_replies_to_this_players_address_for_this_position(started_match, alice):
    match = started_match()
    note = your_turn_row(open_turn(match, 0))
    assert notification_send(notification_id=note.pk) == "sent"
    [email] = mail.outbox
    [reply_to] = email.reply_to
    assert reply_parse(reply_to) == (match.pk, alice.pk, match.version)
    assert "Or reply to this e-mail with your move on the first line, for example d4" in email.body
    assert "b2-c3/c3n" in email.body
    assert "reply to this e-mail with your move on the first line" in email.alternatives[0][0]


def test_a_reminder_carries_a_reply_address_too(started_match, alice):
    match = started_match()
    turn = open_turn(match, 0)
    note = reminder_create(turn=turn, lead=24, now=turn.started_at)
    assert notification_send(notification_id=note.pk) == "sent"
    [email] = mail.outbox
    assert reply_parse(email.reply_to[0]) == (match.pk, alice.pk, match.version)
    assert "reply to this e-mail with your move" in email.body


def test_a_match_event_cannot_be_answered_with_a_move(started_match, alice):
    match = started_match()
    [note, *_] = notify_match_event(match=match, key="news", text="Something happened.", now=match.started_at)
    assert notification_send(notification_id=note.pk) == "sent"
    email = mail.outbox[0]
    assert email.reply_to == []
    assert "reply to this e-mail" not in email.body


def test_a_game_without_a_hint_gets_the_generic_line(started_match, monkeypatch):
    monkeypatch.setattr(WallGo, "notation_example", "")
    note = your_turn_row(open_turn(started_match(), 0))
    assert notification_send(notification_id=note.pk) == "sent"
    assert "your move on the first line, in the game's notation." in mail.outbox[0].body


def test_with_no_gateway_domain_the_emails_carry_no_reply_address(started_match, settings):
    settings.MAIL_GATEWAY_DOMAIN = ""
    note = your_turn_row(open_turn(started_match(), 0))
    assert notification_send(notification_id=note.pk) == "sent"
    [email] = mail.outbox
    assert email.reply_to == []
    assert "reply to this e-mail" not in email.body
