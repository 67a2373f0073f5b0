"""Replies sent over real SMTP to the gateway on a loopback port: the move is played through the same
service as the web page's, and the player is answered at the address on their account."""

from __future__ import annotations

import smtplib
import threading
from email import policy
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from django.conf import settings
from django.core import mail

from games import mailin, replies, services
from games.models import Match, Move, Notification
from games.notifications import notification_send, reminder_create
from tests.mail.conftest import answers_to, reply, send

pytestmark = pytest.mark.django_db(transaction=True)


def address_for(match: Match, user, version: int | None = None) -> str:
    match.refresh_from_db()
    return replies.reply_address(
        match=match, user=user, version=match.version if version is None else version
    )


def unchanged(match: Match, version: int) -> bool:
    match.refresh_from_db()
    return match.version == version and not Move.objects.filter(match=match, seat__isnull=False).exists()


# --- playing ------------------------------------------------------------------------------------------


def test_a_reply_with_a_legal_move_plays_it_and_says_so(gateway, started_match, alice, bob):
    match = started_match()
    mail.outbox.clear()
    to = address_for(match, alice)
    send(gateway, reply(to=to, sender="alice@example.com", body="d4\n\n> It is your move in Wall Go.\n"))

    match.refresh_from_db()
    assert match.version == 1
    move = Move.objects.get(match=match, seat__position=0)
    assert move.notation == "d4"
    [answer] = answers_to(alice)
    assert answer.subject == "Re: Your move in Wall Go"
    assert "Played d4 in Wall Go." in answer.body
    assert "It is now bob's move." in answer.body
    assert settings.SITE_URL.rstrip("/") + match.get_absolute_url() in answer.body
    assert answer.extra_headers["Auto-Submitted"] == "auto-replied"
    # Bob heard that it is his turn, through the usual notification.
    assert any(m.to == [bob.email] and m.subject == "Your move in Wall Go" for m in mail.outbox)


def test_the_answer_threads_under_the_reply(gateway, started_match, alice):
    match = started_match()
    message = reply(to=address_for(match, alice), sender="alice@example.com")
    send(gateway, message)
    [answer] = answers_to(alice)
    assert answer.extra_headers["In-Reply-To"] == message["Message-ID"]


def test_the_sender_may_differ_in_letter_case_or_only_in_the_envelope(gateway, started_match, alice):
    match = started_match()
    message = reply(to=address_for(match, alice), sender="Alice <ALICE@Example.com>")
    send(gateway, message, envelope_from="bounces+1234@mailer.example.net")
    match.refresh_from_db()
    assert match.version == 1


def test_a_turn_email_can_be_answered_through_its_reply_to(gateway, started_match, alice):
    # Outside a test transaction the turn's own e-mail went out on commit, as in production.
    match = started_match()
    [turn_email] = [m for m in mail.outbox if m.to == [alice.email]]
    assert Notification.objects.get(user=alice, kind="your_turn").status == "sent"
    [reply_to] = turn_email.reply_to
    assert reply_to.startswith("move+") and reply_to.endswith("@" + settings.MAIL_GATEWAY_DOMAIN)
    assert "reply to this e-mail with your move on the first line" in turn_email.body
    assert "for example d4" in turn_email.body
    [(html, _)] = turn_email.alternatives
    assert "reply to this e-mail with your move" in html

    send(gateway, reply(to=reply_to, sender=alice.email, subject="Re: " + turn_email.subject, body="e5"))
    match.refresh_from_db()
    assert match.version == 1
    assert Move.objects.get(match=match, seat__position=0).notation == "e5"


def test_a_reminder_can_be_answered_too(gateway, started_match, alice):
    from datetime import timedelta

    match = started_match(move_time_limit=timedelta(days=2))
    turn = match.turns.get(seat__position=0, closed_at__isnull=True)
    note = reminder_create(turn=turn, lead=24, now=turn.started_at)
    mail.outbox.clear()
    assert notification_send(notification_id=note.pk) == "sent"
    [reminder] = mail.outbox
    assert reminder.subject.startswith("Reminder:")
    assert "reply to this e-mail with your move" in reminder.body

    send(gateway, reply(to=reminder.reply_to[0], sender=alice.email, subject="Re: " + reminder.subject))
    match.refresh_from_db()
    assert match.version == 1
    [answer] = answers_to(alice)
    assert answer.subject == "Re: " + reminder.subject


