from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from accounts import views as account_views
from games import views as game_views
from wallsite.health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("favicon.ico", game_views.favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path("api/", include("games.api.urls")),
    path("accounts/", include("accounts.urls")),
    path("players/<str:username>/", account_views.profile, name="profile"),
    path("matches/<int:match_id>/chat/", include("chat.urls")),
    path("moderation/", include("moderation.urls")),
    path("reports/", include("moderation.report_urls")),
    path("ratings/", include("ratings.urls")),
    path("leagues/", include("leagues.urls")),
    path("", include("games.urls")),
]

# A failure on our side: a 503 naming the database when it is unreachable, JSON under /api/.
handler500 = "wallsite.errors.server_error"
# A request Django would not read (an oversized body is a 413), with the reason; JSON under /api/.
handler400 = "wallsite.errors.bad_request"
