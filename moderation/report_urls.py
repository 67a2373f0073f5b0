"""Mounted under /reports/: players report players here."""

from __future__ import annotations

from django.urls import path

from moderation import views

urlpatterns = [
    path("new/", views.report_create, name="report-create"),
]
