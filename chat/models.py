"""A message thread per match: its players write, spectators read when the match allows it."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.models import Match

MAX_LENGTH = 500


class ChatMessage(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="chat_messages")
    # Kept when an account closes: a reported message stays evidence.
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="chat_messages"
    )
    text = models.TextField(max_length=MAX_LENGTH)
    created_at = models.DateTimeField(auto_now_add=True)
    hidden_at = models.DateTimeField(null=True, blank=True, help_text="When a moderator hid it.")
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    hidden_reason = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["match", "created_at", "pk"]
        indexes = [
            models.Index(fields=["match", "created_at"], name="chat_match_created"),
            # The rate limit counts one author's recent messages.
            models.Index(fields=["author", "created_at"], name="chat_author_created"),
        ]

    def __str__(self) -> str:
        return f"{self.author} in match {self.match_id}: {self.text[:40]}"

    @property
    def hidden(self) -> bool:
        return self.hidden_at is not None
