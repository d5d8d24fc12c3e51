"""The data migration that stores existing series' units under their canonical names: known spellings of a unit the
series' type takes are rewritten, anything else is kept exactly as it was."""

import importlib

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from hydrata.compute.scenario.series_units import SPELLINGS

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("anuga", "0007_run_state_digest")]
AFTER = [("anuga", "0008_time_series_units_canonical")]
MIGRATION = importlib.import_module("hydrata.anuga.migrations.0008_time_series_units_canonical")


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_known_spellings_become_canonical_and_every_other_unit_is_kept_as_it_was():
    apps = migrate(BEFORE)
    User = apps.get_model("auth", "User")
    Project = apps.get_model("anuga", "Project")
    TimeSeries = apps.get_model("anuga", "TimeSeries")
    user = User.objects.create(username="engineer")
    base_map = apps.get_model("anuga", "Map").objects.create(title="p")
    project = Project.objects.create(name="p", owner=user, projection="EPSG:28356", base_map=base_map)
    stored = {
        ("hyetograph", "mm/h"): "mm/hr",
        ("hyetograph", "mm/hr"): "mm/hr",
        ("hyetograph", " Cumulative  mm "): "mm cumulative",
        ("hyetograph", "mm per interval"): "mm/interval",
        ("hyetograph", "mm"): "mm",  # ambiguous: kept, refused at build until said
        ("hyetograph", "m3/s"): "m3/s",  # not a rain unit: kept, refused at build
        ("hydrograph", "cumecs"): "m3/s",
        ("stage", "metres"): "m",
        ("generic", "mm/h"): "mm/hr",
        ("generic", "kPa"): "kPa",
    }
    rows = [{"timestamp": "2024-01-01T00:00:00Z", "value": 1.0}]
    for number, (series_type, units) in enumerate(stored):
        TimeSeries.objects.create(
            project=project,
            name=f"s{number}",
            series_type=series_type,
            units=units,
            rows=rows,
            row_count=1,
            first_timestamp="2024-01-01T00:00:00Z",
            last_timestamp="2024-01-01T00:00:00Z",
        )
    try:
        apps = migrate(AFTER)
        after = apps.get_model("anuga", "TimeSeries").objects.order_by("pk")
        assert [series.units for series in after] == list(stored.values())
        assert all(series.rows == rows for series in after)
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


def test_the_migration_knows_the_spellings_a_write_accepts_today():
    assert MIGRATION.SPELLINGS == SPELLINGS
