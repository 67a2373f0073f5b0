"""`make run` loads demo data: four players and matches in every state, of every game."""

from __future__ import annotations

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

from games.engines import registry
from games.models import Match

pytestmark = pytest.mark.django_db


def test_the_demo_data_has_four_players_and_a_match_of_every_game(capsys):
    call_command("seed_demo")
    assert "Demo users alice, bob, carol, dave created" in capsys.readouterr().out
    assert authenticate(username="alice", password="wallsite-demo") is not None
    games = set(Match.objects.values_list("game", flat=True))
    assert games == {slug for slug in registry.slugs() if slug != "testdice"}
    statuses = set(Match.objects.values_list("status", flat=True))
    assert {Match.Status.OPEN, Match.Status.ACTIVE, Match.Status.FINISHED} <= statuses
    assert Match.objects.filter(game="wallgo", status=Match.Status.ACTIVE, log_length__gt=0).exists()


def test_loading_it_twice_changes_nothing(capsys):
    call_command("seed_demo")
    count = Match.objects.count()
    call_command("seed_demo")
    assert "already there" in capsys.readouterr().out
    assert Match.objects.count() == count
