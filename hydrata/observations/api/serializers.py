"""Input and output shapes of the observations API. Inputs parse; the services decide what is acceptable."""

from typing import Any

from rest_framework import serializers

from hydrata.anuga.selectors.links import comparison_link, event_link
from hydrata.core.links import MapLinkField
from hydrata.observations.models import Comparison, FloodEvent, Observation
from hydrata.observations.selectors import comparison_is_stale
from hydrata_contract.observations import Quantity

MAX_RANKED_RUNS = 20


def metres(**kwargs: Any) -> serializers.FloatField:
    return serializers.FloatField(error_messages={"invalid": "Give a finite number of metres, e.g. 12.35."}, **kwargs)


class EventInput(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(required=False, allow_null=True, default=None)
    description = serializers.CharField(required=False, allow_blank=True, default="")


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


class ObservationInput(serializers.Serializer):
    """Also the PATCH body (partial): then nothing is required and no default applies."""

    event = serializers.IntegerField(min_value=1)
    x = serializers.FloatField(error_messages={"invalid": "x must be a finite number (easting or longitude)."})
    y = serializers.FloatField(error_messages={"invalid": "y must be a finite number (northing or latitude)."})
    crs = serializers.CharField(required=False, allow_null=True, allow_blank=True, max_length=64, default=None)
    quantity = serializers.ChoiceField(choices=Quantity.choices())
    value_m = metres()
    tolerance_m = metres(default=0.3)
    observed_at = serializers.DateTimeField(required=False, allow_null=True, default=None)
    # DRF's metaclass takes declared fields off the class, so this does not shadow Field.source at runtime.
    source = serializers.CharField(  # type: ignore[assignment]
        required=False, allow_blank=True, max_length=300, default=""
    )
    notes = serializers.CharField(required=False, allow_blank=True, default="")


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


class ImportInput(serializers.Serializer):
    execution_id = serializers.CharField(max_length=64)
    quantity = serializers.ChoiceField(choices=Quantity.choices())
    value_property = serializers.CharField(max_length=200)
    tolerance_property = serializers.CharField(required=False, allow_null=True, max_length=200, default=None)


class CompareInput(serializers.Serializer):
    event = serializers.IntegerField(min_value=1)


class RankingInput(serializers.Serializer):
    event = serializers.IntegerField(min_value=1)
    runs = serializers.ListField(child=serializers.IntegerField(min_value=1), min_length=1, max_length=MAX_RANKED_RUNS)


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
