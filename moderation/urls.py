"""Mounted under /moderation/: every page here answers 404 to anyone but moderators."""

from __future__ import annotations

from django.urls import path

from moderation import views

urlpatterns = [
    path("", views.queue, name="moderation-queue"),
    path("reports/<int:report_id>/assign/", views.report_assign, name="moderation-report-assign"),
    path("reports/<int:report_id>/resolve/", views.report_resolve, name="moderation-report-resolve"),
    path("actions/", views.actions, name="moderation-actions"),
    path("matches/<int:match_id>/secrets/", views.match_secrets, name="moderation-match-secrets"),
    path("matches/<int:match_id>/<slug:action>/", views.match_action, name="moderation-match-action"),
    path("messages/<int:message_id>/hide/", views.message_hide, name="moderation-message-hide"),
    path("users/<str:username>/", views.user_detail, name="moderation-user"),
    path("users/<str:username>/suspend/", views.user_suspend, name="moderation-user-suspend"),
    path("suspensions/<int:suspension_id>/lift/", views.suspension_lift, name="moderation-suspension-lift"),
]
