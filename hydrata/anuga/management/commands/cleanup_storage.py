"""Delete expired upload slots, old staged terrain sources and old runs' .sww files (the worker also does this
every HYDRATA_CLEANUP_INTERVAL_SECONDS)."""

from typing import Any

from django.core.management.base import BaseCommand

from hydrata.anuga.services.cleanup import storage_cleanup


class Command(BaseCommand):
    help = "Delete expired terrain upload slots, staged terrain sources and run .sww files past their retention."

    def handle(self, *args: Any, **options: Any) -> None:
        report = storage_cleanup()
        self.stdout.write(
            f"Deleted {report.expired_uploads} expired upload slot(s), {report.terrain_sources} "
            f"staged terrain source(s) and {report.run_outputs} run .sww file(s)."
        )
