"""Documentation serializers: the shapes of the answers the anuga API builds as dicts, for the OpenAPI schema only.

Nothing serializes with these; each mirrors the function named in its docstring. Keep them in step with it: the
schema tests and the schemathesis fuzz check real answers against them.
"""

from typing import Any

from rest_framework import serializers

from hydrata.anuga.api.serializers import InputLayerOutput, ProjectOutput, TerrainOutput
from hydrata.anuga.models import InputKind, RunStatus


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


SERIES_KINDS = ["gauge", "flow_line", "point"]


def run_status_field() -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=RunStatus.choices)


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


class InputsByKind(serializers.Serializer):
    """AllInputsView: every input row of the project under its kind."""

    def get_fields(self) -> dict[str, serializers.Field]:
        return {kind: InputLayerOutput(many=True) for kind in InputKind.values}


class LayerFeatures(serializers.Serializer):
    """input_layer_features: a GeoJSON FeatureCollection in WGS84, with the row it came from."""

    type = serializers.ChoiceField(choices=["FeatureCollection"])
    kind = serializers.ChoiceField(choices=InputKind.choices)
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
    reduced = serializers.BooleanField()


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
    approval = Approval()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class ResultLayer(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    units = serializers.CharField()
    crs = serializers.CharField()
    format = serializers.CharField()


def result_layer() -> ResultLayer:
    return ResultLayer(required=False)


def signed_link() -> serializers.CharField:
    return serializers.CharField(required=False, help_text="A signed download link; agents only, members only.")


class ResultLayers(serializers.Serializer):
    """result_layers: each raster of a finished run (the last three only from runs that wrote them)."""

    gn_layer_max_depth = result_layer()
    gn_layer_max_speed = result_layer()
    gn_layer_max_stage = result_layer()
    gn_layer_max_hazard = result_layer()
    gn_layer_time_of_inundation = result_layer()
    gn_layer_duration_of_inundation = result_layer()
    s3_max_depth_url = signed_link()
    s3_max_speed_url = signed_link()
    s3_max_stage_url = signed_link()
    s3_max_hazard_url = signed_link()
    s3_time_of_inundation_url = signed_link()
    s3_duration_of_inundation_url = signed_link()
    s3_log_url = signed_link()
    s3_preview_url = signed_link()


class Where(serializers.Serializer):
    x = serializers.FloatField(help_text="Project CRS.")
    y = serializers.FloatField()
    t = serializers.FloatField(allow_null=True, help_text="Seconds from the run's start.")


class TimeStepFigures(serializers.Serializer):
    """Of the steps the model chose (a step cut short to land on a recording time is left out); `steps` counts all."""

    min = serializers.FloatField(allow_null=True, help_text="s")
    median = serializers.FloatField(allow_null=True, help_text="s")
    max = serializers.FloatField(allow_null=True, help_text="s")
    steps = serializers.IntegerField(help_text="Every internal step ANUGA took.")


class StepsLimitedBy(serializers.Serializer):
    courant = serializers.IntegerField(help_text="Steps set by one triangle's Courant (CFL) condition.")
    maximum_step = serializers.IntegerField(help_text="Steps capped at the largest step allowed.")
    recording_time = serializers.IntegerField(help_text="Steps cut short to land on a recording time.")


class LimitingTriangle(serializers.Serializer):
    triangle = serializers.IntegerField(help_text="Index in the mesh.")
    x = serializers.FloatField(help_text="Its centroid, project CRS.")
    y = serializers.FloatField()
    radius_m = serializers.FloatField(help_text="Its inscribed radius, which ANUGA's CFL condition uses.")
    steps = serializers.IntegerField(help_text="Steps it limited.")
    share = serializers.FloatField(help_text="Of all steps, 0-1.")


class PeakCourant(serializers.Serializer):
    value = serializers.FloatField(help_text="Step x the triangle's max wave speed / its inscribed radius.")
    triangle = serializers.IntegerField()
    x = serializers.FloatField()
    y = serializers.FloatField()
    t = serializers.FloatField(allow_null=True)


class Spike(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["speed", "depth"])
    triangle = serializers.IntegerField()
    x = serializers.FloatField()
    y = serializers.FloatField()
    t = serializers.FloatField(allow_null=True, help_text="The recording at the top (or bottom) of its spike.")
    jump = serializers.FloatField(help_text="m/s or m: the smaller of its jump away and its jump back.")


class Spikes(serializers.Serializer):
    speed_jump_threshold_m_s = serializers.FloatField()
    depth_jump_threshold_m = serializers.FloatField()
    speed_cells = serializers.IntegerField(
        help_text="Triangles whose speed jumped over the threshold away from a recording and back at the next."
    )
    depth_cells = serializers.IntegerField()
    largest_speed_jump_m_s = serializers.FloatField()
    largest_depth_jump_m = serializers.FloatField()
    worst = Spike(many=True, help_text="The largest few of each kind.")


class MassErrorSeries(serializers.Serializer):
    t = numbers()
    error_m3 = numbers()
    error_pct = serializers.ListField(child=serializers.FloatField(allow_null=True))


class MassError(serializers.Serializer):
    """Cumulative: stored now - at the start - what came in + what left, signed, as % of what came in."""

    healthy_line_pct = serializers.FloatField(help_text="±1: a healthy model stays within it.")
    final_m3 = serializers.FloatField()
    final_pct = serializers.FloatField(allow_null=True, help_text="Null when under 1 m³ came in.")
    largest_abs_pct = serializers.FloatField(allow_null=True)
    largest_at_t = serializers.FloatField(allow_null=True)
    series = MassErrorSeries(help_text="At most 50 recordings, the first and last among them.")


class ModelHealth(serializers.Serializer):
    """compute/health.py: health_report."""

    verdict = serializers.ChoiceField(choices=["healthy", "check", "unhealthy"])
    reasons = serializers.ListField(child=serializers.CharField(), help_text="One sentence per finding; [] if healthy.")
    timestep_s = TimeStepFigures()
    steps_limited_by = StepsLimitedBy()
    limiting_triangles = LimitingTriangle(many=True, help_text="Those that limited the most steps, most first.")
    cfl = serializers.FloatField(help_text="ANUGA's CFL number: a step is at most this Courant number.")
    peak_courant = PeakCourant(allow_null=True)
    spikes = Spikes()
    mass_error = MassError()


class RunStatistics(serializers.Serializer):
    """compute/run_statistics.py: run_statistics. Every key may be missing from a run written before it existed."""

    peak_depth_m = serializers.FloatField(required=False, allow_null=True)
    peak_speed_m_s = serializers.FloatField(required=False, allow_null=True)
    peak_stage_m = serializers.FloatField(required=False, allow_null=True)
    peak_depth_at = Where(required=False, allow_null=True)
    peak_speed_at = Where(required=False, allow_null=True)
    peak_stage_at = Where(required=False, allow_null=True)
    flooded_area_m2_by_depth_band = serializers.DictField(child=serializers.FloatField(), required=False)
    wet_area_m2 = serializers.FloatField(required=False)
    hazard_area_m2_by_class = serializers.DictField(child=serializers.FloatField(), required=False)
    inundation_threshold_m = serializers.FloatField(required=False)
    inundated_area_m2 = serializers.FloatField(required=False)
    volume_in_m3 = serializers.FloatField(required=False)
    volume_out_m3 = serializers.FloatField(required=False)
    final_volume_m3 = serializers.FloatField(required=False)
    boundary_net_inflow_m3 = serializers.FloatField(required=False)
    volume_balance = serializers.DictField(child=serializers.FloatField(allow_null=True), required=False)
    mass_balance_error_pct = serializers.FloatField(required=False, allow_null=True)
    warnings = serializers.ListField(child=serializers.CharField(), required=False)
    gauges = serializers.ListField(child=serializers.CharField(), required=False)
    flow_lines = serializers.ListField(child=serializers.CharField(), required=False)
    sim_seconds = serializers.FloatField(required=False)
    wall_seconds = serializers.FloatField(required=False)
    triangles = serializers.IntegerField(required=False)
    health = ModelHealth(required=False, allow_null=True, help_text="Is the model healthy? With the evidence.")


class RunState(Withheld):
    """run_status. A public reader's answer has the withheld fields null (see `withheld`)."""

    id = serializers.IntegerField()
    status = run_status_field()
    phase = serializers.CharField()
    progress_pct = serializers.FloatField()
    eta_seconds = serializers.FloatField(allow_null=True)
    error_message = serializers.CharField(allow_blank=True)
    user_message = serializers.CharField(allow_blank=True)
    compute_backend = serializers.CharField(allow_null=True)
    sim_time = serializers.FloatField(allow_null=True)
    duration = serializers.IntegerField()
    cancel_requested = serializers.BooleanField(allow_null=True)
    updated_at = serializers.DateTimeField()


class RunDetail(RunState, ResultLayers):
    """run_detail."""

    scenario = serializers.IntegerField()
    project = serializers.IntegerField()
    scenario_name = serializers.CharField()
    resolution = serializers.FloatField()
    mesh_triangle_count = serializers.IntegerField(allow_null=True)
    mesh_triangle_count_estimate = serializers.IntegerField(allow_null=True)
    compute_cost = serializers.CharField(allow_null=True, help_text="A decimal amount in `currency`.")
    currency = serializers.CharField()
    retry_of = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()
    build_started_at = serializers.DateTimeField(allow_null=True)
    build_finished_at = serializers.DateTimeField(allow_null=True)
    queued_at = serializers.DateTimeField(allow_null=True)
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    wall_seconds = serializers.FloatField(allow_null=True)
    log_tail = serializers.ListField(child=serializers.CharField(allow_blank=True))
    statistics = RunStatistics(allow_null=True)


class RunResults(Withheld, ResultLayers):
    """RunResultsView."""

    id = serializers.IntegerField()
    status = run_status_field()
    statistics = RunStatistics(allow_null=True)


class Picture(serializers.Serializer):
    mime_type = serializers.ChoiceField(choices=["image/png"])
    # DRF's metaclass takes declared fields off the class, so this does not shadow Serializer.data at run time.
    data = serializers.CharField(help_text="Base64.")  # type: ignore[assignment]


class RunPreview(Picture):
    id = serializers.IntegerField()


class SampledPoint(serializers.Serializer):
    """run_results.sample: null outside the mesh, and for the inundation times where it never got wet."""

    x = serializers.FloatField()
    y = serializers.FloatField()
    peak_depth = serializers.FloatField(allow_null=True)
    peak_stage = serializers.FloatField(allow_null=True)
    peak_speed = serializers.FloatField(allow_null=True)
    max_hazard = serializers.IntegerField(allow_null=True)
    time_of_inundation_s = serializers.FloatField(allow_null=True)
    duration_of_inundation_s = serializers.FloatField(allow_null=True)


class RunSample(serializers.Serializer):
    id = serializers.IntegerField()
    crs = serializers.CharField()
    points = SampledPoint(many=True)


def values_over_time() -> serializers.ListField:
    return serializers.ListField(child=serializers.FloatField(allow_null=True), required=False, allow_null=True)


class Series(serializers.Serializer):
    """run_time_series: a gauge (x, y, stage, depth, speed, xvel, yvel), a flow line (discharge) or a point (x, y,
    stage, depth, speed; null off the mesh), each value at the times `t`."""

    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=SERIES_KINDS)
    t = numbers()
    x = serializers.FloatField(required=False)
    y = serializers.FloatField(required=False)
    stage = values_over_time()
    depth = values_over_time()
    speed = values_over_time()
    xvel = values_over_time()
    yvel = values_over_time()
    discharge = values_over_time()


