"""Demo users and matches in several states, for trying the site locally."""

from __future__ import annotations

import random
from datetime import timedelta

from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from games import services
from games.models import Match
from games.playouts import play_random_moves
from leagues import services as leagues
from leagues.models import Fixture, Season

DEMO_PASSWORD = "wallsite-demo"
DEMO_USERS = ("alice", "bob", "carol", "dave")


class Command(BaseCommand):
    help = f"Create demo users ({', '.join(DEMO_USERS)}; password {DEMO_PASSWORD!r}) and demo matches."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--seed", type=int, default=7, help="Seed for the demo games' random moves.")

    def handle(self, *args, seed: int, **options) -> None:
        if User.objects.filter(username__in=DEMO_USERS).exists():
            self.stdout.write("Demo data is already there; nothing to do.")
            return
        rng = random.Random(seed)
        with transaction.atomic():
            users = {
                name: User.objects.create_user(
                    username=name, email=f"{name}@example.com", password=DEMO_PASSWORD
                )
                for name in DEMO_USERS
            }
            alice, bob, carol, dave = (users[name] for name in DEMO_USERS)
            days = timedelta(days=3)

            services.match_create(
                creator=alice, game="wallgo", seat_count=2, name="Open table: anyone?", move_time_limit=days
            )
            services.match_create(
                creator=carol,
                game="wallgo",
                seat_count=4,
                name="Four corners",
                options={"rules": "devils_plan"},
                move_time_limit=days,
            )

            placing = services.match_create(
                creator=alice, game="wallgo", seat_count=2, name="Just started", move_time_limit=days
            )
            services.seat_join(match_id=placing.pk, user=bob)
            play_random_moves(match_id=placing.pk, rng=rng, moves=3)

            middle = services.match_create(
                creator=bob, game="wallgo", seat_count=2, name="Bob against Alice", move_time_limit=days
            )
            services.seat_join(match_id=middle.pk, user=alice)
            play_random_moves(match_id=middle.pk, rng=rng, moves=18)

            trio = services.match_create(
                creator=carol,
                game="wallgo",
                seat_count=3,
                name="Three-way",
                options={"placement": "round_robin"},
                move_time_limit=days,
            )
            services.seat_join(match_id=trio.pk, user=alice)
            services.seat_join(match_id=trio.pk, user=dave)
            play_random_moves(match_id=trio.pk, rng=rng, moves=10)

            done = services.match_create(creator=dave, game="wallgo", seat_count=2, name="A finished game")
            services.seat_join(match_id=done.pk, user=alice)
            play_random_moves(match_id=done.pk, rng=rng, moves=10_000)

            # One match of every other game with alice seated; a deal or a die roll that starts a game is
            # the worker's to run once the data is saved, so those wait for it.
            for game, name, others in (
                ("stairways", "Stairs and treasure", [bob]),
                ("thewall", "Night at the Wall", [carol]),
                ("wildlings", "The wildlings gather", [bob, carol]),
                ("greatwall", "Black powder", [dave]),
            ):
                match = services.match_create(
                    creator=alice, game=game, seat_count=1 + len(others), name=name, move_time_limit=days
                )
                for user in others:
                    services.seat_join(match_id=match.pk, user=user)
                play_random_moves(match_id=match.pk, rng=rng, moves=6)

            self._league(alice, [alice, bob, carol, dave], rng)
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo users {', '.join(DEMO_USERS)} created with password {DEMO_PASSWORD!r}; "
                f"{Match.objects.count()} matches."
            )
        )

    @staticmethod
    def _league(organiser: User, players: list[User], rng: random.Random) -> None:
        """A Wall Go league whose first season is under way: round 1 played, round 2 begun."""
        league = leagues.league_create(
            created_by=organiser,
            name="Winter league",
            game="wallgo",
            description="Four friends, one move every few days.",
            players_per_match=2,
            move_time_limit=timedelta(days=3),
            division_size=4,
            points_by_place=[1, 0],
        )
        season = leagues.season_open(
            league=league, starts_at=timezone.now() + timedelta(minutes=1), by=organiser
        )
        for user in players:
            leagues.entry_signup(season_id=season.pk, user=user)
        # The start is due at once, as the organiser's "Start now" makes it.
        now = timezone.now()
        Season.objects.filter(pk=season.pk).update(starts_at=now)
        leagues.season_start(season_id=season.pk, now=now)
        for fixture in Fixture.objects.filter(division__season=season).order_by("round", "table"):
            moves = {1: 10_000, 2: 8}.get(fixture.round, 0)
            if moves:
                play_random_moves(match_id=fixture.match_id, rng=rng, moves=moves)
