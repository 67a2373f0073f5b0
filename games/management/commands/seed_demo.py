"""Demo users and matches in several states, for trying the site locally."""

from __future__ import annotations

import random
from datetime import timedelta

from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.models import User
from games import services
from games.models import Match
from games.playouts import play_random_moves

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
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo users {', '.join(DEMO_USERS)} created with password {DEMO_PASSWORD!r}; "
                f"{Match.objects.count()} matches."
            )
        )
