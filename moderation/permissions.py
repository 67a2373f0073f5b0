"""Who may moderate what: the permissions the Moderators group holds (moderation/migrations/0002).

Kept free of model imports so the chat app can ask without importing the moderation models.
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User

GROUP = "Moderators"

MATCHES = "moderation.moderate_matches"  # pause, extend, hand over, remove, take back, adjudicate, end
HIDDEN_STATE = "moderation.view_hidden_state"  # see every seat's hidden information (recorded)
USERS = "moderation.moderate_users"  # suspend, ban, lift
CHAT = "moderation.moderate_chat"  # hide chat messages; read every match's chat
REPORTS = "moderation.work_reports"  # the report queue
ALL = (MATCHES, HIDDEN_STATE, USERS, CHAT, REPORTS)

# What the group holds besides those: the admin pages moderators work in ("app_label.codename").
GROUP_PERMISSIONS = (
    *ALL,
    "moderation.view_report",
    "moderation.view_moderationaction",
    "moderation.view_suspension",
    "moderation.add_suspension",
    "moderation.view_moderatedmatch",
    "moderation.view_moderatedseat",
    "chat.view_chatmessage",
    "accounts.view_user",
)


def can(user: User | AnonymousUser | None, perm: str) -> bool:
    # Moderators are staff (the admin needs it; services.moderator_appoint makes both): everyone else is
    # answered without loading their permissions, which keeps the match page's queries down.
    return bool(
        user is not None
        and user.is_authenticated
        and user.is_active
        and (user.is_staff or user.is_superuser)
        and user.has_perm(perm)
    )


def is_moderator(user: User | AnonymousUser | None) -> bool:
    return any(can(user, perm) for perm in ALL)
