"""Chat messages in the admin are moderation's (moderation/admin.py): hiding one is a recorded action."""
