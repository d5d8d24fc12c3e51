"""A design study made from a base scenario: its members and, before anything is spent, its estimate.

A study is counted from its inputs before any storm is built, and refused past its named limits (members, a
pattern's steps, all storms' steps). A member's storm is not stored: it is derived from the study's design inputs
and factors (`study_storms`), which cannot change under it (an input in use cannot be deleted, nor changed)."""

from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from hydrata.anuga.models import Project, Scenario
from hydrata.anuga.selectors.scenarios import scenario_geometry
from hydrata.compute.arr.ensemble import Factors, PlannedMember, ensemble, member_storm
from hydrata.compute.arr.ifd import aep_label
from hydrata.compute.arr.storm import DesignStorm
from hydrata.compute.costs.estimate import mesh_estimate
from hydrata.compute.costs.pricing import compute_cost_estimate, triangle_steps_estimate, vcpu_hours_estimate
from hydrata.compute.errors import ModelGeometryError
from hydrata.core.errors import Unprocessable, ValidationFailed
from hydrata.studies.models import DesignInput, DesignMember, DesignStudy
from hydrata.studies.selectors import ifd_table, storm_losses, temporal_patterns
from hydrata_contract.answers.studies import StudyEstimate
from hydrata_contract.errors import ErrorCode
from hydrata_contract.studies import CentralStatistic, DesignInputKind, RainBinding


@dataclass(frozen=True)
class StudyInputs:
    ifd: DesignInput
    temporal_patterns: DesignInput
    storm_losses: DesignInput | None


def design_study_create(
    *,
    project: Project,
    user: User,
    base_scenario: Scenario,
    name: str,
    inputs: StudyInputs,
    aeps: list[str],
    durations_min: list[int],
    areal_reduction_factor: float = 1.0,
    climate_factor: float = 1.0,
    initial_loss_mm: float | None = None,
    continuing_loss_mm_h: float | None = None,
    central_statistic: CentralStatistic = CentralStatistic.MEDIAN,
) -> DesignStudy:
    _check_kinds(inputs)
    aeps = list(dict.fromkeys(aep_label(aep) for aep in aeps))  # "1 %" and "1%*" are the table's "1%"
    losses = storm_losses(design_input=inputs.storm_losses) if inputs.storm_losses else None
    factors = Factors(
        areal_reduction_factor=areal_reduction_factor,
        climate_factor=climate_factor,
        initial_loss_mm=_given_or_read(initial_loss_mm, losses.initial_loss_mm if losses else None, "initial"),
        continuing_loss_mm_h=_given_or_read(
            continuing_loss_mm_h, losses.continuing_loss_mm_h if losses else None, "continuing"
        ),
    )
    planned, problems = ensemble(
        ifd=ifd_table(design_input=inputs.ifd),
        patterns=temporal_patterns(design_input=inputs.temporal_patterns),
        preburst=losses.preburst if losses else None,
        aeps=aeps,
        durations_min=durations_min,
        factors=factors,
    )
    if problems:
        raise ValidationFailed(
            f"The inputs cannot make every member: {'; '.join(problems[:10])}. Choose AEPs and durations the files "
            "have, or send files that have them.",
            code=ErrorCode.STUDY_INPUTS_MISMATCH,
            problems=problems,
        )
    _check_size(planned)
    simulated = {m.duration_min: max(base_scenario.duration, m.duration_min * 60) for m in planned}
    estimate = study_estimate(scenario=base_scenario, simulated_s=[simulated[m.duration_min] for m in planned])
    with transaction.atomic():
        study = DesignStudy.objects.create(
            project=project,
            base_scenario=base_scenario,
            name=name,
            ifd=inputs.ifd,
            temporal_patterns=inputs.temporal_patterns,
            storm_losses=inputs.storm_losses,
            aeps=aeps,
            durations_min=durations_min,
            areal_reduction_factor=areal_reduction_factor,
            climate_factor=climate_factor,
            initial_loss_mm=factors.initial_loss_mm,
            continuing_loss_mm_h=factors.continuing_loss_mm_h,
            central_statistic=central_statistic,
            rain_binding=RainBinding.RAINFALL_LAYER if base_scenario.rainfall_id else RainBinding.WHOLE_MODEL,
            rainfall_layer_id=base_scenario.rainfall_id,
            estimate=estimate.model_dump(mode="json"),
            created_by=user,
        )
        DesignMember.objects.bulk_create(
            [
                _member(study, member, member_storm(member, factors=factors), simulated[member.duration_min])
                for member in planned
            ],
            batch_size=500,
        )
    return study


def study_factors(study: DesignStudy) -> Factors:
    return Factors(
        areal_reduction_factor=study.areal_reduction_factor,
        climate_factor=study.climate_factor,
        initial_loss_mm=study.initial_loss_mm,
        continuing_loss_mm_h=study.continuing_loss_mm_h,
    )


def study_storms(*, study: DesignStudy) -> dict[tuple[str, int, int], DesignStorm]:
    """Each member's storm, by (AEP, duration, pattern), derived from the study's inputs and factors as they were
    when the study was made: its size was counted and bounded then."""
    losses = storm_losses(design_input=study.storm_losses) if study.storm_losses else None
    factors = study_factors(study)
    planned, _ = ensemble(
        ifd=ifd_table(design_input=study.ifd),
        patterns=temporal_patterns(design_input=study.temporal_patterns),
        preburst=losses.preburst if losses else None,
        aeps=list(study.aeps),
        durations_min=list(study.durations_min),
        factors=factors,
    )
    return {(m.aep, m.duration_min, m.pattern): member_storm(m, factors=factors) for m in planned}