def test_a_gmail_style_reply_in_quoted_printable_html_and_text_is_read_right(gateway, started_match, alice):
    match = started_match()
    message = EmailMessage()
    message["From"] = "Alice <alice@example.com>"
    message["To"] = address_for(match, alice)
    message["Subject"] = "Re: Your move in Wall Go"
    message["Message-ID"] = make_msgid()
    message.set_content(
        "c5\n\nOn Mon, 3 Mar 2025 at 10:00, Wallsite <noreply@wallsite.localhost>\nwrote:\n\n"
        "> Hello alice,\n> It is your move in Wall Go (Wall Go) — à toi de jouer.\n> d4\n\n-- \nAlice\n",
        cte="quoted-printable",
    )
    message.add_alternative(
        '<div dir="ltr">c5</div><br><div class="gmail_quote">On Mon ... wrote:<blockquote>d4</blockquote>'
        "</div>",
        subtype="html",
        cte="quoted-printable",
    )
    assert b"quoted-printable" in message.as_bytes()
    send(gateway, message)
    assert Move.objects.get(match=match, seat__position=0).notation == "c5"


def test_an_html_only_reply_is_read_right(gateway, started_match, alice):
    match = started_match()
    message = reply(to=address_for(match, alice), sender="alice@example.com")
    message.set_content(
        "<html><body><p>B2&nbsp;</p><blockquote>> d4</blockquote></body></html>", subtype="html", cte="base64"
    )
    send(gateway, message)
    # Notation is read in any letter case and answered in the canonical one.
    assert Move.objects.get(match=match, seat__position=0).notation == "b2"
    assert "Played b2 in Wall Go." in answers_to(alice)[0].body


def test_two_replies_to_one_email_at_once_play_one_move(gateway, started_match, alice):
    match = started_match()
    to = address_for(match, alice)
    mail.outbox.clear()
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def deliver(move: str) -> None:
        try:
            start.wait()
            send(gateway, reply(to=to, sender=alice.email, body=move))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=deliver, args=(move,)) for move in ("d4", "e5")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    match.refresh_from_db()
    assert match.version == 1
    assert Move.objects.filter(match=match, seat__position=0).count() == 1
    bodies = sorted(answer.body for answer in answers_to(alice))
    assert len(bodies) == 2
    assert sum("Played " in body for body in bodies) == 1
    assert sum("the game has moved on since this e-mail was sent" in body for body in bodies) == 1


# --- not played, and the player is told why -----------------------------------------------------------


def test_an_illegal_move_is_answered_with_the_reason_and_changes_nothing(gateway, started_match, alice):
    match = started_match()
    send(gateway, reply(to=address_for(match, alice), sender="alice@example.com", body="z9\n"))
    assert unchanged(match, 0)
    [answer] = answers_to(alice)
    assert "Your move in Wall Go was not played:" in answer.body
    assert "The first line of your reply was: z9" in answer.body
    assert settings.SITE_URL.rstrip("/") + match.get_absolute_url() in answer.body


def test_a_move_on_an_occupied_square_is_refused_by_the_rules(gateway, started_match, alice, bob):
    match = started_match()
    services.move_play(match_id=match.pk, user=alice, expected_version=0, text="d4")
    send(gateway, reply(to=address_for(match, bob), sender="bob@example.com", body="d4"))
    match.refresh_from_db()
    assert match.version == 1
    [answer] = answers_to(bob)
    assert "was not played:" in answer.body


def test_a_reply_to_an_old_email_finds_the_game_moved_on(gateway, started_match, alice, bob):
    match = started_match()
    old = address_for(match, alice)
    # Snake placement: alice, bob, bob, then alice again; her e-mail from version 0 is stale now.
    services.move_play(match_id=match.pk, user=alice, expected_version=0, text="d4")
    services.move_play(match_id=match.pk, user=bob, expected_version=1, text="e5")
    services.move_play(match_id=match.pk, user=bob, expected_version=2, text="e6")
    mail.outbox.clear()
    send(gateway, reply(to=old, sender="alice@example.com", body="a1"))
    match.refresh_from_db()
    assert match.version == 3
    assert not Move.objects.filter(match=match, notation="a1").exists()
    [answer] = answers_to(alice)
    assert "not played: the game has moved on since this e-mail was sent." in answer.body


def test_a_reply_out_of_turn_is_refused(gateway, started_match, bob):
    match = started_match()
    send(gateway, reply(to=address_for(match, bob), sender="bob@example.com", body="d4"))
    assert unchanged(match, 0)
    assert "was not played: it is not your turn." in answers_to(bob)[0].body


