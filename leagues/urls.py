from __future__ import annotations

from django.urls import path

from leagues import views

urlpatterns = [
    path("", views.league_list, name="leagues"),
    # Before the league addresses: "new" is not a league (the services refuse it as an address).
    path("new/", views.league_create, name="league-create"),
    path("<slug:slug>/", views.league_detail, name="league-detail"),
    path("<slug:slug>/settings/", views.league_settings, name="league-settings"),
    path("<slug:slug>/close/", views.league_close, name="league-close"),
    path("<slug:slug>/seasons/new/", views.season_open, name="league-season-open"),
    path("<slug:slug>/seasons/<int:number>/", views.league_detail, name="league-season"),
    path("<slug:slug>/seasons/<int:number>/signup/", views.season_signup, name="league-signup"),
    path("<slug:slug>/seasons/<int:number>/withdraw/", views.season_withdraw, name="league-withdraw"),
    path("<slug:slug>/seasons/<int:number>/start/", views.season_start, name="league-season-start"),
]
