"""The state an approval is tied to: every field of the scenario, its terrain, its input rows with their datasets and
the project's time series (rows and all) is in the digest, except the fields named cosmetic with a reason. The
walk below changes each field of each of those rows, one at a time, and checks that the digest changes exactly
when the field is not named cosmetic."""

import copy
from datetime import timedelta
from typing import Any

import pytest
from django.db import models
from django.utils import timezone

from hydrata.anuga.models import InputLayer, Scenario, Terrain, TimeSeries
from hydrata.anuga.selectors import approvals
from hydrata.anuga.selectors.approvals import approval_summary, scenario_state_digest
from hydrata.anuga.services.approvals import scenario_approve
from hydrata.anuga.services.inputs import default_inputs_seed, input_layer_attach
from hydrata.anuga.services.scenarios import scenario_create, scenario_update
from hydrata.anuga.services.terrain import terrain_upload_presign
from hydrata.anuga.services.time_series import time_series_create
from hydrata.uploads.models import Dataset
from hydrata_contract.inputs import InputKind
from hydrata_contract.requests.scenarios import ScenarioChanges
from tests.data import BOUNDARY, RAINFALL
from tests.factories import make_dataset, make_project, make_ready_terrain, make_user

pytestmark = pytest.mark.django_db

CREEK_INFLOW = {
    "type": "FeatureCollection",
    "crs": {"type": "name", "properties": {"name": "EPSG:28356"}},
    "features": [
        {
            "type": "Feature",
            "properties": {"type": "Surface", "data": "Creek"},
            "geometry": {"type": "LineString", "coordinates": [[251050.0, 6271900.0], [251060.0, 6271900.0]]},
        }
    ],
}
ROWS = [{"timestamp": f"2024-01-01T00:{minute:02d}:00Z", "value": float(minute)} for minute in range(0, 60, 5)]


@pytest.fixture
def scenario() -> Scenario:
    """A scenario of a project with a ready terrain, a boundary and a rainfall layer and a time series; beside it,
    other rows of each kind a foreign key of the walk can be moved to."""
    owner = make_user("owner")
    make_user("someone else")
    project = make_project(owner)
    make_project(owner, name="Another project")
    make_ready_terrain(project)
    terrain_upload_presign(project=project, user=owner, filename="dem.tif", content_type="image/tiff", size=1000)
    default_inputs_seed(project=project)
    for kind, collection in ((InputKind.BOUNDARY, BOUNDARY), (InputKind.RAINFALL, RAINFALL)):
        row = InputLayer.objects.get(project=project, kind=kind)
        input_layer_attach(layer=row, user=owner, dataset_id=make_dataset(owner, collection, name=f"{kind}.geojson").pk)
    make_dataset(owner, RAINFALL, name="unused.geojson")
    time_series_create(
        project=project, user=owner, name="Creek", series_type="hydrograph", units="m3/s", data={"rowData": ROWS}
    )
    named = InputLayer.objects.get(project=project, kind=InputKind.INFLOW)  # an inflow line that reads the series
    input_layer_attach(layer=named, user=owner, dataset_id=make_dataset(owner, CREEK_INFLOW, name="inflow.geojson").pk)
    return scenario_create(project=project, user=owner, name="sign me off", resolution=10, duration=300)


def digest_of(scenario_id: int) -> str:
    return scenario_state_digest(scenario=Scenario.objects.get(pk=scenario_id))


def another_value(field: models.Field, current: Any) -> Any:
    """A value of the field's type other than `current`, that the database accepts."""
    if field.is_relation:
        if current is not None and field.null:
            return None
        other = field.related_model.objects.exclude(pk=current).order_by("pk").first()
        assert other is not None, f"the walk needs another {field.related_model.__name__} for {field.name}"
        return other.pk
    if field.choices:
        return next(value for value, _ in field.choices if value != current)
    kind = field.get_internal_type()
    if kind in ("CharField", "TextField", "SlugField"):
        text = f"x{current or ''}"
        return text[: field.max_length] if field.max_length else text
    if kind == "FloatField":
        return (current or 0.0) + 1.5
    if kind in ("PositiveIntegerField", "IntegerField", "BigAutoField"):
        return (current or 0) + 1000
    if kind == "BooleanField":
        return not current
    if kind == "DateTimeField":
        return (current or timezone.now()) + timedelta(days=1)
    if kind == "JSONField":
        return another_json(current)
    pytest.fail(f"The walk knows no other value for {field.name} ({kind}): teach another_value one.")


