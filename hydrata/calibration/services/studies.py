"""A calibration study made from a base scenario that is built as it is now and a flood event with observations:
its parameters checked against the build (each named target must be there), its members counted and, before
anything is spent, priced. A Morris screen's members are designed now; an optimiser's are proposed as it runs."""

import json
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from hydrata.anuga.models import Project, Scenario
from hydrata.calibration.models import CalibrationMember, CalibrationStudy
from hydrata.compute.calibration import morris
from hydrata.compute.calibration.members import TargetMissing, check_targets
from hydrata.compute.spatial.geometry import boundary_ring
from hydrata.core.errors import ValidationFailed
from hydrata.observations.models import FloodEvent, Observation
from hydrata.storage import get_storage
from hydrata.studies.services.runs import BaseBuild, base_build
from hydrata.studies.services.studies import study_estimate
from hydrata_contract.calibration import CalibrationMethod, ParameterTarget
from hydrata_contract.errors import ErrorCode
from hydrata_contract.requests.calibration import CalibrationParameter


def calibration_study_create(
    *,
    project: Project,
    user: User,
    base_scenario: Scenario,
    event: FloodEvent,
    name: str,
    method: CalibrationMethod,
    parameters: list[CalibrationParameter],
    budget: int,
    in_flight: int,
    seed: int,
) -> CalibrationStudy:
    if not Observation.objects.filter(event=event).exists():
        raise ValidationFailed(
            f"Flood event {event.pk} has no observations: add some with create_observation or import_observations, "
            "then make the study.",
            code=ErrorCode.EVENT_HAS_NO_OBSERVATIONS,
        )
    targets_check(build=base_build(base_scenario), parameters=parameters)
    designed: list[tuple[float, ...]] = []
    if method == CalibrationMethod.MORRIS:
        trajectories = morris.trajectories_in(budget=budget, parameters=len(parameters))
        designed = morris.design(parameters=parameters, trajectories=trajectories, seed=seed)
    planned = len(designed) if designed else budget
    limit = settings.HYDRATA_STUDY_MAX_MEMBERS
    if planned > limit:
        raise ValidationFailed(
            f"The study would have {planned:,} members; at most {limit:,} are allowed. Give a smaller budget.",
            code=ErrorCode.STUDY_TOO_LARGE,
            members=planned,
            max_members=limit,
        )
    estimate = study_estimate(scenario=base_scenario, simulated_s=[base_scenario.duration] * planned)
    with transaction.atomic():
        study = CalibrationStudy.objects.create(
            project=project,
            base_scenario=base_scenario,
            event=event,
            name=name,
            method=method,
            parameters=[parameter.model_dump(mode="json") for parameter in parameters],
            budget=budget,
            members_planned=planned,
            in_flight=planned if method == CalibrationMethod.MORRIS else in_flight,
            seed=seed,
            estimate=estimate.model_dump(mode="json"),
            created_by=user,
        )
        CalibrationMember.objects.bulk_create(
            CalibrationMember(study=study, index=index, values=list(values)) for index, values in enumerate(designed)
        )
    return study


def build_layers(build: BaseBuild) -> dict[str, dict[str, Any] | None]:
    """The base build's layer of each kind a parameter can change (None where it has none)."""
    layers: dict[str, dict[str, Any] | None] = {}
    storage = get_storage()
    for kind in sorted({target.layer for target in ParameterTarget}):
        relative = build.manifest.get(kind)
        if not relative:
            layers[kind] = None
            continue
        with storage.open(key=f"{build.run.package_prefix}/{relative}") as stream:
            layers[kind] = json.load(stream)
    return layers


def build_extent(build: BaseBuild) -> tuple[float, float, float, float]:
    """The model's bounds as the build drew them: the ring of its own boundary layer (in the project's CRS, as the
    build wrote it), not the scenario's as it is now, which may have changed, or broken, since."""
    with get_storage().open(key=f"{build.run.package_prefix}/{build.manifest['boundary']}") as stream:
        features = json.load(stream).get("features") or []
    return boundary_ring(features).polygon().bounds


def build_series(build: BaseBuild) -> dict[str, dict[str, Any]]:
    """The base build's time series documents by name."""
    series = {}
    storage = get_storage()
    for name, relative in (build.manifest.get("time_series") or {}).items():
        with storage.open(key=f"{build.run.package_prefix}/{relative}") as stream:
            series[str(name)] = json.load(stream)
    return series


def targets_check(*, build: BaseBuild, parameters: list[CalibrationParameter]) -> None:
    try:
        check_targets(parameters=parameters, layers=build_layers(build))
    except TargetMissing as missing:
        raise ValidationFailed(
            f"{missing} Name a feature the base scenario has (attach_input_layer), or choose another target.",
            code=ErrorCode.CALIBRATION_TARGET_NOT_FOUND,
            field="parameters",
        ) from None
