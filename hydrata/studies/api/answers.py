"""The studies' answers as the contract spells them (hydrata_contract/answers/studies.py)."""

from typing import Any

from hydrata.anuga.selectors.links import project_link, scenario_link
from hydrata.compute.series_units import MM_PER_INTERVAL
from hydrata.studies.models import DesignInput, DesignMember, DesignStudy
from hydrata_contract.links import Panel

MEMBER_FIELDS = (
    "aep",
    "aep_bin",
    "duration_min",
    "pattern",
    "time_step_min",
    "burst_initial_loss_mm",
    "rain_depth_mm",
    "excess_depth_mm",
    "peak_excess_mm_per_h",
    "simulated_s",
)


def design_input_answer(design_input: DesignInput) -> dict[str, Any]:
    return {
        "id": design_input.pk,
        "project": design_input.project_id,
        "kind": design_input.kind,
        "name": design_input.name,
        "summary": design_input.summary,
        "ui_url": project_link(design_input.project, Panel.TIME_SERIES),
        "created_at": design_input.created_at,
    }


def design_study_answer(study: DesignStudy) -> dict[str, Any]:
    return {
        "id": study.pk,
        "project": study.project_id,
        "name": study.name,
        "base_scenario": study.base_scenario_id,
        "inputs": {
            "ifd": study.ifd_id,
            "temporal_patterns": study.temporal_patterns_id,
            "storm_losses": study.storm_losses_id,
        },
        "aeps": study.aeps,
        "durations_min": study.durations_min,
        "areal_reduction_factor": study.areal_reduction_factor,
        "climate_factor": study.climate_factor,
        "initial_loss_mm": study.initial_loss_mm,
        "continuing_loss_mm_h": study.continuing_loss_mm_h,
        "central_statistic": study.central_statistic,
        "rain_binding": study.rain_binding,
        "rainfall_layer": study.rainfall_layer_id,
        "rain_units": MM_PER_INTERVAL,
        "estimate": study.estimate,
        # The map's Study panel arrives with running studies; until then the base scenario is where they start.
        "ui_url": scenario_link(study.base_scenario),
        "created_at": study.created_at,
    }


def design_study_detail(study: DesignStudy) -> dict[str, Any]:
    members = study.members.only(*MEMBER_FIELDS).order_by("id")
    return {**design_study_answer(study), "members": [_member(member) for member in members]}


def _member(member: DesignMember) -> dict[str, Any]:
    return {name: getattr(member, name) for name in MEMBER_FIELDS}
