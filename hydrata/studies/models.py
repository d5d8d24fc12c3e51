from django.conf import settings
from django.db import models

from hydrata_contract.studies import CentralStatistic, DesignInputKind, RainBinding, StudyStatus


class DesignInput(models.Model):
    """A design-input file of a project (an IFD table, a region's temporal patterns, the Data Hub's losses), kept as
    what was read from it: a file that cannot be read is refused whole and leaves no row."""

    project = models.ForeignKey("anuga.Project", on_delete=models.CASCADE, related_name="design_inputs")
    kind = models.CharField(max_length=20, choices=DesignInputKind.choices())
    name = models.CharField(max_length=255, help_text="The file's name, or the name it was given.")
    content = models.JSONField(help_text="What the parser read (hydrata/compute/arr), in its own fields.")
    summary = models.JSONField(default=dict, help_text="What the file holds, for a person to check.")
    digest = models.CharField(
        max_length=64, blank=True, help_text="SHA-256 of what was read: a study's sign-off names it."
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.name}"


class DesignStudy(models.Model):
    """An ARR 2019 ensemble made from a base scenario: one member per AEP, duration and temporal pattern."""

    project = models.ForeignKey("anuga.Project", on_delete=models.CASCADE, related_name="design_studies")
    base_scenario = models.ForeignKey("anuga.Scenario", on_delete=models.PROTECT, related_name="design_studies")
    name = models.CharField(max_length=200)
    ifd = models.ForeignKey(DesignInput, on_delete=models.PROTECT, related_name="+")
    temporal_patterns = models.ForeignKey(DesignInput, on_delete=models.PROTECT, related_name="+")
    storm_losses = models.ForeignKey(DesignInput, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    aeps = models.JSONField(help_text='The IFD columns studied, e.g. ["10%", "1%"].')
    durations_min = models.JSONField(help_text="The storm durations studied, in minutes.")
    areal_reduction_factor = models.FloatField(default=1.0)
    climate_factor = models.FloatField(default=1.0, help_text="Multiplies the IFD depths (climate change).")
    initial_loss_mm = models.FloatField(help_text="The storm's initial loss, before any pre-burst is taken off.")
    continuing_loss_mm_h = models.FloatField()
    central_statistic = models.CharField(
        max_length=10, choices=CentralStatistic.choices(), default=CentralStatistic.MEDIAN
    )
    rain_binding = models.CharField(max_length=20, choices=RainBinding.choices())
    rainfall_layer = models.ForeignKey(
        "anuga.InputLayer",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The base scenario's rainfall layer when the study was made, whose polygons the storms fall on.",
    )
    estimate = models.JSONField(help_text="Members, triangles, triangle-steps, vCPU-hours and price, when made.")
    status = models.CharField(max_length=16, choices=StudyStatus.choices(), default=StudyStatus.DRAFT)
    status_message = models.TextField(blank=True, help_text="Why it ended as it did, for the person.")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    started_fingerprint = models.CharField(
        max_length=64,
        blank=True,
        help_text="The study's fingerprint when it started: what its members ran (blank for a draft, or a study "
        "started before it was kept). The sign-offs of it are the ones it ran under.",
    )
    started_state_parts = models.JSONField(
        null=True, blank=True, help_text="Each part of the fingerprint by name with its hash when it started."
    )
    sign_off_required_at_start = models.BooleanField(
        null=True, blank=True, help_text="Whether its start needed the account owner's sign-off (null before kept)."
    )
    compute_cost = models.DecimalField(
        max_digits=12, decimal_places=2, null=True, blank=True, help_text="What starting it charged: its members' sum."
    )
    results = models.JSONField(null=True, blank=True, help_text="Per AEP: the envelope rasters and the tables.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "design studies"
        constraints = [
            models.CheckConstraint(condition=models.Q(areal_reduction_factor__gt=0), name="arf_is_positive"),
            models.CheckConstraint(condition=models.Q(climate_factor__gt=0), name="climate_factor_is_positive"),
        ]

    def __str__(self) -> str:
        return self.name


class DesignMember(models.Model):
    """One storm of a study: its AEP, duration and pattern, and its storm's totals. The storm itself (the rain it
    applies per time step) is derived from the study's design inputs and factors (services/studies.py,
    `study_storms`), never stored per member."""

    study = models.ForeignKey(DesignStudy, on_delete=models.CASCADE, related_name="members")
    aep = models.CharField(max_length=20)
    aep_bin = models.CharField(max_length=12)
    duration_min = models.PositiveIntegerField()
    pattern = models.PositiveIntegerField(help_text="The temporal pattern's EventID in the Data Hub file.")
    time_step_min = models.PositiveIntegerField()
    burst_initial_loss_mm = models.FloatField(help_text="The storm's initial loss less its pre-burst depth.")
    rain_depth_mm = models.FloatField()
    excess_depth_mm = models.FloatField()
    peak_excess_mm_per_h = models.FloatField()
    simulated_s = models.PositiveIntegerField()
    run = models.OneToOneField(
        "anuga.Run",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="design_member",
        help_text="The member's current run: its first, or the retry of a first whose worker was lost.",
    )

    class Meta:
        ordering = ["study", "id"]
        constraints = [
            models.UniqueConstraint(fields=["study", "aep", "duration_min", "pattern"], name="one_member_per_storm")
        ]

    def __str__(self) -> str:
        return f"{self.aep} {self.duration_min} min pattern {self.pattern}"


class DesignStudyApproval(models.Model):
    """A person signed a study off for its runs, as its fingerprint names: every member's forcing and the base
    scenario's state. Any change to them leaves it stale."""

    study = models.ForeignKey(DesignStudy, on_delete=models.CASCADE, related_name="approvals")
    approved_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    approved_at = models.DateTimeField(auto_now_add=True)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of the study's forcing when approved.")

    class Meta:
        ordering = ["-approved_at", "-id"]

    def __str__(self) -> str:
        return f"{self.study} approved by {self.approved_by}"
