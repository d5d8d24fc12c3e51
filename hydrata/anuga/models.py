from django.conf import settings
from django.db import models

from hydrata_contract.inputs import InputKind, SeriesType
from hydrata_contract.projects import ProjectRole
from hydrata_contract.states import RunStatus, TerrainStatus


class Map(models.Model):
    """The map a project opens in the catalogue (GeoNode's base map)."""

    title = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.title


class Project(models.Model):
    name = models.CharField(max_length=200)
    projection = models.CharField(max_length=32, help_text="EPSG code of a projected CRS in metres, e.g. EPSG:28356.")
    is_public = models.BooleanField(default=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_projects")
    base_map = models.OneToOneField(Map, on_delete=models.PROTECT, related_name="project")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name


class ProjectMembership(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="project_memberships")
    role = models.CharField(max_length=10, choices=ProjectRole.choices())

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "user"], name="one_membership_per_user")]

    def __str__(self) -> str:
        return f"{self.user} is {self.role} of {self.project}"


class TerrainUpload(models.Model):
    """A staging slot handed out by presign: the only keys finalize accepts, bound to project and caller."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="terrain_uploads")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    staging_key = models.CharField(max_length=300, unique=True)
    process_id = models.UUIDField(unique=True)
    filename = models.CharField(max_length=200)
    content_type = models.CharField(max_length=100)
    declared_size = models.BigIntegerField(null=True, blank=True)
    expires_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)


class Terrain(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="terrains")
    upload = models.OneToOneField(
        TerrainUpload, on_delete=models.SET_NULL, null=True, blank=True, related_name="terrain"
    )
    title = models.CharField(max_length=200)
    status = models.CharField(max_length=10, choices=TerrainStatus.choices(), default=TerrainStatus.CREATING)
    error_message = models.TextField(blank=True)
    source_filename = models.CharField(max_length=200)
    source_key = models.CharField(max_length=300)
    dem_key = models.CharField(max_length=300, blank=True)
    hillshade_key = models.CharField(max_length=300, blank=True)
    native_crs = models.TextField(
        blank=True, help_text="The file's CRS: an EPSG code, else its WKT (a compound one runs to ~870 characters)."
    )
    crs = models.CharField(max_length=32, blank=True)
    reprojected = models.BooleanField(default=False)
    width = models.PositiveIntegerField(null=True, blank=True)
    height = models.PositiveIntegerField(null=True, blank=True)
    resolution_x = models.FloatField(null=True, blank=True)
    resolution_y = models.FloatField(null=True, blank=True)
    bbox_native = models.JSONField(null=True, blank=True)
    bbox_wgs84 = models.JSONField(null=True, blank=True)
    elevation_min = models.FloatField(null=True, blank=True)
    elevation_max = models.FloatField(null=True, blank=True)
    nodata_fraction = models.FloatField(null=True, blank=True)
    import_started_at = models.DateTimeField(
        null=True, blank=True, help_text="When a worker took the import (until then it waits on its queue)."
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status"])]

    def __str__(self) -> str:
        return f"{self.title} ({self.status})"


class InputLayer(models.Model):
    """An input row of a project: one kind of model input, optionally backed by an uploaded dataset."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="input_layers")
    kind = models.CharField(max_length=20, choices=InputKind.choices())
    title = models.CharField(max_length=200)
    is_default = models.BooleanField(default=False)
    dataset = models.ForeignKey(
        "uploads.Dataset", on_delete=models.SET_NULL, null=True, blank=True, related_name="input_layers"
    )
    feature_count = models.PositiveIntegerField(default=0)
    bbox_wgs84 = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["kind", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "kind"], condition=models.Q(is_default=True), name="one_default_input_per_kind"
            ),
        ]

    def __str__(self) -> str:
        return self.title


class TimeSeries(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="time_series")
    name = models.CharField(max_length=200)
    series_type = models.CharField(max_length=12, choices=SeriesType.choices())
    units = models.CharField(max_length=30)
    timezone = models.CharField(max_length=64, default="UTC")
    source = models.CharField(max_length=300, blank=True)
    location_name = models.CharField(max_length=200, blank=True)
    description = models.TextField(blank=True)
    rows = models.JSONField(help_text="[{timestamp (ISO 8601, UTC), value}], sorted by time")
    row_count = models.PositiveIntegerField()
    first_timestamp = models.DateTimeField()
    last_timestamp = models.DateTimeField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="time_series_name_unique_in_project")]
        verbose_name_plural = "time series"

    def __str__(self) -> str:
        return self.name


