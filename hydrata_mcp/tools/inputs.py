import uuid
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from hydrata_contract import paths
from hydrata_contract.answers.inputs import InputLayer, InputLayerDetail, InputLayerPage, InputsByKind
from hydrata_contract.answers.uploads import ExecutionStatus
from hydrata_contract.inputs import InputKind
from hydrata_contract.requests.inputs import InputLayerAttach
from hydrata_contract.states import UPLOAD_DONE, UploadStatus
from hydrata_mcp.bodies import body
from hydrata_mcp.client import PlatformClient
from hydrata_mcp.handback import HandBack
from hydrata_mcp.polling import (
    DEFAULT_POLL_INTERVAL_SECONDS,
    DEFAULT_TIMEOUT_SECONDS,
    PollIntervalSeconds,
    TimeoutSeconds,
    queue_in_words,
    wait_for,
)
from hydrata_mcp.tools.arguments import ProjectId
from hydrata_mcp.tools.projections import Projection
from hydrata_mcp.tools.registry import tool
from hydrata_mcp.tools.scenarios import FORCING
from hydrata_mcp.tools.time_series import figure

Kind = Literal[
    "boundary",
    "friction",
    "inflow",
    "rainfall",
    "structure",
    "breakline",
    "culvert",
    "weir",
    "mesh_region",
    "gauge",
    "flow_line",
    "initial_condition",
    "soil",
]


class InputRow(
    Projection, of=InputLayer, fields=("id", "title", "is_default", "has_features", "feature_count", "bbox_wgs84")
):
    """An input row as list_inputs shows it: its `gn_layer` named `dataset`."""

    dataset: int | None = Field(description="The attached dataset's id (gn_layer), or null.")


class ProjectInputs(BaseModel):
    boundary: list[InputRow]
    friction: list[InputRow]
    inflow: list[InputRow]
    rainfall: list[InputRow]
    structure: list[InputRow]
    breakline: list[InputRow] = Field(default_factory=list)
    culvert: list[InputRow] = Field(default_factory=list)
    weir: list[InputRow] = Field(default_factory=list)
    mesh_region: list[InputRow]
    gauge: list[InputRow] = Field(default_factory=list, description="Points where a run records time series.")
    flow_line: list[InputRow] = Field(default_factory=list, description="Lines a run records discharge through.")
    initial_condition: list[InputRow] = Field(default_factory=list, description="Where the water starts.")
    soil: list[InputRow] = Field(default_factory=list, description="Rainfall losses by soil.")


class Attachment(HandBack):
    outcome: str = Field(
        description="attached, timed_out (call again with the same arguments), upload_failed, "
        "no_default_row or no_dataset."
    )
    kind: str
    row_id: int | None
    dataset_pk: int | None
    feature_count: int | None
    upload_log: str | None = Field(default=None, description="Why the upload failed, when it did.")
    polls: int
    elapsed_seconds: float


def input_row(row: InputLayer) -> InputRow:
    return InputRow.from_answer(row, dataset=row.gn_layer)


@tool(title="List input layers", read_only=True, idempotent=True)
async def list_inputs(ctx: Context, project_id: ProjectId) -> ProjectInputs:
    """List a project's input rows per kind: id, title, dataset, has_features, feature_count. Rows appear once
    the terrain is ready."""
    api = PlatformClient.for_context(ctx)
    grouped = InputsByKind.model_validate((await api.get(paths.INPUTS.url(project_id=project_id))).data)
    return ProjectInputs(**{kind: [input_row(row) for row in getattr(grouped, kind)] for kind in InputKind.values()})


