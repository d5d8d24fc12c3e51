"""Create the local demo account with a draft-level and a launch-level agent key, printed once."""

import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser

from hydrata.agents.services import grant_create, grants_revoke_all

DEMO_USERNAME = "demo"


class Command(BaseCommand):
    help = "Create the local demo account and its two agent keys (shown once). Local use only."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--new-keys", action="store_true", help="Revoke the demo keys and print new ones.")

    def handle(self, *args: Any, **options: Any) -> None:
        user_model = get_user_model()
        user = user_model.objects.filter(username=DEMO_USERNAME).first()
        password = None
        if user is None:
            password = secrets.token_urlsafe(12)
            user = user_model.objects.create_user(username=DEMO_USERNAME, password=password)
        elif not options["new_keys"]:
            self.stdout.write(
                f"The demo account exists; its keys were printed when it was made. Sign in at "
                f"{settings.HYDRATA_SITE_URL}/agents/ to make more, or run `make demo-keys` for a fresh pair."
            )
            return
        grants_revoke_all(user=user)
        _, draft_key = grant_create(user=user, name="demo draft key", level="draft")
        _, launch_key = grant_create(user=user, name="demo launch key", level="launch")
        lines = [
            "",
            "Hydrata demo account (shown once; keep these somewhere safe):",
            f"  site:        {settings.HYDRATA_SITE_URL}/  (MCP endpoint {settings.HYDRATA_SITE_URL}/mcp/)",
            f"  username:    {DEMO_USERNAME}",
        ]
        if password:
            lines.append(f"  password:    {password}")
        lines += [f"  draft key:   {draft_key}", f"  launch key:  {launch_key}", ""]
        if settings.HYDRATA_CONNECT_FLOW:
            lines += [
                "MCP clients that sign in (OAuth) need no key: add the MCP endpoint without a header, sign in",
                f"as {DEMO_USERNAME} when the browser opens, and choose the level there.",
                "",
            ]
        self.stdout.write("\n".join(lines))
