"""Documentation serializers: the shapes of the answers the anuga API builds as dicts, for the OpenAPI schema only.

Nothing serializes with these; each mirrors the function named in its docstring. Keep them in step with it: the
schema tests and the schemathesis fuzz check real answers against them.
"""

from typing import Any

from rest_framework import serializers

from hydrata.anuga.api.serializers import InputLayerOutput, ProjectOutput, TerrainOutput
from hydrata_contract.inputs import InputKind
from hydrata_contract.states import RunStatus


def numbers(**kwargs: Any) -> serializers.ListField:
    return serializers.ListField(child=serializers.FloatField(), **kwargs)


def positions(**kwargs: Any) -> serializers.ListField:
    """[[lon, lat], ...]"""
    return serializers.ListField(child=numbers(min_length=2, max_length=2), **kwargs)


def segments() -> serializers.ListField:
    """[[[lon, lat], [lon, lat]], ...]: each a straight line between two mesh nodes."""
    return serializers.ListField(child=positions(min_length=2, max_length=2))


def free_form(**kwargs: Any) -> serializers.DictField:
    return serializers.DictField(child=serializers.JSONField(), **kwargs)


def map_link() -> serializers.URLField:
    return serializers.URLField(help_text="Opens the project's map on this object; give it to the person.")


def run_status_field() -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=RunStatus.choices())


class Terrain(TerrainOutput):
    """TerrainOutput; a browser session's answer leaves out the signed hillshade link."""

    s3_hillshade_url = serializers.CharField(required=False, allow_null=True)  # type: ignore[assignment]  # doc only


class MapDetail(serializers.Serializer):
    """MapDetailView."""

    id = serializers.IntegerField()
    title = serializers.CharField()
    project = ProjectOutput()


class TerrainPresign(serializers.Serializer):
    """TerrainPresignView: PUT the file to upload_url with these headers, then finalize with staging_key."""

    upload_url = serializers.CharField()
    staging_key = serializers.CharField()
    process_id = serializers.UUIDField()
    expires_in = serializers.IntegerField(help_text="Seconds the upload URL stays valid.")
    method = serializers.ChoiceField(choices=["PUT"])
    headers = serializers.DictField(child=serializers.CharField())


class TerrainUpload(serializers.Serializer):
    """TerrainDirectUploadView's multipart form."""

    file = serializers.FileField(help_text="The GeoTIFF.")
    title = serializers.CharField(required=False, allow_blank=True)


class LegendStop(serializers.Serializer):
    value = serializers.FloatField()
    colour = serializers.CharField(help_text="#rrggbb")


class TileLayer(serializers.Serializer):
    """One entry of run_tile_layers / terrain_tile_layers."""

    name = serializers.CharField()
    title = serializers.CharField()
    units = serializers.CharField(allow_blank=True)
    tiles = serializers.CharField(help_text="The XYZ URL template, ending {z}/{x}/{y}.png.")
    legend = LegendStop(many=True)
    empty = serializers.BooleanField(required=False, help_text="Runs only: nothing got wet, every tile is clear.")


class TileLayers(serializers.Serializer):
    id = serializers.IntegerField()
    results = TileLayer(many=True)


class LayerForcingPart(serializers.Serializer):
    feature = serializers.CharField()
    data = serializers.JSONField(help_text="The feature's `data`: a number, or a time series name.")  # type: ignore[assignment]  # see TimeSeriesInput
    constant = serializers.FloatField(required=False, help_text="A constant rate, applied for the whole run.")
    total_depth_mm = serializers.FloatField(required=False)
    peak_intensity_mm_per_h = serializers.FloatField(required=False)
    volume_m3 = serializers.FloatField(required=False)
    peak_m3_per_s = serializers.FloatField(required=False)
    problem = serializers.CharField(required=False)


class LayerForcing(serializers.Serializer):
    """compute/forcing.py layer_forcing: what a rainfall or inflow row's features apply on their own."""

    features = LayerForcingPart(many=True)
    rain_total_depth_mm = serializers.FloatField(required=False, allow_null=True)
    rain_peak_intensity_mm_per_h = serializers.FloatField(required=False, allow_null=True)
    inflow_volume_m3 = serializers.FloatField(required=False, allow_null=True)
    inflow_peak_m3_per_s = serializers.FloatField(required=False, allow_null=True)
    constant_features = serializers.IntegerField()
    problems = serializers.ListField(child=serializers.CharField())


class InputLayerDetail(InputLayerOutput):
    forcing = LayerForcing(required=False, help_text="Rainfall and inflow rows only.")

    class Meta(InputLayerOutput.Meta):
        fields = [*InputLayerOutput.Meta.fields, "forcing"]


class InputsByKind(serializers.Serializer):
    """AllInputsView: every input row of the project under its kind."""

    def get_fields(self) -> dict[str, serializers.Field]:
        return {kind: InputLayerOutput(many=True) for kind in InputKind.values()}


class LayerFeatures(serializers.Serializer):
    """input_layer_features: a GeoJSON FeatureCollection in WGS84, with the row it came from."""

    type = serializers.ChoiceField(choices=["FeatureCollection"])
    kind = serializers.ChoiceField(choices=InputKind.choices())
    layer = serializers.IntegerField()
    feature_count = serializers.IntegerField()
    bbox_wgs84 = numbers(allow_null=True)
    features = serializers.ListField(child=free_form(), help_text="GeoJSON features.")


class MeshView(serializers.Serializer):
    triangle_count = serializers.IntegerField()
    truncated = serializers.BooleanField(help_text="More triangles than `limit` reach in: no edges; zoom in.")
    limit = serializers.IntegerField()
    edges = segments()


