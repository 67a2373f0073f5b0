"""Reading a match's chat: who may, and what they see."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from chat.models import ChatMessage
from games import livekeys
from games.models import Match, Seat
from games.selectors import match_cache_id, match_live_key_of
from moderation import permissions

# The page shows the latest messages; a longer thread is the admin's to read.
SHOWN = 200


@dataclass(frozen=True)
class ChatAccess:
    can_read: bool
    can_post: bool
    moderator: bool  # reads every chat, sees hidden messages' text and may hide messages


def chat_access(
    *, match: Match, user: AbstractBaseUser | AnonymousUser | None, seats: list[Seat] | None = None
) -> ChatAccess:
    """``seats``: the match's seats when the caller has them already (the match page)."""
    seated = False
    if user is not None and user.is_authenticated:
        if seats is None:
            seated = match.seats.filter(user=user).exists()
        else:
            seated = any(seat.user_id == user.pk for seat in seats)
    moderator = permissions.can(user, permissions.CHAT)
    return ChatAccess(
        can_read=seated or moderator or match.spectators_read_chat,
        can_post=seated,
        moderator=moderator,
    )


# What the chat box shows of a message and its author: nothing else of the user goes into the cache.
SHOWN_FIELDS = (
    "match_id",
    "author_id",
    "author__username",
    "text",
    "created_at",
    "hidden_at",
    "hidden_reason",
)
ROWS_SECONDS = 10 * 60


def messages_for(*, match: Match, access: ChatAccess) -> list[ChatMessage]:
    """The latest messages, oldest first; empty for a reader the match keeps out. Kept in the cache
    under the match's live key, which every message posted or hidden moves on (chat.services,
    moderation.services): the rows are the same for every reader, the viewer's part is in the template."""
    if not access.can_read:
        return []
    key = f"chat:rows:{match_cache_id(match)}:{match_live_key_of(match)}"
    found = livekeys.cache_read([key])
    if key in found:
        return found[key]
    latest = ChatMessage.objects.filter(match=match).select_related("author").only(*SHOWN_FIELDS)
    rows = list(reversed(latest.order_by("-created_at", "-pk")[:SHOWN]))
    livekeys.cache_write({key: rows}, ROWS_SECONDS)
    return rows
