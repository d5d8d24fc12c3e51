"""Input shapes of the studies API. Inputs parse; the services decide what is acceptable."""

from rest_framework import serializers

from hydrata_contract.studies import CentralStatistic, DesignInputKind

MAX_AEPS = 20
MAX_DURATIONS = 40


class DesignInputInput(serializers.Serializer):
    """A design-input file as multipart (`base_file`, as an upload sends it) or its text in JSON (`content`, as an
    agent sends it): exactly one of the two."""

    kind = serializers.ChoiceField(choices=DesignInputKind.choices())
    name = serializers.CharField(max_length=255, required=False, allow_blank=True, default="")
    base_file = serializers.FileField(required=False)
    content = serializers.CharField(required=False, trim_whitespace=False)

    def validate(self, attrs: dict) -> dict:
        if ("base_file" in attrs) == ("content" in attrs):
            raise serializers.ValidationError("Send the file as base_file (multipart) or its text as content, once.")
        return attrs


class DesignStudyInput(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    base_scenario = serializers.IntegerField(min_value=1)
    ifd = serializers.IntegerField(min_value=1, help_text="A design input of kind ifd.")
    temporal_patterns = serializers.IntegerField(min_value=1, help_text="A design input of kind temporal_patterns.")
    storm_losses = serializers.IntegerField(
        min_value=1, required=False, allow_null=True, default=None, help_text="A design input of kind storm_losses."
    )
    aeps = serializers.ListField(
        child=serializers.CharField(max_length=20), min_length=1, max_length=MAX_AEPS, help_text='e.g. ["1%"]'
    )
    durations_min = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=10080), min_length=1, max_length=MAX_DURATIONS
    )
    areal_reduction_factor = serializers.FloatField(min_value=0.01, max_value=1.0, default=1.0)
    climate_factor = serializers.FloatField(min_value=0.5, max_value=3.0, default=1.0)
    initial_loss_mm = serializers.FloatField(min_value=0, max_value=1000, required=False, allow_null=True, default=None)
    continuing_loss_mm_h = serializers.FloatField(
        min_value=0, max_value=200, required=False, allow_null=True, default=None
    )
    central_statistic = serializers.ChoiceField(choices=CentralStatistic.choices(), default=CentralStatistic.MEDIAN)

    def validate_aeps(self, value: list[str]) -> list[str]:
        return list(dict.fromkeys(value))

    def validate_durations_min(self, value: list[int]) -> list[int]:
        return sorted(set(value))
