"""Puts players and matches into the fault tests' PostgreSQL database, from a process of its own.

The test process keeps the suite's database (SQLite unless DATABASE_URL names PostgreSQL), while the
servers under test share a PostgreSQL database of their own; what the tests need in it is made here,
through the same services as the site, by ``python -m tests.faults.stage`` with that database's
settings. It reads a JSON spec on stdin and prints what it made as JSON on stdout:

    {"users": ["ann", "ben"], "sessions": false, "no_vacation": false,
     "matches": [{"key": "m1", "game": "wallgo", "players": ["ann", "ben"], "bots": [],
                  "name": "", "move_time_limit_hours": null, "timeout_policy": "skip",
                  "options": {}, "play": 0, "seed": 1}]}
    -> {"users": {"ann": {"id": 1, "token": "...", "email": "...", "session": "..."}},
        "matches": [{"key": "m1", "id": 7, "version": 0}]}
"""

from __future__ import annotations

import json
import os
import random
import sys
from datetime import timedelta
from typing import Any


def stage(spec: dict[str, Any]) -> dict[str, Any]:
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.sessions.backends.db import SessionStore
    from django.utils import timezone
    from rest_framework.authtoken.models import Token

    from games import services
    from games.playouts import play_random_moves

    user_model = get_user_model()
    users: dict[str, Any] = {}
    made: dict[str, dict[str, Any]] = {}
    for name in spec.get("users", []):
        user = user_model.objects.create_user(username=name, email=f"{name}@faults.invalid", password=None)
        if spec.get("no_vacation"):
            # Every vacation day spent: a timeout applies the match's policy at once.
            user.vacation_days_left = 0
            user.vacation_year = timezone.now().year
            user.save(update_fields=["vacation_days_left", "vacation_year"])
        users[name] = user
        made[name] = {"id": user.pk, "email": user.email, "token": Token.objects.create(user=user).key}
        if spec.get("sessions"):
            session = SessionStore()
            session[SESSION_KEY] = str(user.pk)
            session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
            session[HASH_SESSION_KEY] = user.get_session_auth_hash()
            session.create()
            made[name]["session"] = session.session_key

    matches = []
    for item in spec.get("matches", []):
        players = [users[name] for name in item["players"]]
        bots = item.get("bots", [])
        hours = item.get("move_time_limit_hours")
        match = services.match_create(
            creator=players[0],
            game=item["game"],
            seat_count=len(players) + len(bots),
            bots=bots,
            name=item.get("name", ""),
            options=item.get("options") or None,
            move_time_limit=timedelta(hours=hours) if hours else None,
            timeout_policy=item.get("timeout_policy", "skip"),
        )
        for player in players[1:]:
            services.seat_join(match_id=match.pk, user=player)
        if item.get("play"):
            match = play_random_moves(
                match_id=match.pk, rng=random.Random(item.get("seed", 1)), moves=item["play"]
            )
        match.refresh_from_db()
        matches.append({"key": item.get("key", str(match.pk)), "id": match.pk, "version": match.version})
    return {"users": made, "matches": matches}


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wallsite.settings.base")
    import django

    django.setup()
    result = stage(json.load(sys.stdin))
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
