"""The studies' answers as the contract spells them (hydrata_contract/answers/studies.py), cut down for a public
reader by the public-reader policy every route follows (`Reader`, `published_face` in hydrata/anuga/api/base.py): a
caller who sees the project only because it is public reads a study's members, progress and envelopes, never its
price, its cost, its design inputs or what is derived from them, its sign-off, or a signed link; and only an agent
reading in full gets signed links (a person's session never does)."""

from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone

from hydrata.anuga.api.base import published_face
from hydrata.anuga.selectors.links import project_link
from hydrata.anuga.selectors.projects import Reader
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


# What a public reader reads of a study and of each member (an allowlist: a new field is withheld until named).
PUBLISHED_STUDY_FIELDS = frozenset(
    {
        "id",
        "project",
        "name",
        "base_scenario",
        "aeps",
        "durations_min",
        "central_statistic",
        "rain_units",
        "status",
        "started_at",
        "finished_at",
        "progress",
        "ui_url",
        "created_at",
        "members",
        "results",
    }
)
PUBLISHED_MEMBER_FIELDS = frozenset({"aep", "aep_bin", "duration_min", "pattern", "simulated_s", "run", "run_status"})
WITHHELD_AS: dict[str, Any] = {"status_message": "", "warnings": []}


def design_study_answer(study: DesignStudy, *, reader: Reader) -> dict[str, Any]:
    data = {
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
    return data if reader.in_full else _public(data)


def design_study_detail(study: DesignStudy, *, user: User, reader: Reader) -> dict[str, Any]:
    members = study.members.select_related("run").only(*MEMBER_FIELDS, "run__status").order_by("id")
    data = {
        **design_study_answer(study, reader=Reader(in_full=True, signed_links=reader.signed_links)),
        "approval": study_approval_summary(study=study, user=user) if reader.in_full else None,
        "members": [_member(member, in_full=reader.in_full) for member in members],
        "results": _results(study, reader=reader),
        "warnings": study_warnings(study),
    }
    return data if reader.in_full else _public(data)


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


def _public(data: dict[str, Any]) -> dict[str, Any]:
    return published_face(data, keep=PUBLISHED_STUDY_FIELDS.__contains__, empty=WITHHELD_AS)


def _member(member: DesignMember, *, in_full: bool) -> dict[str, Any]:
    run = {"run": member.run_id, "run_status": member.run.status if member.run else None}
    data = {**{name: getattr(member, name) for name in MEMBER_FIELDS}, **run}
    return data if in_full else {key: data[key] if key in PUBLISHED_MEMBER_FIELDS else None for key in data}


def _results(study: DesignStudy, *, reader: Reader) -> dict[str, Any] | None:
    """What the envelopes stored; each raster with a signed download link for an agent reading in full only. A public
    reader is not told why a member was left out (its run's error, withheld as a run's is)."""
    if not study.results:
        return None
    storage, expiry = get_storage(), settings.HYDRATA_DOWNLOAD_URL_EXPIRY_SECONDS

    def layer_of(layer: dict[str, Any]) -> dict[str, Any]:
        shown = {"name": layer["name"], "units": layer["units"]}
        if reader.signed_links:
            filename = f"study-{study.pk}-{'-'.join(layer['key'].split('/')[-2:])}"
            shown["url"] = storage.presign_download(key=layer["key"], expires_in=expiry, filename=filename)
        return shown

    left_out = study.results["members_left_out"]
    if not reader.in_full:
        left_out = [{**member, "reason": ""} for member in left_out]
    return {
        **study.results,
        "members_left_out": left_out,
        "aeps": [{**aep, "layers": [layer_of(layer) for layer in aep["layers"]]} for aep in study.results["aeps"]],
    }