class ScenarioMesh(serializers.Serializer):
    """scenario_mesh: the built mesh's outline, and with ?bbox= the triangles' edges in that window."""

    scenario = serializers.IntegerField()
    run = serializers.IntegerField()
    current = serializers.BooleanField(help_text="Built from the scenario as it is now.")
    triangle_count = serializers.IntegerField()
    bbox_wgs84 = numbers(min_length=4, max_length=4)
    outline = segments()
    view = MeshView(required=False)


class ApprovalMark(serializers.Serializer):
    by = serializers.CharField()
    at = serializers.DateTimeField()


class Approval(serializers.Serializer):
    """approval_summary."""

    approved = serializers.BooleanField()
    approved_by_you = serializers.BooleanField()
    approvals = ApprovalMark(many=True)
    stale_approval = ApprovalMark(allow_null=True)
    required_for_your_agents = serializers.BooleanField()


class Withheld(serializers.Serializer):
    """What run_answer adds for a caller who sees the project only because it is public."""

    reduced = serializers.BooleanField(required=False)
    withheld = serializers.ListField(child=serializers.CharField(), required=False)


class RunCompact(Withheld):
    """run_compact."""

    id = serializers.IntegerField()
    status = run_status_field()
    error_message = serializers.CharField(allow_blank=True)
    user_message = serializers.CharField(allow_blank=True)
    mesh_triangle_count = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()


class BuiltRun(RunCompact):
    mesh_triangle_count_estimate = serializers.IntegerField(allow_null=True)


class ScenarioBuild(serializers.Serializer):
    """ScenarioBuildView."""

    run = BuiltRun()
    scenario = serializers.IntegerField()


class EstimatePart(serializers.Serializer):
    region = serializers.CharField(help_text='"base" or the mesh region\'s name.')
    area_m2 = serializers.FloatField()
    resolution_m = serializers.FloatField()
    max_triangle_area_m2 = serializers.FloatField()
    triangles = serializers.IntegerField()


class Problem(serializers.Serializer):
    code = serializers.CharField()
    detail = serializers.CharField()


class ScenarioSummary(serializers.Serializer):
    """One entry of the scenario list (scenarios._compact)."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    resolution = serializers.FloatField()
    duration = serializers.IntegerField()
    computed_status = run_status_field()
    latest_run = RunCompact(allow_null=True)
    latest_run_is_valid = serializers.BooleanField()
    ui_url = map_link()
    updated_at = serializers.DateTimeField()


class ScenarioPublic(serializers.Serializer):
    """scenario_public: a non-member's view of a public project's scenario."""

    id = serializers.IntegerField()
    project = serializers.IntegerField()
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    resolution = serializers.FloatField()
    duration = serializers.IntegerField()
    computed_status = run_status_field()
    ui_url = map_link()
    reduced = serializers.BooleanField()


class ForcingPart(serializers.Serializer):
    feature = serializers.CharField()
    data = serializers.JSONField(help_text="The feature's `data`: a number, or a time series name.")  # type: ignore[assignment]  # see TimeSeriesInput
    total_depth_mm = serializers.FloatField(required=False)
    peak_intensity_mm_per_h = serializers.FloatField(required=False)
    volume_m3 = serializers.FloatField(required=False)
    peak_m3_per_s = serializers.FloatField(required=False)
    problem = serializers.CharField(required=False, help_text="Why the model cannot apply this feature.")


class ForcingApplied(serializers.Serializer):
    """compute/forcing.py forcing_applied: what the rain and inflow apply over the run (0 to duration_s)."""

    duration_s = serializers.FloatField()
    rainfall = ForcingPart(many=True)
    inflow = ForcingPart(many=True)
    rain_total_depth_mm = serializers.FloatField(allow_null=True, help_text="The most rain any polygon gets.")
    rain_peak_intensity_mm_per_h = serializers.FloatField(allow_null=True)
    inflow_volume_m3 = serializers.FloatField(allow_null=True, help_text="All the inflow lines together.")
    inflow_peak_m3_per_s = serializers.FloatField(allow_null=True, help_text="The highest peak of any line.")
    problems = serializers.ListField(child=serializers.CharField())


class ScenarioDetail(serializers.Serializer):
    """scenario_detail."""

    id = serializers.IntegerField()
    project = serializers.IntegerField()
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    terrain = serializers.IntegerField(allow_null=True)
    boundary = serializers.IntegerField(allow_null=True)
    friction = serializers.IntegerField(allow_null=True)
    inflow = serializers.IntegerField(allow_null=True)
    rainfall = serializers.IntegerField(allow_null=True)
    structure = serializers.IntegerField(allow_null=True)
    mesh_region = serializers.IntegerField(allow_null=True)
    gauge = serializers.IntegerField(allow_null=True)
    flow_line = serializers.IntegerField(allow_null=True)
    resolution = serializers.FloatField()
    duration = serializers.IntegerField()
    model_start = serializers.DateTimeField(allow_null=True)
    inundation_threshold_m = serializers.FloatField()
    computed_status = run_status_field()
    latest_run = RunCompact(allow_null=True)
    latest_run_is_valid = serializers.BooleanField()
    mesh_triangle_count_estimate = serializers.IntegerField(allow_null=True)
    mesh_estimate_breakdown = EstimatePart(many=True)
    mesh_estimate_problem = Problem(allow_null=True, help_text="Why the geometry could not be estimated.")
    vcpu_hours_estimate = serializers.FloatField(allow_null=True)
    compute_cost_estimate = serializers.CharField(allow_null=True, help_text="A decimal amount in `currency`.")
    currency = serializers.CharField()
    forcing = ForcingApplied()
    approval = Approval()
    ui_url = map_link()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