def test_a_reply_to_a_finished_match_is_refused(gateway, started_match, alice):
    match = started_match()
    to = address_for(match, alice)
    services.match_resign(match_id=match.pk, user=alice)
    mail.outbox.clear()
    send(gateway, reply(to=to, sender="alice@example.com"))
    assert not Move.objects.filter(match=match, notation="d4").exists()
    assert "was not played: this match is over." in answers_to(alice)[0].body


def test_a_reply_without_a_move_line_is_answered(gateway, started_match, alice):
    match = started_match()
    body = "On Mon, Wallsite wrote:\n> It is your move.\n\n-- \nAlice\n"
    send(gateway, reply(to=address_for(match, alice), sender="alice@example.com", body=body))
    assert unchanged(match, 0)
    assert "we found no move on the first line of your reply" in answers_to(alice)[0].body


def test_a_reply_from_another_address_plays_nothing_and_only_the_owner_is_told(gateway, started_match, alice):
    """Decision: the message is accepted (so no bounce goes to the stranger), nothing is played, and the
    explanation goes to the account's own address, where the reply address was sent."""
    match = started_match()
    mail.outbox.clear()
    send(gateway, reply(to=address_for(match, alice), sender="mallory@example.net"))
    assert unchanged(match, 0)
    assert all(m.to == [alice.email] for m in mail.outbox)
    [answer] = answers_to(alice)
    assert "sent from an address other than the one on your account" in answer.body


# --- refused or ignored, and nobody is written to ----------------------------------------------------


@pytest.mark.parametrize(
    "tamper",
    [
        lambda a: a.replace("-0-", "-1-"),
        lambda a: a.replace("move+", "move+9"),
        lambda a: a.split("@")[0] + "@example.com",
        lambda a: "move+hello@" + a.split("@")[1],
        lambda a: "postmaster@" + a.split("@")[1],
    ],
)
def test_a_forged_or_garbled_address_is_refused_at_rcpt(gateway, started_match, alice, tamper):
    match = started_match()
    mail.outbox.clear()
    to = tamper(address_for(match, alice))
    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        send(gateway, reply(to=to, sender="alice@example.com"))
    assert refused.value.recipients[to][0] == 550
    assert unchanged(match, 0)
    assert not mail.outbox


def test_an_address_for_another_player_cannot_be_made_from_ones_own(gateway, started_match, alice, bob):
    match = started_match()
    own = address_for(match, bob)
    forged = own.replace(f"-{bob.pk}-", f"-{alice.pk}-")
    with pytest.raises(smtplib.SMTPRecipientsRefused):
        send(gateway, reply(to=forged, sender="bob@example.com"))
    assert unchanged(match, 0)


def test_a_genuine_address_of_a_closed_account_is_refused_without_an_answer(gateway, started_match, alice):
    match = started_match()
    to = address_for(match, alice)
    alice.is_active = False
    alice.save()
    mail.outbox.clear()
    with pytest.raises(smtplib.SMTPDataError) as refused:
        send(gateway, reply(to=to, sender="alice@example.com"))
    assert refused.value.smtp_code == 550
    assert unchanged(match, 0)
    assert not mail.outbox


def test_one_move_per_message(gateway, started_match, alice, bob):
    match = started_match()
    first, second = address_for(match, alice), address_for(match, bob)
    with smtplib.SMTP("127.0.0.1", gateway, timeout=20) as smtp:
        smtp.ehlo()
        assert smtp.mail("alice@example.com")[0] == 250
        assert smtp.rcpt(first)[0] == 250
        assert smtp.rcpt(second)[0] == 452
        smtp.rset()


@pytest.mark.parametrize(
    ("headers", "envelope_from"),
    [
        ({"Auto-Submitted": "auto-replied"}, None),
        ({"Auto-Submitted": "auto-generated; type=vacation"}, None),
        ({"Precedence": "bulk"}, None),
        ({"Precedence": "junk"}, None),
        ({"X-Autoreply": "yes"}, None),
        ({}, ""),  # a delivery report: the envelope sender is empty
    ],
)
def test_automatic_replies_are_ignored(gateway, started_match, alice, headers, envelope_from):
    match = started_match()
    mail.outbox.clear()
    message = reply(to=address_for(match, alice), sender="alice@example.com", headers=headers)
    send(gateway, message, envelope_from=envelope_from)
    assert unchanged(match, 0)
    assert not mail.outbox


def test_a_reply_marked_auto_submitted_no_is_played(gateway, started_match, alice):
    match = started_match()
    headers = {"Auto-Submitted": "no"}
    send(gateway, reply(to=address_for(match, alice), sender="alice@example.com", headers=headers))
    match.refresh_from_db()
    assert match.version == 1


