"""Reply addresses: unforgeable, tied to one player, one match and one version, and case-proof."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from games.replies import reply_address, reply_parse

MATCH = SimpleNamespace(pk=1234)
ALICE = SimpleNamespace(pk=56)
BOB = SimpleNamespace(pk=57)


def address(version: int = 7, *, match=MATCH, user=ALICE) -> str:
    return reply_address(match=match, user=user, version=version)


def test_an_address_names_its_match_user_and_version_and_reads_back():
    made = address()
    local, _, domain = made.partition("@")
    assert domain == "moves.wallsite.localhost"
    assert local.startswith("move+1234-56-7-")
    assert reply_parse(made) == (1234, 56, 7)


def test_the_local_part_is_lowercase_and_within_the_64_character_limit():
    made = reply_address(
        match=SimpleNamespace(pk=999_999_999_999),
        user=SimpleNamespace(pk=999_999_999_999),
        version=999_999_999,
    )
    local = made.split("@")[0]
    assert len(local) <= 64
    assert local == local.lower()
    assert reply_parse(made) is not None


def test_a_mail_system_that_changes_the_letter_case_does_not_break_it():
    assert reply_parse(address().upper()) == (1234, 56, 7)
    assert reply_parse(address().title()) == (1234, 56, 7)


def test_brackets_and_a_display_name_around_the_address_are_accepted():
    assert reply_parse(f"<{address()}>") == (1234, 56, 7)
    assert reply_parse(f'"Wallsite moves" <{address()}>') == (1234, 56, 7)


def test_each_player_match_and_version_has_its_own_address():
    assert len({address(), address(8), address(user=BOB), address(match=SimpleNamespace(pk=1235))}) == 4


@pytest.mark.parametrize(
    "change",
    [
        lambda a: a.replace("move+1234-", "move+1235-"),  # another match
        lambda a: a.replace("-56-", "-57-"),  # another player
        lambda a: a.replace("-7-", "-8-"),  # another version
        lambda a: a.replace("move+1234-", "move+01234-"),  # the same number spelt otherwise
        lambda a: a[: a.index("@") - 1] + ("a" if a[a.index("@") - 1] != "a" else "b") + a[a.index("@") :],
        lambda a: a.replace("@moves.wallsite.localhost", "@example.com"),
        lambda a: a.replace("move+", "moves+"),
        lambda a: a.split("@")[0],
        lambda a: a.replace("@", "x@"),
    ],
)
def test_a_changed_address_is_refused(change):
    made = address()
    changed = change(made)
    assert changed != made
    assert reply_parse(changed) is None


@pytest.mark.parametrize(
    "garbage",
    ["", "move@moves.wallsite.localhost", "move+hello@moves.wallsite.localhost", "<>", "@", "x" * 400, None],
)
def test_garbage_is_refused(garbage):
    assert reply_parse(garbage) is None


def test_an_address_made_with_another_secret_is_refused(settings):
    made = address()
    settings.SECRET_KEY = "another-secret-entirely-" + "x" * 40
    assert reply_parse(made) is None


def test_an_address_made_before_the_secret_was_rotated_still_works(settings):
    made = address()
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "the-new-secret-" + "y" * 40
    assert reply_parse(made) == (1234, 56, 7)


def test_the_domain_comes_from_the_settings_and_an_empty_one_turns_replies_off(settings):
    settings.MAIL_GATEWAY_DOMAIN = "Moves.Example.org"
    made = address()
    assert made.endswith("@moves.example.org")
    assert reply_parse(made) == (1234, 56, 7)
    settings.MAIL_GATEWAY_DOMAIN = ""
    assert reply_parse(made) is None
