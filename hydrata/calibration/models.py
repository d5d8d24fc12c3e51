from django.conf import settings
from django.db import models

from hydrata_contract.calibration import CalibrationMethod
from hydrata_contract.studies import StudyStatus


class CalibrationStudy(models.Model):
    """A search over a base scenario's parameters against a flood event's observations: an optimiser fitting them, or
    a Morris screen of the parameters' influence. Every member is a run of the base build with its own values."""

    project = models.ForeignKey("anuga.Project", on_delete=models.CASCADE, related_name="calibration_studies")
    base_scenario = models.ForeignKey("anuga.Scenario", on_delete=models.PROTECT, related_name="calibration_studies")
    event = models.ForeignKey("observations.FloodEvent", on_delete=models.PROTECT, related_name="calibration_studies")
    name = models.CharField(max_length=200)
    method = models.CharField(max_length=10, choices=CalibrationMethod.choices())
    parameters = models.JSONField(help_text="The parameters and their ranges (hydrata_contract CalibrationParameter).")
    budget = models.PositiveIntegerField(help_text="Members at most: what the start charges, and the search's limit.")
    members_planned = models.PositiveIntegerField(help_text="What it runs: the budget, or Morris's whole trajectories.")
    in_flight = models.PositiveSmallIntegerField(help_text="Members computing at once (the optimiser's batch).")
    seed = models.PositiveIntegerField(default=0)
    estimate = models.JSONField(help_text="Members, triangles, triangle-steps, vCPU-hours and price, when made.")
    status = models.CharField(max_length=16, choices=StudyStatus.choices(), default=StudyStatus.DRAFT)
    status_message = models.TextField(blank=True, help_text="Why it ended as it did, for the person.")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    started_fingerprint = models.CharField(max_length=64, blank=True, help_text="What it ran under, once started.")
    build = models.ForeignKey(
        "anuga.Run",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The base scenario's build when it started: every member runs it, whatever changes later.",
    )
    member_price = models.DecimalField(
        max_digits=12, decimal_places=2, null=True, blank=True, help_text="What each member was charged at the start."
    )
    launched_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    launched_by_grant_id = models.IntegerField(null=True, blank=True, help_text="The agent key that started it.")
    compute_cost = models.DecimalField(
        max_digits=12, decimal_places=2, null=True, blank=True, help_text="What its members cost, once ended."
    )
    results = models.JSONField(null=True, blank=True, help_text="The best fit, or the Morris ranking (contract).")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "calibration studies"

    def __str__(self) -> str:
        return self.name


class CalibrationMember(models.Model):
    """One member: its values (one per parameter, in the study's order), its run, and what it gave."""

    study = models.ForeignKey(CalibrationStudy, on_delete=models.CASCADE, related_name="members")
    index = models.PositiveIntegerField(help_text="Its place in the study: the order it was proposed or designed.")
    values = models.JSONField()
    run = models.OneToOneField(
        "anuga.Run", on_delete=models.SET_NULL, null=True, blank=True, related_name="calibration_member"
    )
    objective = models.FloatField(null=True, blank=True, help_text="RMSE (m) against the event's observations.")
    outputs = models.JSONField(null=True, blank=True, help_text="The peaks at each observation and the wet area.")
    told = models.BooleanField(default=False, help_text="Its run has ended and what it gave is read.")

    class Meta:
        ordering = ["study", "index"]
        constraints = [models.UniqueConstraint(fields=["study", "index"], name="one_calibration_member_per_index")]

    def __str__(self) -> str:
        return f"{self.study} member {self.index}"


class CalibrationApproval(models.Model):
    """A person signed the study off as its fingerprint names: its parameters, budget, event and base scenario."""

    study = models.ForeignKey(CalibrationStudy, on_delete=models.CASCADE, related_name="approvals")
    approved_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    approved_at = models.DateTimeField(auto_now_add=True)
    fingerprint = models.CharField(max_length=64)

    class Meta:
        ordering = ["-approved_at", "-id"]

    def __str__(self) -> str:
        return f"{self.study} approved by {self.approved_by}"
