"""Sign-offs of scenarios: the state an approval is tied to, and which approvals still hold."""

import hashlib
import json
from collections.abc import Collection
from datetime import UTC, datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import models

from hydrata.agents.selectors import account_for_user
from hydrata.anuga.models import InputLayer, Scenario, ScenarioApproval, Terrain, TimeSeries

# The digest covers every concrete field of these rows except the ones named here, each with why it changes nothing
# a run computes or reports. A field added to a model later is in the digest unless it is added here with a reason
# (tests/hydrata/anuga/selectors/test_approvals.py holds the scenario's list to exactly its complement).
SCENARIO_COSMETIC_FIELDS: dict[str, str] = {
    "id": "the approval row already names its scenario",
    "latest_run_is_valid": "the platform's note that the latest build matches the scenario: a build sets it and any "
    "change clears it, so it moves without the scenario changing",
    "created_by": "who made the scenario; no run reads it",
    "created_at": "when the scenario was made; no run reads it",
    "updated_at": "moves on every save, also one that changes nothing",
}
TERRAIN_COSMETIC_FIELDS: dict[str, str] = {
    "upload": "the staging slot the file came through; the cleanup deletes expired slots",
    "source_key": "the uploaded original, which the cleanup blanks once imported; runs read dem_key",
    "created_by": "who uploaded it; no run reads it",
    "created_at": "when it was uploaded; no run reads it",
    "updated_at": "moves on every save, also one that changes nothing",
}
INPUT_COSMETIC_FIELDS: dict[str, str] = {
    "created_at": "when the row was seeded; no run reads it",
    "updated_at": "moves on every attach, also of the same dataset again",
}
# A dataset's features are written once, under a new key of their own (hydrata/uploads/services.py), and never
# rewritten: the row, storage_key included, names exactly the features a run reads, so they are not read here
# (that would read every layer's GeoJSON from storage on every scenario read).
DATASET_COSMETIC_FIELDS: dict[str, str] = {
    "created_at": "when it was imported; no run reads it",
}
SERIES_COSMETIC_FIELDS: dict[str, str] = {
    "created_by": "who made the series; no run reads it",
    "created_at": "when it was made; no run reads it",
}


def scenario_state_digest(*, scenario: Scenario) -> str:
    """SHA-256 of everything a run of the scenario computes from or reports: the scenario's fields, its terrain,
    each input row with the dataset behind it, and every time series of the project with all its rows. A change
    to any of them, other than to the fields named cosmetic above, changes the digest."""
    digest = hashlib.sha256()
    _feed(digest, _row_state(scenario, SCENARIO_COSMETIC_FIELDS))
    terrain = Terrain.objects.filter(pk=scenario.terrain_id).first() if scenario.terrain_id else None
    _feed(digest, _row_state(terrain, TERRAIN_COSMETIC_FIELDS))
    layer_ids = {name: getattr(scenario, f"{name}_id") for name in Scenario.INPUT_FIELDS}
    layers = InputLayer.objects.select_related("dataset").in_bulk([pk for pk in layer_ids.values() if pk])
    for name in Scenario.INPUT_FIELDS:
        layer = layers.get(layer_ids[name])
        _feed(digest, {"input": name, "row": _row_state(layer, INPUT_COSMETIC_FIELDS)})
        _feed(digest, _row_state(layer.dataset if layer else None, DATASET_COSMETIC_FIELDS))
    # One series at a time, so a project with many long series never holds them all at once.
    for series in TimeSeries.objects.filter(project_id=scenario.project_id).order_by("pk").iterator(chunk_size=1):
        _feed(digest, _row_state(series, {*SERIES_COSMETIC_FIELDS, "rows"}))
        _feed(digest, series.rows)  # every row's time and value, on its own
    return digest.hexdigest()


def _row_state(row: models.Model | None, leave_out: Collection[str]) -> dict[str, Any] | None:
    """Every concrete field of the row but those left out, by column (a foreign key is its id)."""
    if row is None:
        return None
    return {
        field.attname: _canonical(field, field.value_from_object(row))
        for field in row._meta.concrete_fields
        if field.name not in leave_out
    }


def _canonical(field: models.Field, value: Any) -> Any:
    """One spelling per value, whether the row was just read or just assigned from a request: a datetime in UTC,
    a float field's 10 as 10.0."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    if isinstance(field, models.FloatField):
        return float(value)
    return value


def _feed(digest: "hashlib._Hash", part: Any) -> None:
    """Each part with its length first, so no two different sequences of parts hash alike."""
    data = json.dumps(part, sort_keys=True, default=str).encode()
    digest.update(b"%d:" % len(data))
    digest.update(data)


def approvals_current(*, scenario: Scenario) -> list[ScenarioApproval]:
    """The approvals of the scenario as it is now, newest first."""
    digest = scenario_state_digest(scenario=scenario)
    return list(scenario.approvals.filter(state_digest=digest).select_related("approved_by"))


def scenario_approved_by(*, scenario: Scenario, user: User) -> bool:
    return any(approval.approved_by_id == user.pk for approval in approvals_current(scenario=scenario))


def runs_need_approval(*, user: User) -> bool:
    """The account switch: this user's agents may start only runs of scenarios they approved."""
    account = account_for_user(user=user)
    return bool(account and account.runs_need_approval)


def approval_summary(*, scenario: Scenario, user: User) -> dict[str, Any]:
    """Whether the scenario's current state is approved, by whom, and whether the caller's agents need it."""
    current = approvals_current(scenario=scenario)
    latest = scenario.approvals.select_related("approved_by").first()
    return {
        "approved": bool(current),
        "approved_by_you": any(approval.approved_by_id == user.pk for approval in current),
        "approvals": [{"by": approval.approved_by.get_username(), "at": approval.approved_at} for approval in current],
        "stale_approval": None
        if latest is None or current
        else {"by": latest.approved_by.get_username(), "at": latest.approved_at},
        "required_for_your_agents": runs_need_approval(user=user),
    }
