from __future__ import annotations

from django.urls import path

from games import analysis_views, forecast_views, record_views, takeback_views, views

urlpatterns = [
    # First: the open pages' poll is the site's commonest request, and is found before the others.
    path("matches/<int:match_id>/live/", views.match_live, name="match-live"),
    path("", views.lobby, name="lobby"),
    path("me/matches/", views.my_matches, name="my-matches"),
    path("games/", views.game_list, name="game-list"),
    path("games/<slug:slug>/rules/", views.game_rules, name="game-rules"),
    path("me/matches/live/", views.my_matches_live, name="my-matches-live"),
    path("matches/new/", views.match_create, name="match-create"),
    path("matches/<int:match_id>/", views.match_detail, name="match-detail"),
    path("matches/<int:match_id>/board.svg", views.match_board, name="match-board"),
    path("matches/<int:match_id>/log/", views.match_log, name="match-log"),
    path("matches/<int:match_id>/replay/", views.match_replay, name="match-replay"),
    path("matches/<int:match_id>/analysis/", analysis_views.analysis_request, name="match-analysis"),
    path(
        "matches/<int:match_id>/analysis.json",
        analysis_views.analysis_progress,
        name="match-analysis-progress",
    ),
    path("matches/<int:match_id>/join/", views.match_join, name="match-join"),
    path("matches/<int:match_id>/leave/", views.match_leave, name="match-leave"),
    path("matches/<int:match_id>/move/", views.match_move, name="match-move"),
    path("matches/<int:match_id>/resign/", views.match_resign, name="match-resign"),
    path("matches/<int:match_id>/seen/", views.match_seen, name="match-seen"),
    path("matches/<int:match_id>/rematch/", views.match_rematch, name="match-rematch"),
    path("matches/<int:match_id>/takeback/", takeback_views.takeback_ask, name="takeback-ask"),
    path("matches/<int:match_id>/takeback/answer/", takeback_views.takeback_answer, name="takeback-answer"),
    path(
        "matches/<int:match_id>/takeback/withdraw/",
        takeback_views.takeback_withdraw,
        name="takeback-withdraw",
    ),
    path("matches/<int:match_id>/forecast/", forecast_views.forecast_add, name="match-forecast"),
    path(
        "matches/<int:match_id>/forecast/delete/",
        forecast_views.forecast_delete,
        name="match-forecast-delete",
    ),
    path(
        "matches/<int:match_id>/forecast/clear/", forecast_views.forecast_clear, name="match-forecast-clear"
    ),
    path(
        "matches/<int:match_id>/forecast/board/", forecast_views.forecast_board, name="match-forecast-board"
    ),
    path("calendar/<slug:token>.ics", views.calendar_feed, name="calendar-feed"),
    path("matches/<int:match_id>/verify/", record_views.match_verify, name="match-verify"),
    path("matches/<int:match_id>/record.json", record_views.match_record_download, name="match-record"),
    path("records/import/", record_views.record_import, name="record-import"),
]
