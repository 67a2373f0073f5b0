"""Who sent a reply: with MAIL_GATEWAY_TRUSTED_AUTHSERV_ID set, only the Authentication-Results header of
that relay can vouch for the sender (RFC 8601); the From: header alone, which anyone can write, cannot.

Every reply here goes to bob's genuine reply address over real SMTP, as a mail server would deliver it.
"""

from __future__ import annotations

import logging

import pytest
from django.conf import settings as django_settings
from django.core import mail

from games import mailin, replies, services
from games.models import Match, Move
from tests.mail.conftest import answers_to, reply, send

pytestmark = pytest.mark.django_db(transaction=True)

RELAY = "mx.wallsite.test"
STRANGER = "mallory@evil.example"
UNVERIFIED = "could not confirm that it came from the address on your account"


@pytest.fixture
def trusted_relay(settings) -> str:
    settings.MAIL_GATEWAY_TRUSTED_AUTHSERV_ID = RELAY
    return RELAY


@pytest.fixture
def bobs_turn(started_match, alice, bob) -> tuple[Match, str]:
    """A match where bob is to move, and the reply address of his turn e-mail."""
    match = started_match()
    services.move_play(match_id=match.pk, user=alice, expected_version=0, text="d4")
    match.refresh_from_db()
    return match, replies.reply_address(match=match, user=bob, version=1)


def from_bob(
    gateway: int,
    to: str,
    *,
    on_top: list[tuple[str, str]] | None = None,
    sender: str = "Bob <bob@example.com>",
    envelope_from: str = STRANGER,
) -> None:
    """Bob's move e5, by default as a forger sends it: From: bob, envelope sender a stranger's."""
    send(gateway, reply(to=to, sender=sender, body="e5\n", on_top=on_top), envelope_from=envelope_from)


def results(value: str) -> list[tuple[str, str]]:
    return [("Authentication-Results", value)]


def played(match: Match) -> bool:
    match.refresh_from_db()
    return Move.objects.filter(match=match, notation="e5").exists() and match.version == 2


def refused(match: Match, bob, reason: str = UNVERIFIED) -> bool:
    """Nothing played, and bob (only bob) was told why."""
    match.refresh_from_db()
    answers = answers_to(bob)
    return (
        not any(STRANGER in message.to for message in mail.outbox)
        and match.version == 1
        and not Move.objects.filter(match=match, notation="e5").exists()
        and len(answers) == 1
        and reason in answers[0].body
        and "was not played" in answers[0].body
    )


# --- refused ------------------------------------------------------------------------------------------


def test_a_forged_from_without_authentication_results_is_refused(
    gateway, trusted_relay, bobs_turn, bob, caplog
):
    """The probe that found the hole: a stranger's envelope and a forged From: bob. Today's check
    (the account's address is the envelope sender or the From: address) lets it play."""
    match, to = bobs_turn
    with caplog.at_level(logging.WARNING, logger="games.mailin"):
        from_bob(gateway, to)
    assert refused(match, bob)
    assert any(
        "Refused a reply" in record.getMessage() and STRANGER in record.getMessage()
        for record in caplog.records
    )


def test_a_pass_in_a_header_of_another_authserv_id_is_ignored(gateway, trusted_relay, bobs_turn, bob):
    """Anyone upstream, the forger included, can write an Authentication-Results header."""
    match, to = bobs_turn
    on_top = results(
        "mx.evil.example; dkim=pass header.d=example.com; spf=pass smtp.mailfrom=bob@example.com"
    )
    from_bob(gateway, to, on_top=on_top)
    assert refused(match, bob)


@pytest.mark.parametrize(
    "domain",
    [
        "evil.example",
        # Alignment goes one way only: a subdomain of the account's domain may belong to someone else.
        "mail.example.com",
        # A name that merely ends like the account's domain.
        "notexample.com",
        # A single label could only align through a public suffix.
        "com",
    ],
)
def test_a_dkim_pass_for_another_domain_is_refused(gateway, trusted_relay, bobs_turn, bob, domain):
    match, to = bobs_turn
    from_bob(gateway, to, on_top=results(f"{RELAY}; dkim=pass header.d={domain} header.i=@{domain}"))
    assert refused(match, bob)


def test_a_dkim_fail_is_refused(gateway, trusted_relay, bobs_turn, bob):
    match, to = bobs_turn
    on_top = results(
        f"{RELAY}; dkim=fail (signature verification failed) header.d=example.com; "
        "spf=softfail smtp.mailfrom=example.com; dmarc=fail header.from=example.com"
    )
    from_bob(gateway, to, on_top=on_top)
    assert refused(match, bob)


@pytest.mark.parametrize(
    "value",
    [
        f"{RELAY}; dkim=pass header.d=example.com (a comment never closed",
        f'{RELAY}; dkim=pass header.d="example.com',
        f"{RELAY}; dkim=pass header.d=example.com header.d=evil.example",
        f"{RELAY}; dkim=pass header.d=example .com",
        f"{RELAY}; dkim pass header.d=example.com",
        f"{RELAY} dkim=pass header.d=example.com",
        ";;;===",
        f"{RELAY}",
    ],
)
def test_a_header_that_does_not_parse_counts_as_no_authentication(
    gateway, trusted_relay, bobs_turn, bob, value
):
    match, to = bobs_turn
    from_bob(gateway, to, on_top=results(value), envelope_from="bob@example.com")
    assert refused(match, bob)


