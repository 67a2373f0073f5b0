"""The mail gateway served for real on a loopback port, and replies sent to it over SMTP."""

from __future__ import annotations

import smtplib
from collections.abc import Iterator
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from django.core import mail

from games import mailin
from wallsite.embedded_redis import free_port


@pytest.fixture
def gateway(transactional_db) -> Iterator[int]:
    """The port of a running gateway. The test database is transactional: the gateway's worker thread
    reads and writes it through a connection of its own."""
    port = free_port()
    controller = mailin.gateway_controller(host="127.0.0.1", port=port)
    controller.start()
    try:
        yield port
    finally:
        controller.stop()


def reply(
    *,
    to: str,
    sender: str,
    body: str = "d4\n",
    subject: str = "Re: Your move in Wall Go",
    headers: dict[str, str] | None = None,
    on_top: list[tuple[str, str]] | None = None,
) -> EmailMessage:
    """A reply as the gateway receives it; ``on_top`` are the headers, in order, that relays put above
    the sender's own (Authentication-Results, Received)."""
    message = EmailMessage()
    for name, value in on_top or []:
        message[name] = value
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Message-ID"] = make_msgid(domain="example.com")
    for name, value in (headers or {}).items():
        message[name] = value
    message.set_content(body)
    return message


def send(
    port: int, message: EmailMessage, *, envelope_from: str | None = None, to: list[str] | None = None
) -> dict:
    """Deliver over SMTP as a mail server would (the envelope sender is the From: address unless given);
    returns the refused recipients, as smtplib reports them."""
    if envelope_from is None:
        envelope_from = message["From"].addresses[0].addr_spec
    with smtplib.SMTP("127.0.0.1", port, timeout=20) as smtp:
        return smtp.send_message(message, from_addr=envelope_from, to_addrs=to or [message["To"]])


def answers_to(user) -> list:
    """The gateway's answers in the outbox (turn e-mails to the same person are left out)."""
    return [m for m in mail.outbox if m.to == [user.email] and m.subject.startswith("Re:")]
