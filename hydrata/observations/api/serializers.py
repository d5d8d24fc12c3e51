"""Output shapes of the observations API (the request bodies are the contract's, hydrata_contract/requests)."""

from typing import Any

from rest_framework import serializers

from hydrata.anuga.selectors.links import comparison_link, event_link
from hydrata.core.links import MapLinkField
from hydrata.observations.models import Comparison, FloodEvent, Observation
from hydrata.observations.selectors import comparison_is_stale


class EventOutput(serializers.ModelSerializer):
    observation_count = serializers.SerializerMethodField()
    ui_url = MapLinkField(lambda event: event_link(event.project, event.pk))

    class Meta:
        model = FloodEvent
        fields = [
            "id",
            "project",
            "name",
            "started_at",
            "ended_at",
            "description",
            "observation_count",
            "ui_url",
            "created_at",
            "updated_at",
        ]

    def get_observation_count(self, event: FloodEvent) -> int:
        counted = getattr(event, "observation_count", None)  # annotated by events_of
        return counted if counted is not None else event.observations.count()


class ObservationOutput(serializers.ModelSerializer):
    crs = serializers.CharField(source="event.project.projection", read_only=True)
    given = serializers.SerializerMethodField()
    ui_url = MapLinkField(lambda observation: event_link(observation.event.project, observation.event_id))

    class Meta:
        model = Observation
        fields = [
            "id",
            "event",
            "x",
            "y",
            "crs",
            "given",
            "quantity",
            "value_m",
            "tolerance_m",
            "observed_at",
            "source",
            "notes",
            "ui_url",
            "created_at",
            "updated_at",
        ]

    def get_given(self, observation: Observation) -> dict[str, Any]:
        return {"x": observation.given_x, "y": observation.given_y, "crs": observation.given_crs}


def comparison_detail(comparison: Comparison) -> dict[str, Any]:
    run = comparison.run
    return {
        "id": comparison.pk,
        "run": run.pk,
        "event": comparison.event_id,
        "event_name": comparison.event.name,
        "project": comparison.event.project_id,
        "crs": comparison.event.project.projection,
        "scenario": run.scenario_id,
        "scenario_name": run.scenario.name,
        "method": comparison.method,
        "computed_at": comparison.computed_at,
        "is_stale": comparison_is_stale(comparison=comparison),
        "metrics": comparison.metrics,
        "points": comparison.points,
        "ui_url": comparison_link(
            comparison.event.project, comparison=comparison.pk, run=run.pk, event=comparison.event_id
        ),
    }


def ranked_comparison(comparison: Comparison, *, rank: int) -> dict[str, Any]:
    run = comparison.run
    return {
        "rank": rank,
        "run": run.pk,
        "comparison": comparison.pk,
        "scenario": run.scenario_id,
        "scenario_name": run.scenario.name,
        "computed_at": comparison.computed_at,
        "is_stale": comparison_is_stale(comparison=comparison),
        "metrics": comparison.metrics,
        "ui_url": comparison_link(
            comparison.event.project, comparison=comparison.pk, run=run.pk, event=comparison.event_id
        ),
    }