class RunTimeSeries(serializers.Serializer):
    id = serializers.IntegerField()
    crs = serializers.CharField()
    series = Series(many=True)
    chart = Picture()


class GaugeChange(serializers.Serializer):
    """compute/impact.py: gauge_changes."""

    name = serializers.CharField()
    run_peak_depth_m = serializers.FloatField(allow_null=True, help_text="The max-depth raster at the gauge.")
    other_peak_depth_m = serializers.FloatField(allow_null=True)
    change_m = serializers.FloatField(allow_null=True, help_text="other - run.")
    change_pct = serializers.FloatField(allow_null=True, help_text="Of the run's peak; null where it is under 1 cm.")


class RunImpact(serializers.Serializer):
    """RunImpactView: other - run on maximum depth and stage, and peak depth at each gauge both recorded."""

    id = serializers.IntegerField()
    project = serializers.IntegerField()
    scenario = serializers.IntegerField()
    run = serializers.IntegerField()
    other_run = serializers.IntegerField()
    statistics = free_form()
    run_resolution_m = serializers.FloatField()
    other_resolution_m = serializers.FloatField()
    gauges = GaugeChange(many=True, help_text="Same scenario, two resolutions: a mesh-convergence check.")
    gn_layer_impact_depth = ResultLayer()
    gn_layer_impact_stage = ResultLayer()
    s3_impact_depth_url = signed_link()
    s3_impact_stage_url = signed_link()
    image = Picture()
