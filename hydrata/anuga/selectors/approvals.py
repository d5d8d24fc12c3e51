"""Sign-offs of scenarios: the state an approval is tied to, and which approvals still hold."""

import hashlib
import json
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import models

from hydrata.agents.selectors import account_for_user
from hydrata.anuga.models import InputLayer, Run, Scenario, ScenarioApproval, Terrain, TimeSeries
from hydrata.storage.errors import StorageObjectNotFound
from hydrata.uploads.selectors import dataset_features
from hydrata_contract.answers.scenarios import Approval, ApprovalMark, StaleApproval

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


def scenario_state_parts(*, scenario: Scenario) -> dict[str, str]:
    """Everything a run of the scenario computes from or reports, each part named as a person would name it, with
    the SHA-256 of its state: the scenario's fields, its terrain, each input row with the dataset behind it, and
    each time series its inputs name, with all its rows. A series no input names is no part: a new gauge record
    changes no build and no sign-off. A change to any part, other than to the fields named cosmetic above,
    changes that part's hash (and so the digest); `state_changes` names the parts that differ."""
    parts = {"the scenario's settings": _hashed(_row_state(scenario, SCENARIO_COSMETIC_FIELDS))}
    terrain = Terrain.objects.filter(pk=scenario.terrain_id).first() if scenario.terrain_id else None
    parts["the terrain"] = _hashed(_row_state(terrain, TERRAIN_COSMETIC_FIELDS))
    layer_ids = {name: getattr(scenario, f"{name}_id") for name in Scenario.INPUT_FIELDS}
    layers = InputLayer.objects.select_related("dataset").in_bulk([pk for pk in layer_ids.values() if pk])
    for name in Scenario.INPUT_FIELDS:
        layer = layers.get(layer_ids[name])
        parts[f"the {name.replace('_', ' ')} layer"] = _hashed(
            {"input": name, "row": _row_state(layer, INPUT_COSMETIC_FIELDS)},
            _row_state(layer.dataset if layer else None, DATASET_COSMETIC_FIELDS),
        )
    named = series_named_by_inputs(scenario=scenario, layers=layers.values())
    # One series at a time, so a project with many long series never holds them all at once.
    series_rows = TimeSeries.objects.filter(project_id=scenario.project_id, name__in=named).order_by("name")
    for series in series_rows.iterator(chunk_size=1):
        parts[f"the time series '{series.name}'"] = _hashed(
            _row_state(series, {*SERIES_COSMETIC_FIELDS, "rows"}),
            series.rows,  # every row's time and value, on its own
        )
    return parts


def scenario_state_digest(*, scenario: Scenario) -> str:
    """SHA-256 of the scenario's state (scenario_state_parts): what a build, a run and a sign-off are tied to."""
    return state_digest_of(parts=scenario_state_parts(scenario=scenario))


def state_digest_of(*, parts: dict[str, str]) -> str:
    digest = hashlib.sha256()
    for name in sorted(parts):
        _feed(digest, [name, parts[name]])
    return digest.hexdigest()


def state_changes(*, before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The parts whose state differs between two states of a scenario, by name (a part added or gone too)."""
    return [name for name in sorted({*before, *after}) if before.get(name) != after.get(name)]


# The input kinds whose features may name a time series: inflow and rainfall `data`, a Dirichlet edge's `stage`.
SERIES_NAMING_INPUTS = ("boundary", "inflow", "rainfall")


def scenario_series_names(*, scenario: Scenario) -> set[str]:
    """The time series a build of the scenario packages: those its inputs name."""
    ids = [getattr(scenario, f"{kind}_id") for kind in SERIES_NAMING_INPUTS]
    layers = InputLayer.objects.select_related("dataset").filter(pk__in=[pk for pk in ids if pk])
    return series_named_by_inputs(scenario=scenario, layers=layers)


def series_named_by_inputs(*, scenario: Scenario, layers: Iterable[InputLayer]) -> set[str]:
    """The names of the project's time series that a feature of the scenario's inputs names (as any text
    property), i.e. the series a build packages and a run may read."""
    names = set(TimeSeries.objects.filter(project_id=scenario.project_id).values_list("name", flat=True))
    by_id = {layer.pk: layer for layer in layers}
    named: set[str] = set()
    for kind in SERIES_NAMING_INPUTS:
        layer = by_id.get(getattr(scenario, f"{kind}_id"))
        if not names or layer is None or layer.dataset is None:
            continue
        try:
            features = dataset_features(dataset=layer.dataset).get("features") or []
        except StorageObjectNotFound:
            continue  # a dataset whose file is gone names nothing: the build refuses it on its own terms
        for feature in features:
            for value in (feature.get("properties") or {}).values():
                if isinstance(value, str) and value.strip() in names:
                    named.add(value.strip())
    return named


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


def _hashed(*states: Any) -> str:
    digest = hashlib.sha256()
    for state in states:
        _feed(digest, state)
    return digest.hexdigest()


def _feed(digest: "hashlib._Hash", part: Any) -> None:
    """Each part with its length first, so no two different sequences of parts hash alike."""
    data = json.dumps(part, sort_keys=True, default=str).encode()
    digest.update(b"%d:" % len(data))
    digest.update(data)


@dataclass(frozen=True)
class BuildState:
    """Whether a build holds the scenario as it is now (`current`: the newest such build), and else what changed
    since its newest build, by name (empty when it was never built, or built before parts were kept)."""

    current: Run | None
    changes: list[str]


def build_state(*, scenario: Scenario, parts: dict[str, str] | None = None) -> BuildState:
    """What start_simulation reads, and get_scenario says (`latest_run_is_valid`): one answer for both."""
    parts = scenario_state_parts(scenario=scenario) if parts is None else parts
    # a design study's members share the digest but carry their own storm: never a build of the scenario itself
    builds = scenario.runs.filter(study_member=False).exclude(package_prefix="").order_by("-created_at", "-id")
    current = builds.filter(state_digest=state_digest_of(parts=parts)).first()
    if current is not None:
        return BuildState(current=current, changes=[])
    newest = builds.exclude(state_digest="").first()
    before = newest.state_parts if newest is not None else {}
    return BuildState(current=None, changes=state_changes(before=before, after=parts) if before else [])


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


def approval_summary(*, scenario: Scenario, user: User) -> Approval:
    """Whether the scenario's current state is approved, by whom, and whether the caller's agents need it."""
    current = approvals_current(scenario=scenario)
    latest = scenario.approvals.select_related("approved_by").first()
    return Approval(
        approved=bool(current),
        approved_by_you=any(approval.approved_by_id == user.pk for approval in current),
        approvals=[
            ApprovalMark(by=approval.approved_by.get_username(), at=approval.approved_at) for approval in current
        ],
        stale_approval=None
        if latest is None or current
        else StaleApproval(
            by=latest.approved_by.get_username(),
            at=latest.approved_at,
            changed=state_changes(before=latest.state_parts, after=scenario_state_parts(scenario=scenario))
            if latest.state_parts
            else [],
        ),
        required_for_your_agents=runs_need_approval(user=user),
    )