class Scenario(models.Model):
    """A terrain and input rows tied to a mesh resolution and a duration: what a run builds and computes."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="scenarios")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    terrain = models.ForeignKey(Terrain, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    boundary = models.ForeignKey(InputLayer, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    friction = models.ForeignKey(InputLayer, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    inflow = models.ForeignKey(InputLayer, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    rainfall = models.ForeignKey(InputLayer, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    structure = models.ForeignKey(InputLayer, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    breakline = models.ForeignKey(InputLayer, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    culvert = models.ForeignKey(InputLayer, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    weir = models.ForeignKey(InputLayer, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    mesh_region = models.ForeignKey(InputLayer, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    gauge = models.ForeignKey(InputLayer, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    flow_line = models.ForeignKey(InputLayer, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    initial_condition = models.ForeignKey(InputLayer, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    soil = models.ForeignKey(InputLayer, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    resolution = models.FloatField(help_text="Metres; the base mesh's maximum triangle area is resolution² / 2.")
    duration = models.PositiveIntegerField(help_text="Simulated seconds.")
    model_start = models.DateTimeField(null=True, blank=True)
    inundation_threshold_m = models.FloatField(
        default=0.05, help_text="Depth (m) above which a cell counts as inundated, for its time and duration."
    )
    latest_run_is_valid = models.BooleanField(default=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    INPUT_FIELDS = (
        "boundary",
        "friction",
        "inflow",
        "rainfall",
        "structure",
        "breakline",
        "culvert",
        "weir",
        "mesh_region",
        "gauge",
        "flow_line",
        "initial_condition",  # where the water starts
        "soil",  # what the ground takes
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name


class ScenarioApproval(models.Model):
    """A person signed off a scenario for a run, in the state its digest names; any later change leaves it stale."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="approvals")
    approved_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    approved_at = models.DateTimeField(auto_now_add=True)
    state_digest = models.CharField(max_length=64, help_text="SHA-256 of the scenario and its inputs when approved.")
    state_parts = models.JSONField(
        default=dict, blank=True, help_text="Each part of that state by name, with its hash: what changed since."
    )

    class Meta:
        ordering = ["-approved_at", "-id"]

    def __str__(self) -> str:
        return f"{self.scenario} approved by {self.approved_by}"


class Run(models.Model):
    """One build of a scenario into a runnable package and mesh, and later its simulation."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="runs")
    status = models.CharField(max_length=12, choices=RunStatus.choices(), default=RunStatus.CREATED)
    phase = models.CharField(max_length=32, blank=True)
    resolution = models.FloatField()
    duration = models.PositiveIntegerField()
    mesh_triangle_count_estimate = models.PositiveIntegerField(null=True, blank=True)
    mesh_triangle_count = models.PositiveIntegerField(null=True, blank=True)
    package_prefix = models.CharField(max_length=300, blank=True, help_text="Storage prefix of the built package.")
    package_sha256 = models.JSONField(
        default=dict,
        blank=True,
        help_text="Each file of the package the run ran (relative path: SHA-256), hashed once as it was written; "
        "empty for a run built before the platform kept them.",
    )
    state_digest = models.CharField(
        max_length=64,
        blank=True,
        help_text="The scenario's state digest (selectors/approvals.py) its package was built from; empty when "
        "the state changed while it was built. A start needs it to match the scenario as it is now.",
    )
    state_parts = models.JSONField(
        default=dict,
        blank=True,
        help_text="Each part of that state by name (selectors/approvals.py), with its hash: a stale message names "
        "the parts that changed since.",
    )
    error_message = models.TextField(blank=True, help_text="What went wrong, for the engineer and support.")
    user_message = models.TextField(blank=True, help_text="One sentence for the person, saying what to do.")
    log = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    build_started_at = models.DateTimeField(null=True, blank=True)
    build_finished_at = models.DateTimeField(null=True, blank=True)
    # The simulation
    compute_backend = models.CharField(max_length=10, blank=True)
    ranks = models.PositiveSmallIntegerField(default=1, help_text="MPI processes the mesh is split over.")
    start_after_build = models.BooleanField(default=False, help_text="A retry: queue the simulation once built.")
    retry_of = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="retries")
    progress_pct = models.FloatField(default=0)
    eta_seconds = models.FloatField(null=True, blank=True)
    sim_time = models.FloatField(null=True, blank=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    cancel_requested = models.BooleanField(default=False)
    worker_hostname = models.CharField(max_length=200, blank=True)
    child_pid = models.PositiveIntegerField(null=True, blank=True)
    external_job_id = models.CharField(
        max_length=64, blank=True, help_text="The cluster's id of the run's job (Slurm), while it is followed."
    )
    compute_cost = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    launched_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    launched_by_grant_id = models.PositiveIntegerField(
        null=True, blank=True, help_text="The agent grant that launched it, if any."
    )
    study_member = models.BooleanField(
        default=False,
        help_text="A design study's member (hydrata/studies): its scenario run with the member's storm for rain, from "
        "the package of the scenario's build; never the scenario's latest run.",
    )
    results_prefix = models.CharField(max_length=300, blank=True)
    statistics = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status"])]

    def __str__(self) -> str:
        return f"Run {self.pk} of {self.scenario} ({self.status})"