def test_a_relay_header_that_came_with_the_message_below_the_hop_before_the_relay_is_ignored(
    gateway, trusted_relay, bobs_turn, bob
):
    """Only the topmost run of the relay's headers counts: a copy below the Received: header of the
    hop before the relay was written by the sender (a relay that strips them never lets it through)."""
    match, to = bobs_turn
    on_top = [
        ("Authentication-Results", f"{RELAY}; dkim=none; spf=none smtp.mailfrom=evil.example"),
        ("Received", "from evil.example (evil.example [192.0.2.66]) by mx.wallsite.test; Mon, 3 Mar 2025"),
        ("Authentication-Results", f"{RELAY}; dkim=pass header.d=example.com"),
    ]
    from_bob(gateway, to, on_top=on_top)
    assert refused(match, bob)


def test_a_pass_for_the_accounts_domain_does_not_let_another_user_of_it_play(
    gateway, trusted_relay, bobs_turn, bob
):
    """Carol shares bob's provider: its signature vouches for carol@example.com, not for bob, even
    with bob's address as the envelope sender (which today's check accepts)."""
    match, to = bobs_turn
    on_top = results(f"{RELAY}; dkim=pass header.d=example.com header.i=@example.com")
    from_bob(gateway, to, on_top=on_top, sender="carol@example.com", envelope_from="bob@example.com")
    assert refused(match, bob, "sent from an address other than the one on your account")


# --- played -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "on_top",
    [
        results(f"{RELAY}; dkim=pass header.d=example.com header.s=s1"),
        # The authserv-id in another case, a version, comments (nested, escaped, one with a ";"),
        # quoting, spacing.
        results(
            "MX.Wallsite.Test 1 (the relay (Postfix\\) here)); DKIM = Pass (2048-bit key; secure) "
            'header.d="Example.COM" header.i=@example.com header.b="AbC/dE+f"'
        ),
        # header.i alone names the domain.
        results(f"{RELAY}; dkim=pass header.i=bob@example.com"),
        # Several headers of the relay's (OpenDMARC, OpenDKIM), one of another server's, a failing
        # second signature and a trailing ";".
        [
            ("Authentication-Results", f"{RELAY}; dmarc=pass (p=none) header.from=example.com"),
            (
                "Authentication-Results",
                f"{RELAY}; dkim=fail header.d=lists.example.org; dkim=pass header.d=example.com;",
            ),
            ("Received", "from mail.example.com by mx.wallsite.test; Mon, 3 Mar 2025 10:00:00 +0000"),
            ("Authentication-Results", "mx.example.com; dkim=fail header.d=example.com"),
        ],
    ],
)
def test_a_dkim_pass_for_the_accounts_domain_from_the_trusted_relay_plays_the_move(
    gateway, trusted_relay, bobs_turn, bob, on_top
):
    """The same reply without the relay's header is refused first: the header is what plays it."""
    match, to = bobs_turn
    from_bob(gateway, to)
    assert refused(match, bob)

    from_bob(gateway, to, on_top=on_top)
    assert played(match)
    assert "Played e5 in Wall Go." in answers_to(bob)[-1].body


def test_an_spf_pass_for_the_accounts_domain_plays_the_move(gateway, trusted_relay, bobs_turn, bob):
    match, to = bobs_turn
    from_bob(gateway, to, envelope_from="bob@example.com")
    assert refused(match, bob)

    on_top = results(
        f"{RELAY}; spf=pass (domain of bob@example.com designates 192.0.2.1 as permitted sender) "
        "smtp.mailfrom=bob@example.com; dkim=none"
    )
    from_bob(gateway, to, on_top=on_top, envelope_from="bob@example.com")
    assert played(match)


def test_an_account_on_a_subdomain_aligns_with_its_parent_domain(gateway, trusted_relay, bobs_turn, bob):
    """DMARC's relaxed alignment: bob@mail.example.com's mail signed with d=example.com."""
    match, to = bobs_turn
    bob.email = "bob@mail.example.com"
    bob.save()
    sender = "bob@mail.example.com"
    from_bob(gateway, to, sender=sender)
    assert refused(match, bob)

    from_bob(gateway, to, sender=sender, on_top=results(f"{RELAY}; dkim=pass header.d=example.com"))
    assert played(match)


# --- without a trusted relay --------------------------------------------------------------------------


def test_without_a_trusted_relay_the_from_check_is_advisory_and_a_forged_from_plays(
    gateway, bobs_turn, bob, caplog
):
    """Off by default, the documented old behaviour: the reply address is the capability, the From:
    check only catches forwarded e-mails, and Authentication-Results headers are not read at all."""
    assert django_settings.MAIL_GATEWAY_TRUSTED_AUTHSERV_ID == ""
    with caplog.at_level(logging.WARNING, logger="games.mailin"):
        mailin.gateway_controller(host="127.0.0.1", port=0)
    assert any("MAIL_GATEWAY_TRUSTED_AUTHSERV_ID is empty" in r.getMessage() for r in caplog.records)

    match, to = bobs_turn
    from_bob(gateway, to, on_top=results(f"{RELAY}; dkim=fail header.d=example.com"))
    assert played(match)