def test_our_own_mail_coming_back_is_ignored(gateway, started_match, alice):
    match = started_match()
    mail.outbox.clear()
    send(gateway, reply(to=address_for(match, alice), sender=settings.DEFAULT_FROM_EMAIL))
    assert unchanged(match, 0)
    assert not mail.outbox


def test_an_oversized_message_is_refused_with_552_before_it_is_sent(gateway, started_match, alice):
    match = started_match()
    mail.outbox.clear()
    message = reply(to=address_for(match, alice), sender="alice@example.com")
    message.add_attachment(
        b"x" * (settings.MAIL_GATEWAY_MAX_BYTES + 1),
        maintype="application",
        subtype="octet-stream",
        filename="big.bin",
    )
    # smtplib reads the limit from EHLO and announces the size: the gateway refuses at MAIL FROM.
    with pytest.raises(smtplib.SMTPSenderRefused) as refused:
        send(gateway, message)
    assert refused.value.smtp_code == 552
    assert unchanged(match, 0)
    assert not mail.outbox


def test_an_oversized_message_is_refused_with_552_after_its_data(gateway, started_match, alice):
    match = started_match()
    mail.outbox.clear()
    message = reply(
        to=address_for(match, alice), sender="alice@example.com", body="d4\n" + ("x" * 70 + "\n") * 4000
    )
    with smtplib.SMTP("127.0.0.1", gateway, timeout=20) as smtp:
        smtp.ehlo()
        smtp.mail("alice@example.com")  # no SIZE= announced
        smtp.rcpt(message["To"])
        code, _ = smtp.data(message.as_bytes(policy=policy.SMTP))
    assert code == 552
    assert unchanged(match, 0)
    assert not mail.outbox


def test_the_handler_refuses_an_oversized_message_when_called_directly(started_match, alice):
    match = started_match()
    raw = reply(to=address_for(match, alice), sender="alice@example.com", body="d4\n" + "x" * 300_000)
    outcome = mailin.mail_move_handle(
        envelope_from="alice@example.com", recipients=[raw["To"]], raw=raw.as_bytes()
    )
    assert outcome.smtp.startswith("552") and not outcome.ok
    assert unchanged(match, 0)


def raw_reply(to: str, *, subject: bytes, body: bytes, charset: str = "utf-8") -> bytes:
    return (
        b"From: alice@example.com\r\nTo: " + to.encode() + b"\r\nSubject: " + subject + b"\r\n"
        b"Message-ID: <x1@example.com>\r\nContent-Type: text/plain; charset="
        + charset.encode()
        + b"\r\n\r\n"
        + body
    )


@pytest.mark.parametrize(
    ("subject", "body", "charset", "reason"),
    [
        (
            b"Re: move",
            b"+2AA-d4\r\n",
            "utf-7",
            "the first line of your reply holds a lone surrogate (U+D800)",
        ),
        (b"Re: move", b"d4\x00\r\n", "utf-8", "the first line of your reply holds a NUL character (U+0000)."),
        (b"Re: move", b"d4\xef\xbf\xbe\r\n", "utf-8", "the first line of your reply holds U+FFFE"),
        (b"=?utf-8?q?Re=3A_a=00b?=", b"d4\r\n", "utf-8", "the subject of your reply holds a NUL character"),
    ],
)
def test_a_reply_holding_what_is_not_text_is_not_played_and_the_player_is_told_why(
    started_match, alice, subject, body, charset, reason
):
    """An odd charset (UTF-7) or an encoded word can spell a NUL or a lone surrogate. The move is not
    played, and the answer names the character without echoing it (a lone surrogate cannot even be
    encoded: the answer used to be lost)."""
    match = started_match()
    mail.outbox.clear()
    to = address_for(match, alice)
    outcome = mailin.mail_move_handle(
        envelope_from="alice@example.com",
        recipients=[to],
        raw=raw_reply(to, subject=subject, body=body, charset=charset),
    )
    assert not outcome.ok
    assert unchanged(match, 0)
    [answer] = answers_to(alice)
    assert reason in answer.body
    # A subject that is not text is not echoed either: the answer takes the turn e-mail's.
    assert answer.subject == ("Re: move" if subject == b"Re: move" else "Re: Your move in Wall Go")
    for refused in ("\x00", "\ud800", "\ufffe"):
        assert refused not in answer.body and refused not in answer.subject
