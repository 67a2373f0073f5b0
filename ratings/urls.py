from __future__ import annotations

from django.urls import path

from ratings import views

urlpatterns = [
    path("", views.leaderboard_index, name="leaderboards"),
    path("<slug:game>/", views.leaderboard, name="leaderboard"),
]
