"""Print a new agent key (and nothing else) on stdout, for scripts and tests."""

from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from hydrata.agents.services import grant_create
from hydrata.core.errors import PlatformError
from hydrata_contract.grants import GrantLevel


class Command(BaseCommand):
    help = "Create an agent grant for a user and print its key once."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", required=True)
        parser.add_argument("--level", required=True, choices=GrantLevel.values())
        parser.add_argument("--name", default="", help="Defaults to '<level> key (command line)'.")
        parser.add_argument("--expires-in-days", type=int, default=None)
        parser.add_argument("--create-user", action="store_true", help="Create the user when it does not exist.")

    def handle(self, *args: Any, **options: Any) -> None:
        user_model = get_user_model()
        user = user_model.objects.filter(username=options["username"]).first()
        if user is None:
            if not options["create_user"]:
                raise CommandError(f"No user {options['username']!r}; pass --create-user to create one.")
            user = user_model.objects.create_user(username=options["username"])
        expires_at = None
        if options["expires_in_days"] is not None:
            expires_at = timezone.now() + timedelta(days=options["expires_in_days"])
        try:
            _, key = grant_create(
                user=user,
                name=options["name"] or f"{options['level']} key (command line)",
                level=options["level"],
                expires_at=expires_at,
            )
        except PlatformError as error:
            raise CommandError(str(error.detail)) from None
        self.stdout.write(key)
