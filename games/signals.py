"""What the games app tells the rest of the site, without knowing who listens (ratings, leagues).

Both are sent inside the transaction that changes the match, so a listener's writes commit or roll
back with it; listeners must be quick and must give the same result when sent twice.
"""

from __future__ import annotations

from django.dispatch import Signal

# A match has just ended with a result (seats carry score and rank). Arguments: match.
match_finished = Signal()
# A finished match no longer counts (a moderator cancelled it or adjudicated it anew). Arguments: match.
match_voided = Signal()
# Where a match belongs, for the subjects of its e-mails (a league names the fixture). Arguments: match.
# A receiver returns a short title, or None for a match that is not its own.
match_title = Signal()
