"""Documentation serializers: the shapes of the answers the observations API builds as dicts, for the OpenAPI
schema only. Each mirrors the function or view named in its docstring."""

from typing import Any

from rest_framework import serializers

from hydrata.anuga.api.schemas import map_link
from hydrata.observations.api.serializers import EventOutput
from hydrata_contract.observations import Quantity


def free_form(**kwargs: Any) -> serializers.DictField:
    return serializers.DictField(child=serializers.JSONField(), **kwargs)


class EventList(serializers.Serializer):
    """EventListCreateView: every flood event of the project, not paginated."""

    results = EventOutput(many=True)


class ObservationImport(serializers.Serializer):
    """ObservationImportView."""

    event = serializers.IntegerField()
    imported = serializers.IntegerField()
    quantity = serializers.ChoiceField(choices=Quantity.choices())
    value_min = serializers.FloatField(allow_null=True)
    value_max = serializers.FloatField(allow_null=True)
    bbox_wgs84 = serializers.ListField(child=serializers.FloatField(), allow_null=True)
    observation_count = serializers.IntegerField()


class ComparisonDetail(serializers.Serializer):
    """comparison_detail."""

    id = serializers.IntegerField()
    run = serializers.IntegerField()
    event = serializers.IntegerField()
    event_name = serializers.CharField()
    project = serializers.IntegerField()
    crs = serializers.CharField(help_text="The project's CRS: the points' x and y are in it.")
    scenario = serializers.IntegerField()
    scenario_name = serializers.CharField()
    method = serializers.CharField()
    computed_at = serializers.DateTimeField()
    is_stale = serializers.BooleanField(help_text="The observations changed since; recompute.")
    metrics = free_form()
    points = serializers.ListField(child=free_form(), help_text="One row per observation, in observation order.")
    ui_url = map_link()


class RankedRun(serializers.Serializer):
    """comparisons._ranked."""

    rank = serializers.IntegerField()
    run = serializers.IntegerField()
    comparison = serializers.IntegerField()
    metrics = free_form()
    settings = free_form()


class Ranking(serializers.Serializer):
    """RankingView."""

    project = serializers.IntegerField()
    ui_url = map_link()
    event = serializers.IntegerField()
    event_name = serializers.CharField()
    differing = serializers.ListField(child=serializers.CharField(), help_text="Settings the runs do not share.")
    results = RankedRun(many=True)
