"""Every write to matches goes through these modules: the web views, the API and the tasks call the
same code, with keyword-only arguments.

- ``creating``: a match is created, joined, left and started;
- ``playing``: a player's move or resignation, a chance step, a computer's move;
- ``clocks``: a turn whose time ran out (vacation days, the timeout policy);
- ``moderating``: moderators' actions on a match;
- ``forecasting``: conditional moves, planned replies played when the opponent's move matches;
- ``takebacks``: a move taken back by the players' consent;
- ``analysing``: a finished match's moves rated by the search bot;
- ``recording``: what they share: the locked match, the log line, the turns, the finish.

The names below are the public services, for callers that want them in one place.
"""

from __future__ import annotations

from games.services.analysing import analysis_request, analysis_run
from games.services.clocks import turn_expire
from games.services.creating import match_create, match_rematch, match_start, seat_join, seat_leave
from games.services.forecasting import forecast_clear, forecast_position, forecast_save
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
from games.services.takebacks import takeback_answer, takeback_ask, takeback_panel, takeback_withdraw

__all__ = [
    "analysis_request",
    "analysis_run",
    "bot_move",
    "chance_resolve",
    "forecast_clear",
    "forecast_position",
    "forecast_save",
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
    "takeback_answer",
    "takeback_ask",
    "takeback_panel",
    "takeback_withdraw",
    "turn_expire",
    "turn_extend",
]
