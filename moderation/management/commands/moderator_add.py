"""Make a user a moderator: the Moderators group, and staff status for the admin."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from moderation.services import moderator_appoint


class Command(BaseCommand):
    help = "Put users in the Moderators group (with access to the admin), or take them out with --remove."

    def add_arguments(self, parser) -> None:
        parser.add_argument("usernames", nargs="+")
        parser.add_argument("--remove", action="store_true", help="Take them out of the group instead.")

    def handle(self, *args, usernames: list[str], remove: bool, **options) -> None:
        User = get_user_model()
        for name in usernames:
            user = User.objects.filter(username=name).first()
            if user is None:
                raise CommandError(f"There is no user called {name!r}.")
            moderator_appoint(user=user, appoint=not remove)
            self.stdout.write(f"{name} is {'no longer' if remove else 'now'} a moderator.")
