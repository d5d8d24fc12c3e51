"""The studies' answers as the contract spells them (hydrata_contract/answers/studies.py)."""

from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone

from hydrata.anuga.selectors.links import project_link
from hydrata.compute.series_units import MM_PER_INTERVAL
from hydrata.storage import get_storage
from hydrata.studies.models import DesignInput, DesignMember, DesignStudy
from hydrata.studies.selectors import study_approval_summary, study_link, study_progress
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
        "status": study.status,
        "status_message": study.status_message,
        "started_at": study.started_at,
        "finished_at": study.finished_at,
        "compute_cost": None if study.compute_cost is None else str(study.compute_cost),
        "progress": study_progress(study=study, now=timezone.now()),
        "ui_url": study_link(study),
        "created_at": study.created_at,
    }


def design_study_detail(study: DesignStudy, *, user: User) -> dict[str, Any]:
    members = study.members.select_related("run").only(*MEMBER_FIELDS, "run__status").order_by("id")
    return {
        **design_study_answer(study),
        "approval": study_approval_summary(study=study, user=user),
        "members": [_member(member) for member in members],
        "results": _results(study),
        "warnings": study_warnings(study),
    }


def study_warnings(study: DesignStudy) -> list[str]:
    """What the study will not give as its base stands: without a gauge or a flow line, no ensemble table."""
    base = study.base_scenario
    if base.gauge_id is None and base.flow_line_id is None:
        return [
            f"Base scenario {base.pk} has no gauges or flow lines, so this study gives envelopes but no ensemble "
            "table (each duration's peaks at a gauge or across a flow line, its critical duration and representative "
            "pattern). Attach gauges or flow lines to the base and build it before starting, if you want them."
        ]
    return []


def _member(member: DesignMember) -> dict[str, Any]:
    run = {"run": member.run_id, "run_status": member.run.status if member.run else None}
    return {**{name: getattr(member, name) for name in MEMBER_FIELDS}, **run}


def _results(study: DesignStudy) -> dict[str, Any] | None:
    """What the envelopes stored, each raster with a signed download link."""
    if not study.results:
        return None
    storage, expiry = get_storage(), settings.HYDRATA_DOWNLOAD_URL_EXPIRY_SECONDS

    def linked(aep: dict[str, Any]) -> dict[str, Any]:
        layers = [
            {
                "name": layer["name"],
                "units": layer["units"],
                "url": storage.presign_download(
                    key=layer["key"],
                    expires_in=expiry,
                    filename=f"study-{study.pk}-{'-'.join(layer['key'].split('/')[-2:])}",
                ),
            }
            for layer in aep["layers"]
        ]
        return {**aep, "layers": layers}

    return {**study.results, "aeps": [linked(aep) for aep in study.results["aeps"]]}
