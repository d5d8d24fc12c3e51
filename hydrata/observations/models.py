from django.conf import settings
from django.db import models

from hydrata_contract.observations import Quantity


class FloodEvent(models.Model):
    """A historic flood of a project: what its observations were left by, and what a run is compared with."""

    project = models.ForeignKey("anuga.Project", on_delete=models.CASCADE, related_name="flood_events")
    name = models.CharField(max_length=200)
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    description = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-started_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(ended_at__isnull=True) | models.Q(ended_at__gte=models.F("started_at")),
                name="flood_event_ends_after_it_starts",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Observation(models.Model):
    """A high-water mark or gauge peak at a point. x and y are in the project CRS; given_* is what was sent."""

    event = models.ForeignKey(FloodEvent, on_delete=models.CASCADE, related_name="observations")
    x = models.FloatField(help_text="Easting in the project CRS.")
    y = models.FloatField(help_text="Northing in the project CRS.")
    given_x = models.FloatField()
    given_y = models.FloatField()
    given_crs = models.CharField(max_length=64, help_text="The CRS the point was given in, e.g. EPSG:4326.")
    quantity = models.CharField(max_length=10, choices=Quantity.choices())
    value_m = models.FloatField()
    tolerance_m = models.FloatField(default=0.3, help_text="How far the model may be off and still agree (m).")
    observed_at = models.DateTimeField(null=True, blank=True)
    source = models.CharField(max_length=300, blank=True)
    notes = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["event", "id"]
        constraints = [models.CheckConstraint(condition=models.Q(tolerance_m__gt=0), name="tolerance_is_positive")]

    def __str__(self) -> str:
        return f"{self.get_quantity_display()} {self.value_m} m at ({self.x:.1f}, {self.y:.1f})"


class Comparison(models.Model):
    """A run against the observations of one event, point by point, with the metrics; one per run and event."""

    run = models.ForeignKey("anuga.Run", on_delete=models.CASCADE, related_name="comparisons")
    event = models.ForeignKey(FloodEvent, on_delete=models.CASCADE, related_name="comparisons")
    method = models.CharField(max_length=32, help_text="How the modelled peak is read from the run's maxima.")
    points = models.JSONField(default=list, help_text="One row per observation, in observation order.")
    metrics = models.JSONField(default=dict)
    observations_fingerprint = models.CharField(
        max_length=64, help_text="Digest of the observations it was computed from; another digest now = stale."
    )
    computed_at = models.DateTimeField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-computed_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["run", "event"], name="one_comparison_per_run_and_event")]

    def __str__(self) -> str:
        return f"Run {self.run_id} against {self.event}"
