"""Sign-offs of scenarios: the state an approval is tied to, and which approvals still hold."""

import hashlib
import json
from typing import Any

from django.contrib.auth.models import User

from hydrata.agents.selectors import account_for_user
from hydrata.anuga.models import InputLayer, Scenario, ScenarioApproval, Terrain, TimeSeries


def scenario_state_digest(*, scenario: Scenario) -> str:
    """SHA-256 of everything a run of the scenario would be built from: its own fields, its terrain, each input
    row and the dataset behind it, and the project's time series. Any change to one of them changes the digest."""
    inputs = {name: _layer_state(getattr(scenario, name)) for name in Scenario.INPUT_FIELDS}
    series = TimeSeries.objects.filter(project_id=scenario.project_id).order_by("pk")
    state = {
        "name": scenario.name,
        "description": scenario.description,
        "resolution": scenario.resolution,
        "duration": scenario.duration,
        "model_start": _iso(scenario.model_start),
        "terrain": _terrain_state(scenario.terrain),
        "inputs": inputs,
        "time_series": [[s.pk, s.name, s.row_count, _iso(s.first_timestamp), _iso(s.last_timestamp)] for s in series],
    }
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()


def _layer_state(layer: InputLayer | None) -> list[Any] | None:
    if layer is None:
        return None
    return [layer.pk, layer.dataset_id, layer.feature_count, layer.bbox_wgs84, _iso(layer.updated_at)]


def _terrain_state(terrain: Terrain | None) -> list[Any] | None:
    return None if terrain is None else [terrain.pk, terrain.dem_key, terrain.status, _iso(terrain.updated_at)]


def _iso(moment) -> str | None:
    return moment.isoformat() if moment else None


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
