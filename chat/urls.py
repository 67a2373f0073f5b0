"""Mounted under matches/<match_id>/chat/ (wallsite/urls.py)."""

from __future__ import annotations

from django.urls import path

from chat import views

urlpatterns = [
    path("", views.message_post, name="chat-post"),
    path("spectators/", views.spectators_read, name="chat-spectators"),
]
