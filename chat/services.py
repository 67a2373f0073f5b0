"""Writing to a match's chat."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from chat.models import MAX_LENGTH, ChatMessage
from games import livekeys
from games.errors import Conflict, Forbidden, NotFound, ServiceError
from games.models import Match
from games.text import text_problem

# Other control characters only garble a page: they are dropped (newlines and tabs kept). A NUL, a lone
# surrogate or a non-character is refused with the reason (games/text.py).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class RateLimited(ServiceError):
    status = 429


def rate_limit() -> tuple[int, timedelta]:
    """How many messages one person may send in how long (settings.CHAT_RATE_LIMIT, per minute)."""
    return getattr(settings, "CHAT_RATE_LIMIT", 5), timedelta(minutes=1)


def message_post(
    *, match_id: int, user: AbstractBaseUser, text: str, now: datetime | None = None
) -> ChatMessage:
    """A player's message in the match's chat; refused when they write faster than the rate limit."""
    now = now or timezone.now()
    problem = text_problem(text or "")
    if problem:
        raise ServiceError(f"Your message {problem}: remove it and send the message again.")
    text = _CONTROL.sub("", text or "").strip()
    if not text:
        raise ServiceError("Write a message first.")
    if len(text) > MAX_LENGTH:
        raise ServiceError(f"A message has at most {MAX_LENGTH} characters; this one has {len(text)}.")
    if not user.is_authenticated:
        raise Forbidden("Log in to write in the chat.")
    with transaction.atomic():
        match = Match.objects.filter(pk=match_id).only("pk").first()
        if match is None:
            raise NotFound("There is no such match.")
        if not match.seats.filter(user=user).exists():
            raise Forbidden("Only the players of this match can write in its chat.")
        # The author's row lock makes two messages sent at once count one after the other.
        get_user_model().objects.select_for_update().filter(pk=user.pk).exists()
        limit, window = rate_limit()
        recent = ChatMessage.objects.filter(author=user, created_at__gt=now - window).count()
        if recent >= limit:
            raise RateLimited(
                f"You are writing too fast: at most {limit} messages a minute. "
                "Wait a little and send it again."
            )
        message = ChatMessage.objects.create(match=match, author=user, text=text)
        # The match's open pages poll a key of the match's row (games/livekeys.py).
        Match.objects.filter(pk=match.pk).update(updated_at=timezone.now())
        livekeys.match_changed(match.pk)
        return message


def spectators_read_set(*, match_id: int, user: AbstractBaseUser, allowed: bool) -> Match:
    """The match's creator decides, before it starts, whether people not playing may read the chat:
    everyone who joins sees the choice before writing a word."""
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None:
            raise NotFound("There is no such match.")
        if match.created_by_id != user.pk:
            raise Forbidden("Only the player who created the match can choose who reads its chat.")
        if match.status != Match.Status.OPEN:
            raise Conflict("Who reads the chat is chosen before the match starts.")
        Match.objects.filter(pk=match.pk).update(spectators_read_chat=allowed, updated_at=timezone.now())
        livekeys.match_changed(match.pk)
        match.spectators_read_chat = allowed
    return match
