"""Every write to matches goes through these modules: the web views, the API and the tasks call the
same code, with keyword-only arguments.

- ``creating``: a match is created, joined, left and started;
- ``playing``: a player's move or resignation, a chance step, a computer's move;
- ``clocks``: a turn whose time ran out (vacation days, the timeout policy);
- ``moderating``: moderators' actions on a match;
- ``recording``: what they share: the locked match, the log line, the turns, the finish.

The names below are the public services, for callers that want them in one place.
"""

from __future__ import annotations

from games.services.clocks import turn_expire
from games.services.creating import match_create, match_rematch, match_start, seat_join, seat_leave
from games.services.moderating import (
    match_adjudicate,
    match_end,
    match_log_note,
    match_pause,
    match_resume,
    move_rollback,
    seat_hand_over,
    seat_remove,
    turn_extend,
)
from games.services.playing import bot_move, chance_resolve, match_resign, move_play

__all__ = [
    "bot_move",
    "chance_resolve",
    "match_adjudicate",
    "match_create",
    "match_end",
    "match_log_note",
    "match_pause",
    "match_rematch",
    "match_resign",
    "match_resume",
    "match_start",
    "move_play",
    "move_rollback",
    "seat_hand_over",
    "seat_join",
    "seat_leave",
    "seat_remove",
    "turn_expire",
    "turn_extend",
]