def study_estimate(*, scenario: Scenario, simulated_s: list[int]) -> StudyEstimate:
    """The base scenario's mesh estimate priced for each member's simulated time, summed: a member is a run of it
    (a study's `estimate` column is written from it, and read back through it)."""
    priced = _priced(scenario, simulated_s)
    return StudyEstimate(
        members=len(simulated_s),
        mesh_triangle_count_estimate=priced.triangles,
        triangle_steps=round(sum(priced.steps)),
        vcpu_hours_estimate=round(sum(priced.hours), 4),
        compute_cost_estimate=str(sum(priced.prices, Decimal("0.00"))),
    )


def study_member_prices(*, scenario: Scenario, simulated_s: list[int]) -> list[Decimal]:
    """Each member's price as the estimate priced it: what starting the study charges, while the base is unchanged."""
    return _priced(scenario, simulated_s).prices


@dataclass(frozen=True)
class _Priced:
    triangles: int
    steps: list[float]
    hours: list[float]
    prices: list[Decimal]


def _priced(scenario: Scenario, simulated_s: list[int]) -> _Priced:
    try:
        geometry = scenario_geometry(scenario=scenario)
    except ModelGeometryError as problem:
        raise Unprocessable(
            f"The base scenario cannot be estimated, so neither can the study: {problem.message}",
            code=problem.code,
        ) from None
    mesh = mesh_estimate(ring=geometry.ring, regions=geometry.regions, resolution=scenario.resolution)
    triangles, finest = mesh.triangles, mesh.finest_resolution_m
    hours = [
        vcpu_hours_estimate(triangles=triangles, duration=seconds, finest_resolution=finest) for seconds in simulated_s
    ]
    rate = settings.HYDRATA_COMPUTE_USD_PER_VCPU_HOUR
    return _Priced(
        triangles=triangles,
        steps=[
            triangle_steps_estimate(triangles=triangles, duration=seconds, finest_resolution=finest)
            for seconds in simulated_s
        ],
        hours=hours,
        prices=[compute_cost_estimate(vcpu_hours=h, usd_per_vcpu_hour=rate) for h in hours],
    )


def _check_kinds(inputs: StudyInputs) -> None:
    expected = (
        ("ifd", inputs.ifd, DesignInputKind.IFD),
        ("temporal_patterns", inputs.temporal_patterns, DesignInputKind.TEMPORAL_PATTERNS),
        ("storm_losses", inputs.storm_losses, DesignInputKind.STORM_LOSSES),
    )
    for field, given, kind in expected:
        if given is not None and given.kind != kind:
            raise ValidationFailed(
                f"Design input {given.pk} is the {given.get_kind_display()}, not the {kind.label} this study "
                f"needs there: upload one of kind {kind.value} and give its id.",
                code=ErrorCode.DESIGN_INPUT_WRONG_KIND,
                field=field,
            )


def _given_or_read(given: float | None, read: float | None, which: str) -> float:
    if given is not None:
        return given
    if read is None:
        raise ValidationFailed(
            f"The study has no {which} loss: give initial_loss_mm and continuing_loss_mm_h, or a storm_losses input "
            "(the Data Hub's text output).",
            code=ErrorCode.STUDY_INPUTS_MISMATCH,
            field=f"{which}_loss",
        )
    return read


def _check_size(planned: list[PlannedMember]) -> None:
    """The study's size as the plan counts it, before any storm is built: its members, its longest pattern's time
    steps and all its storms' steps together, each refused past its limit (400, the limit and the count named)."""
    members, limit = len(planned), settings.HYDRATA_STUDY_MAX_MEMBERS
    if members > limit:
        raise ValidationFailed(
            f"The study would have {members:,} members; at most {limit:,} are allowed. Choose fewer AEPs or durations.",
            code=ErrorCode.STUDY_TOO_LARGE,
            members=members,
            max_members=limit,
        )
    longest = max(planned, key=lambda member: member.steps, default=None)
    limit = settings.HYDRATA_STUDY_MAX_PATTERN_STEPS
    if longest is not None and longest.steps > limit:
        raise ValidationFailed(
            f"Temporal pattern {longest.pattern} ({longest.duration_min} min in {longest.time_step_min}-minute steps) "
            f"has {longest.steps:,} time steps; a member's storm may have at most {limit:,}. Choose shorter "
            "durations, or send a patterns file with coarser time steps for them.",
            code=ErrorCode.STUDY_PATTERN_TOO_LONG,
            pattern=longest.pattern,
            duration_min=longest.duration_min,
            steps=longest.steps,
            max_pattern_steps=limit,
        )
    steps, limit = sum(member.steps for member in planned), settings.HYDRATA_STUDY_MAX_STORM_STEPS
    if steps > limit:
        raise ValidationFailed(
            f"The study's {members:,} storms would have {steps:,} time steps together; at most {limit:,} are "
            "allowed. Choose fewer AEPs or durations (the longest durations have the most steps), or split the "
            "study in two.",
            code=ErrorCode.STUDY_STORMS_TOO_LONG,
            members=members,
            storm_steps=steps,
            max_storm_steps=limit,
        )


def _member(study: DesignStudy, planned: PlannedMember, storm: DesignStorm, simulated_s: int) -> DesignMember:
    return DesignMember(
        study=study,
        aep=planned.aep,
        aep_bin=planned.aep_bin,
        duration_min=planned.duration_min,
        pattern=planned.pattern,
        time_step_min=storm.time_step_min,
        burst_initial_loss_mm=planned.burst_initial_loss_mm,
        rain_depth_mm=storm.rain_depth_mm,
        excess_depth_mm=storm.excess_depth_mm,
        peak_excess_mm_per_h=storm.peak_excess_mm_per_h,
        simulated_s=simulated_s,
    )