def another_json(current: Any) -> Any:
    """A time series's rows with the middle row's value changed; any other list with one more entry."""
    if isinstance(current, list) and current and isinstance(current[0], dict):
        changed = copy.deepcopy(current)
        changed[len(changed) // 2]["value"] += 1
        return changed
    return [*(current or []), 1]


def rows_of_the_scenario(scenario: Scenario) -> dict[str, tuple[models.Model, dict[str, str]]]:
    """Each row the digest reads, with the fields it leaves out of it."""
    boundary = InputLayer.objects.get(pk=scenario.boundary_id)
    return {
        "scenario": (scenario, approvals.SCENARIO_COSMETIC_FIELDS),
        "terrain": (Terrain.objects.get(pk=scenario.terrain_id), approvals.TERRAIN_COSMETIC_FIELDS),
        "input row": (boundary, approvals.INPUT_COSMETIC_FIELDS),
        "dataset": (Dataset.objects.get(pk=boundary.dataset_id), approvals.DATASET_COSMETIC_FIELDS),
        "time series": (TimeSeries.objects.get(project=scenario.project), approvals.SERIES_COSMETIC_FIELDS),
    }


@pytest.mark.parametrize("which", ["scenario", "terrain", "input row", "dataset", "time series"])
def test_every_field_changes_the_digest_except_exactly_the_ones_named_cosmetic(scenario, which):
    row, cosmetic = rows_of_the_scenario(scenario)[which]
    if which == "input row":  # room to take another kind: one default row per kind and project
        InputLayer.objects.filter(project=scenario.project, dataset__isnull=True).delete()
    fields = {field.name: field for field in row._meta.concrete_fields}
    changed, unchanged = set(), set()
    for field in fields.values():
        if field.primary_key and which != "scenario":
            continue  # the scenario's foreign key to the row, walked with the scenario
        before, original = digest_of(scenario.pk), field.value_from_object(row)
        value = another_value(field, original)
        type(row).objects.filter(pk=row.pk).update(**{field.attname: value})
        after = digest_of(value if field.primary_key else scenario.pk)
        type(row).objects.filter(pk=value if field.primary_key else row.pk).update(**{field.attname: original})
        (changed if after != before else unchanged).add(field.name)

    assert set(cosmetic) <= set(fields), f"named cosmetic but no field: {set(cosmetic) - set(fields)}"
    assert unchanged == set(cosmetic), "the fields the digest leaves out must be exactly the ones named cosmetic"
    assert changed == set(fields) - set(cosmetic) - ({row._meta.pk.name} if which != "scenario" else set())
    assert all(reason.strip() for reason in cosmetic.values())


def test_a_field_the_api_can_write_is_never_cosmetic():
    writable = set(ScenarioChanges.model_fields)

    assert writable <= {field.name for field in Scenario._meta.concrete_fields}
    assert not writable & set(approvals.SCENARIO_COSMETIC_FIELDS)
    assert "inundation_threshold_m" in writable


def test_changing_a_value_in_the_middle_of_a_time_series_voids_the_approval(scenario):
    owner = scenario.project.owner
    scenario_approve(scenario=scenario, user=owner, grant=None)
    series = TimeSeries.objects.get(project=scenario.project)
    rows = copy.deepcopy(series.rows)
    rows[len(rows) // 2]["value"] = 999.0  # as an edit in the admin would: same count, same first and last time

    before = approval_summary(scenario=Scenario.objects.get(pk=scenario.pk), user=owner).approved
    TimeSeries.objects.filter(pk=series.pk).update(rows=rows)
    after = approval_summary(scenario=Scenario.objects.get(pk=scenario.pk), user=owner)

    assert before is True
    assert after.approved is False and after.stale_approval is not None and after.stale_approval.by == owner.username


def test_a_time_series_no_input_names_is_no_part_of_the_state_and_one_named_is_a_part_by_its_name(scenario):
    """A new gauge record made every built scenario "not built" and every sign-off stale."""
    owner = scenario.project.owner
    before = approvals.scenario_state_parts(scenario=scenario)

    time_series_create(
        project=scenario.project, user=owner, name="Gauge", series_type="stage", units="m", data={"rowData": ROWS}
    )
    after = approvals.scenario_state_parts(scenario=Scenario.objects.get(pk=scenario.pk))

    assert after == before and "the time series 'Creek'" in after
    assert not any("Gauge" in part for part in after)


def test_a_stale_approval_names_the_parts_that_changed_since(scenario):
    owner = scenario.project.owner
    scenario_approve(scenario=scenario, user=owner, grant=None)
    series = TimeSeries.objects.get(project=scenario.project, name="Creek")
    TimeSeries.objects.filter(pk=series.pk).update(rows=[*series.rows[:-1], {**series.rows[-1], "value": 99.0}])
    Scenario.objects.filter(pk=scenario.pk).update(duration=600)

    stale = approval_summary(scenario=Scenario.objects.get(pk=scenario.pk), user=owner).stale_approval

    assert stale is not None and stale.changed == ["the scenario's settings", "the time series 'Creek'"]


def test_what_changes_nothing_a_run_reads_keeps_the_approval(scenario):
    """A save with the same values, attaching the same dataset again, a build's own note and the request's
    spelling of a number or a time (10 for 10.0, another time zone) leave the digest as it was."""
    owner = scenario.project.owner
    start = timezone.now().replace(microsecond=0)
    scenario = scenario_update(scenario=scenario, changes={"model_start": start, "resolution": 10.0})
    scenario_approve(scenario=scenario, user=owner, grant=None)
    boundary = InputLayer.objects.get(pk=scenario.boundary_id)

    same = scenario_update(
        scenario=Scenario.objects.get(pk=scenario.pk),
        changes={
            "name": scenario.name,
            "resolution": 10,
            "model_start": start.astimezone(timezone.get_fixed_timezone(600)),
        },
    )
    in_memory = approval_summary(scenario=same, user=owner).approved
    input_layer_attach(layer=boundary, user=owner, dataset_id=boundary.dataset_id)
    Scenario.objects.filter(pk=scenario.pk).update(latest_run_is_valid=True)

    assert in_memory is True
    assert approval_summary(scenario=Scenario.objects.get(pk=scenario.pk), user=owner).approved is True