@tool(
    title="Attach an input layer",
    relied_on=("outcome", "kind", "row_id", "dataset_pk", "feature_count"),
)
async def attach_input_layer(
    ctx: Context,
    project_id: ProjectId,
    kind: Annotated[Kind, Field(description="Which input the features are.")],
    execution_id: Annotated[uuid.UUID, Field(description="What the GeoJSON upload returned.")],
    timeout_seconds: TimeoutSeconds = DEFAULT_TIMEOUT_SECONDS,
    poll_interval_seconds: PollIntervalSeconds = DEFAULT_POLL_INTERVAL_SECONDS,
) -> Attachment:
    """Attach an imported GeoJSON upload to its kind's default row; outcome attached, timed_out, upload_failed,
    no_default_row or no_dataset. Properties: boundary lines, `boundary` Reflective, Transmissive,
    Dirichlet or DirichletZeroMomentum (`stage` m or series), NormalDepth (`slope`), `location` External/Internal;
    friction polygons, `mannings`; inflow lines, `type` Surface, `data` m3/s or series; rainfall polygons, `data`
    mm/hr or series; structure polygons, `method` Reflective, Raised (`height`) or Mannings (`mannings`); breakline
    lines; culvert lines inlet to outlet, `name`, `shape` box (`width`, `height`) or pipe (`diameter`), `barrels`,
    `manning`, `blockage` 0-1, `invert_elevations`; weir lines, `crest_elevation` or `height`; mesh_region
    polygons, `resolution`; gauge points, flow_line lines, unique `name`; initial_condition polygons, `stage` or
    `depth`; soil polygons, `initial_loss_mm`, `continuing_loss_mm_h`, `impervious_fraction`."""
    api = PlatformClient.for_context(ctx)
    rows_path = paths.INPUT_LAYERS[InputKind(kind)].url(project_id=project_id)
    # The rows first: the page carries the Inputs panel's link for every outcome, and its default row is the one
    # the upload attaches to (read again after the wait only if there was none yet).
    rows = InputLayerPage.model_validate((await api.get(rows_path)).data)
    panel_url = rows.ui_url

    async def read() -> ExecutionStatus:
        return ExecutionStatus.model_validate(
            (await api.get(paths.EXECUTION_STATUS.url(execution_id=str(execution_id)))).data
        )

    waited = await wait_for(
        ctx,
        read=read,
        finished=lambda e: e.status in UPLOAD_DONE,
        describe=lambda e: queue_in_words("upload's import", _place(e)) or f"upload {e.status}",
        timeout_seconds=timeout_seconds,
        poll_interval_seconds=poll_interval_seconds,
    )
    execution = waited.value
    common: dict[str, Any] = {"kind": kind, "polls": waited.polls, "elapsed_seconds": waited.elapsed_seconds}
    if not waited.finished:
        return Attachment(
            outcome="timed_out",
            row_id=None,
            dataset_pk=None,
            feature_count=None,
            ui_url=panel_url,
            summary={"upload": execution.status},
            say_to_user=queue_in_words("upload's import", _place(execution)) or "The upload is still being processed.",
            **common,
        )
    if execution.status == UploadStatus.FAILED:
        return Attachment(
            outcome="upload_failed",
            row_id=None,
            dataset_pk=None,
            feature_count=None,
            upload_log=execution.log,
            ui_url=panel_url,
            summary={},
            say_to_user=f"The {kind} upload was rejected: {execution.log}",
            **common,
        )
    resources = execution.output_params.resources
    if not resources:
        return Attachment(
            outcome="no_dataset",
            row_id=None,
            dataset_pk=None,
            feature_count=None,
            ui_url=panel_url,
            summary={},
            say_to_user="The upload finished but produced no dataset; upload the file again.",
            **common,
        )
    default = _default_row(rows) or _default_row(InputLayerPage.model_validate((await api.get(rows_path)).data))
    return await _attach(api, project_id, kind, default, resources[0].id, panel_url, common)


def _default_row(page: InputLayerPage) -> InputLayer | None:
    return next((row for row in page.results if row.is_default), None)


def _place(execution: ExecutionStatus) -> dict[str, Any] | None:
    return execution.queue.model_dump() if execution.queue else None


def layer_forcing_in_words(forcing: dict[str, Any]) -> str:
    """What a rainfall or inflow layer will apply, in the platform's numbers ('' for other kinds)."""
    said = ""
    constant = forcing.get("constant_features") or 0
    if forcing.get("rain_peak_intensity_mm_per_h") is not None:
        peak = figure(forcing["rain_peak_intensity_mm_per_h"])
        said = (
            f" Their series bring up to {figure(forcing['rain_total_depth_mm'])} mm of rain, at most {peak} mm/h."
            if forcing.get("rain_total_depth_mm") is not None
            else f" It rains at most {peak} mm/h, for the whole run."
        )
    elif forcing.get("inflow_peak_m3_per_s") is not None:
        peak = figure(forcing["inflow_peak_m3_per_s"])
        said = (
            f" Their series bring in {figure(forcing['inflow_volume_m3'])} m³, at most {peak} m³/s."
            if forcing.get("inflow_volume_m3") is not None
            else f" It flows at most {peak} m³/s, for the whole run."
        )
    if constant and ("series" in said):
        said += f" {constant} feature(s) apply a constant rate for the whole run."
    problems = forcing.get("problems") or []
    return said + (f" It cannot apply: {' '.join(problems[:3])}" if problems else "")


async def _attach(
    api: PlatformClient,
    project_id: int,
    kind: str,
    default: InputLayer | None,
    dataset_pk: int,
    panel_url: str,
    common: dict[str, Any],
) -> Attachment:
    if default is None:
        return Attachment(
            outcome="no_default_row",
            row_id=None,
            dataset_pk=dataset_pk,
            feature_count=None,
            ui_url=panel_url,
            summary={"dataset_pk": dataset_pk},
            say_to_user="The project has no input rows yet: they appear once its terrain is ready (see get_terrain).",
            **common,
        )
    patched = (
        await api.patch(
            paths.INPUT_LAYER_DETAIL[InputKind(kind)].url(project_id=project_id, layer_id=default.id),
            json=body(InputLayerAttach, gn_layer=dataset_pk),
        )
    ).data
    row = InputLayerDetail.model_validate(patched)
    link = row.ui_url
    forcing = row.forcing.model_dump() if row.forcing else {}
    return Attachment(
        outcome="attached",
        row_id=row.id,
        dataset_pk=dataset_pk,
        feature_count=row.feature_count,
        ui_url=link,
        summary={
            "row": row.title,
            "feature_count": row.feature_count,
            "bbox_wgs84": row.bbox_wgs84,
            **{name: forcing[name] for name in FORCING if forcing.get(name) is not None},
            **({"constant_features": forcing["constant_features"]} if forcing.get("constant_features") else {}),
            **({"forcing_problems": forcing["problems"]} if forcing.get("problems") else {}),
        },
        say_to_user=f"I attached {row.feature_count} {kind.replace('_', ' ')} feature(s) to {row.title}."
        f"{layer_forcing_in_words(forcing)} Check them in the map: {link}",
        **common,
    )
