"""Reads of design inputs and studies, always through a project the caller may see, and the inputs read back as
the parsers' types."""

from typing import Any

from django.db.models import QuerySet

from hydrata.anuga.models import Project
from hydrata.compute.arr.ifd import IfdTable
from hydrata.compute.arr.losses import PreBurst, StormLosses
from hydrata.compute.arr.patterns import TemporalPattern
from hydrata.core.errors import NotFound
from hydrata.studies.models import DesignInput, DesignStudy
from hydrata_contract.errors import ErrorCode


def design_inputs_of(*, project: Project) -> QuerySet[DesignInput]:
    return project.design_inputs.all()


def design_input_get(*, project: Project, input_id: int) -> DesignInput:
    found = design_inputs_of(project=project).filter(pk=input_id).first()
    if found is None:
        raise NotFound(f"Project {project.pk} has no design input {input_id}.", code=ErrorCode.DESIGN_INPUT_NOT_FOUND)
    return found


def design_studies_of(*, project: Project) -> QuerySet[DesignStudy]:
    return project.design_studies.select_related("base_scenario")


def design_study_get(*, project: Project, study_id: int) -> DesignStudy:
    found = design_studies_of(project=project).filter(pk=study_id).first()
    if found is None:
        raise NotFound(f"Project {project.pk} has no design study {study_id}.", code=ErrorCode.DESIGN_STUDY_NOT_FOUND)
    return found


def ifd_table(*, design_input: DesignInput) -> IfdTable:
    content: dict[str, Any] = design_input.content
    return IfdTable(
        aeps=tuple(content["aeps"]),
        durations_min=tuple(content["durations_min"]),
        depths_mm=tuple(tuple(row) for row in content["depths_mm"]),
    )


def temporal_patterns(*, design_input: DesignInput) -> list[TemporalPattern]:
    return [
        TemporalPattern(**{**pattern, "increments_pct": tuple(pattern["increments_pct"])})
        for pattern in design_input.content["patterns"]
    ]


def storm_losses(*, design_input: DesignInput) -> StormLosses:
    content: dict[str, Any] = design_input.content
    preburst = content.get("preburst")
    return StormLosses(
        initial_loss_mm=content["initial_loss_mm"],
        continuing_loss_mm_h=content["continuing_loss_mm_h"],
        preburst=PreBurst(
            aeps_pct=tuple(preburst["aeps_pct"]),
            durations_min=tuple(preburst["durations_min"]),
            depths_mm=tuple(tuple(row) for row in preburst["depths_mm"]),
        )
        if preburst
        else None,
    )
