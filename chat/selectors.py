"""Reading a match's chat: who may, and what they see."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from chat.models import ChatMessage
from games.models import Match, Seat
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


def messages_for(*, match: Match, access: ChatAccess) -> list[ChatMessage]:
    """The latest messages, oldest first; empty for a reader the match keeps out."""
    if not access.can_read:
        return []
    latest = ChatMessage.objects.filter(match=match).select_related("author").order_by("-created_at", "-pk")
    return list(reversed(latest[:SHOWN]))
