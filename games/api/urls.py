from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

from accounts.forms import LoginForm
from games.api import errors, views

# DRF's rest_framework.urls (the same names), with the site's log-in form: it refuses a name that is
# not text before any account is looked up or a failure counted.
browsable_api_auth = (
    [
        path(
            "login/",
            auth_views.LoginView.as_view(
                template_name="rest_framework/login.html", authentication_form=LoginForm
            ),
            name="login",
        ),
        path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    ],
    "rest_framework",
)

urlpatterns = [
    path("", views.ApiRoot.as_view(), name="api-root"),
    path("ping/", views.Ping.as_view(), name="api-ping"),
    path("games/", views.GameList.as_view(), name="api-games"),
    path("matches/", views.MatchList.as_view(), name="api-matches"),
    path("matches/<int:match_id>/", views.MatchDetail.as_view(), name="api-match"),
    path("matches/<int:match_id>/join/", views.MatchJoin.as_view(), name="api-match-join"),
    path("matches/<int:match_id>/leave/", views.MatchLeave.as_view(), name="api-match-leave"),
    path("matches/<int:match_id>/resign/", views.MatchResign.as_view(), name="api-match-resign"),
    path(
        "matches/<int:match_id>/legal-moves/", views.MatchLegalMoves.as_view(), name="api-match-legal-moves"
    ),
    path("matches/<int:match_id>/moves/", views.MatchMoves.as_view(), name="api-match-moves"),
    path("matches/<int:match_id>/log/", views.MatchLog.as_view(), name="api-match-log"),
    path("matches/<int:match_id>/forecast/", views.MatchForecast.as_view(), name="api-match-forecast"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves its start-up script as a file, as the Content-Security-Policy asks.
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-redoc"),
    # Log in and out of the browsable API with the site's session.
    path("auth/", include(browsable_api_auth)),
    # Last: anything else under /api/ is a JSON 404, never the site's HTML page or a slash redirect.
    re_path(r"^", errors.not_found),
]
