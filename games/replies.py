"""Reply addresses of the turn e-mails: ``move+<match>-<user>-<version>-<mac>@<domain>``.

The MAC (an HMAC of the three numbers under the site's secret, truncated) makes an address
unforgeable and ties it to one player in one match at one position; the version makes a reply to an
old e-mail stale exactly like an old page. Lowercase throughout, because some mail systems change the
case of local parts. The gateway that reads the replies is ``games.mailin``.
"""

from __future__ import annotations

import base64
import re
from email.utils import parseaddr
from typing import Any

from django.conf import settings
from django.utils.crypto import constant_time_compare, salted_hmac

from games.engines import registry
from games.models import Match

SALT = "wallsite.mailin.reply"
LOCAL_PREFIX = "move"
# 20 base32 characters are 100 bits of the HMAC: far beyond guessing, and the local part stays short
# (at most 5 + 12 + 1 + 12 + 1 + 9 + 1 + 20 = 61 characters of the 64 allowed).
MAC_LENGTH = 20
_LOCAL_RE = re.compile(
    rf"{LOCAL_PREFIX}\+(0|[1-9]\d{{0,11}})-(0|[1-9]\d{{0,11}})-(0|[1-9]\d{{0,8}})-([a-z2-7]{{{MAC_LENGTH}}})"
)

# --- addresses ----------------------------------------------------------------------------------------


def enabled() -> bool:
    """Replies are on when a domain is configured; an empty MAIL_GATEWAY_DOMAIN turns them off."""
    return bool(domain())


def domain() -> str:
    return (getattr(settings, "MAIL_GATEWAY_DOMAIN", "") or "").strip().lower()


def _mac(match_id: int, user_id: int, version: int, *, secret: str | None = None) -> str:
    digest = salted_hmac(SALT, f"{match_id}:{user_id}:{version}", secret=secret, algorithm="sha256").digest()
    return base64.b32encode(digest).decode("ascii").lower()[:MAC_LENGTH]


def reply_address(*, match: Match, user: Any, version: int) -> str:
    """The address a reply goes to for this player in this match at this version."""
    mac = _mac(match.pk, user.pk, version)
    return f"{LOCAL_PREFIX}+{match.pk}-{user.pk}-{version}-{mac}@{domain()}"


def reply_parse(address: str) -> tuple[int, int, int] | None:
    """(match id, user id, version) of a genuine reply address; None for anything else.

    Accepts the address with or without angle brackets or a display name, in any letter case. Keys in
    SECRET_KEY_FALLBACKS still verify, so rotating the secret does not break e-mails already sent.
    """
    expected = domain()
    if not expected or not isinstance(address, str) or len(address) > 320:
        return None
    _, addr = parseaddr(address)
    local, at, host = addr.strip().lower().rpartition("@")
    if not at or host != expected:
        return None
    found = _LOCAL_RE.fullmatch(local)
    if found is None:
        return None
    match_id, user_id, version = (int(found.group(i)) for i in (1, 2, 3))
    mac = found.group(4)
    secrets = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    if any(constant_time_compare(mac, _mac(match_id, user_id, version, secret=key)) for key in secrets):
        return match_id, user_id, version
    return None


def notation_hint(game: str) -> str:
    """What the e-mails suggest replying with: the engine's own example, never a move computed from
    the position (that would put the engine's state into an e-mail)."""
    example = registry.get_engine(game).notation_example
    return f"for example {example}" if example else "in the game's notation"
