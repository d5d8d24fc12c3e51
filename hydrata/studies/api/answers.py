"""The studies' answers as the contract spells them (hydrata_contract/answers/studies.py), cut down for a public
reader by the public-reader policy every route follows (`Reader`, `published_face` in hydrata/anuga/api/base.py): a
caller who sees the project only because it is public reads a study's members, progress and envelopes, never its
price, its cost, its design inputs or what is derived from them, its sign-off, or a signed link; and only an agent
reading in full gets signed links (a person's session never does)."""

from typing import Any, TypeVar

from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone
from pydantic import BaseModel

from hydrata.anuga.api.base import published_face
from hydrata.anuga.selectors.links import project_link
from hydrata.anuga.selectors.projects import Reader
from hydrata.compute.scenario.series_units import MM_PER_INTERVAL
from hydrata.storage import get_storage
from hydrata.studies.models import DesignInput, DesignMember, DesignStudy
from hydrata.studies.selectors import study_approval_summary, study_link, study_progress, study_results
from hydrata_contract.answers.studies import (
    AepResults,
    DesignInputDetail,
    DesignMemberSummary,
    DesignStudyDetail,
    DesignStudySummary,
    StudyEstimate,
    StudyInputs,
    StudyLayer,
    StudyResults,
)
from hydrata_contract.links import Panel
from hydrata_contract.states import RunStatus
from hydrata_contract.studies import CentralStatistic, DesignInputKind, RainBinding, StoredLayer, StudyStatus

StudyAnswer = TypeVar("StudyAnswer", DesignStudySummary, DesignStudyDetail)

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


def as_built(model: BaseModel) -> dict[str, Any]:
    """A study's answer as the view sends it: its JSON form, with only the fields it was given (`sent`'s, less the
    keys a study's answer never had: a full reader's `reduced` and `withheld`, a layer's `url` when no link is
    signed, an AEP's `figures` in a study that predates them)."""
    return model.model_dump(mode="json", exclude_unset=True)


def design_input_answer(design_input: DesignInput) -> DesignInputDetail:
    return DesignInputDetail(
        id=design_input.pk,
        project=design_input.project_id,
        kind=DesignInputKind(design_input.kind),
        name=design_input.name,
        summary=design_input.summary,
        ui_url=project_link(design_input.project, Panel.TIME_SERIES),
        created_at=design_input.created_at,
    )


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


def design_study_answer(study: DesignStudy, *, reader: Reader) -> DesignStudySummary:
    summary = DesignStudySummary(
        id=study.pk,
        project=study.project_id,
        name=study.name,
        base_scenario=study.base_scenario_id,
        inputs=StudyInputs(
            ifd=study.ifd_id, temporal_patterns=study.temporal_patterns_id, storm_losses=study.storm_losses_id
        ),
        aeps=study.aeps,
        durations_min=study.durations_min,
        areal_reduction_factor=study.areal_reduction_factor,
        climate_factor=study.climate_factor,
        initial_loss_mm=study.initial_loss_mm,
        continuing_loss_mm_h=study.continuing_loss_mm_h,
        central_statistic=CentralStatistic(study.central_statistic),
        rain_binding=RainBinding(study.rain_binding),
        rainfall_layer=study.rainfall_layer_id,
        rain_units=MM_PER_INTERVAL,
        estimate=StudyEstimate.model_validate(study.estimate),
        status=StudyStatus(study.status),
        status_message=study.status_message,
        started_at=study.started_at,
        finished_at=study.finished_at,
        compute_cost=None if study.compute_cost is None else str(study.compute_cost),
        progress=study_progress(study=study, now=timezone.now()),
        ui_url=study_link(study),
        created_at=study.created_at,
    )
    return summary if reader.in_full else _public(summary)


def design_study_detail(study: DesignStudy, *, user: User, reader: Reader) -> DesignStudyDetail:
    members = study.members.select_related("run").only(*MEMBER_FIELDS, "run__status").order_by("id")
    summary = design_study_answer(study, reader=Reader(in_full=True, signed_links=reader.signed_links))
    detail = DesignStudyDetail(
        **{name: getattr(summary, name) for name in summary.model_fields_set},
        approval=study_approval_summary(study=study, user=user) if reader.in_full else None,
        members=[_member(member, in_full=reader.in_full) for member in members],
        results=_results(study, reader=reader),
        warnings=study_warnings(study),
    )
    return detail if reader.in_full else _public(detail)


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


def _public(answer: StudyAnswer) -> StudyAnswer:
    """The answer as a public reader reads it (published_face: the withheld fields keep their keys, empty)."""
    face = published_face(
        answer.model_dump(exclude_unset=True), keep=PUBLISHED_STUDY_FIELDS.__contains__, empty=WITHHELD_AS
    )
    return type(answer).model_validate(face)


def _member(member: DesignMember, *, in_full: bool) -> DesignMemberSummary:
    run = {"run": member.run_id, "run_status": RunStatus(member.run.status) if member.run else None}
    data = {**{name: getattr(member, name) for name in MEMBER_FIELDS}, **run}
    if not in_full:
        data = {key: data[key] if key in PUBLISHED_MEMBER_FIELDS else None for key in data}
    return DesignMemberSummary.model_validate(data)


def _results(study: DesignStudy, *, reader: Reader) -> StudyResults | None:
    """What the envelopes stored; each raster with a signed download link for an agent reading in full only. A public
    reader is not told why a member was left out (its run's error, withheld as a run's is)."""
    stored = study_results(study=study)
    if stored is None:
        return None
    storage, expiry = get_storage(), settings.HYDRATA_DOWNLOAD_URL_EXPIRY_SECONDS

    def layer_of(layer: StoredLayer) -> StudyLayer:
        if not reader.signed_links:
            return StudyLayer(name=layer.name, units=layer.units)
        filename = f"study-{study.pk}-{'-'.join(layer.key.split('/')[-2:])}"
        url = storage.presign_download(key=layer.key, expires_in=expiry, filename=filename)
        return StudyLayer(name=layer.name, units=layer.units, url=url)

    left_out = stored.members_left_out
    if not reader.in_full:
        left_out = [member.model_copy(update={"reason": ""}) for member in left_out]
    aeps = [
        AepResults.model_validate(
            {**aep.model_dump(exclude_unset=True), "layers": [layer_of(layer) for layer in aep.layers]}
        )
        for aep in stored.aeps
    ]
    return StudyResults.model_validate(
        {**stored.model_dump(exclude_unset=True), "members_left_out": left_out, "aeps": aeps}
    )
