"""`manage.py server_json [--write]`: print (or write at the repository root) server.json, the MCP Registry entry."""

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from hydrata_mcp.discovery import SERVER_JSON, registry_entry, rendered


class Command(BaseCommand):
    help = "Print server.json, the MCP Registry entry built from the live server; --write writes it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--write", action="store_true", help=f"write {SERVER_JSON.name} at the repository root")

    def handle(self, *args: Any, **options: Any) -> None:
        text = rendered(registry_entry())
        if options["write"]:
            SERVER_JSON.write_text(text)
            self.stdout.write(f"Wrote {SERVER_JSON.name}.")
        else:
            self.stdout.write(text, ending="")
