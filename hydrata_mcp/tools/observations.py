import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from hydrata_contract import paths
from hydrata_contract.answers.observations import (
    FloodEventDetail,
    FloodEventList,
    ObservationDetail,
    ObservationImport,
    ObservationPage,
)
from hydrata_contract.answers.uploads import ExecutionStatus
from hydrata_contract.observations import Quantity
from hydrata_contract.requests.observations import (
    FloodEventCreate,
    ObservationChanges,
    ObservationCreate,
    ObservationsImport,
)
from hydrata_contract.states import UPLOAD_DONE, UploadStatus
from hydrata_mcp.bodies import body
from hydrata_mcp.client import PlatformClient
from hydrata_mcp.handback import HandBack
from hydrata_mcp.pagination import page_numbers
from hydrata_mcp.polling import (
    DEFAULT_POLL_INTERVAL_SECONDS,
    DEFAULT_TIMEOUT_SECONDS,
    PollIntervalSeconds,
    TimeoutSeconds,
    queue_in_words,
    wait_for,
)
from hydrata_mcp.tools.arguments import Page, PageSize, ProjectId
from hydrata_mcp.tools.projections import Projection
from hydrata_mcp.tools.registry import tool

EventId = Annotated[int, Field(ge=1, description="From list_observations.")]
ObservationId = Annotated[int, Field(ge=1, description="From list_observations.")]
QuantityArg = Annotated[
    Literal[Quantity.PEAK_STAGE, Quantity.PEAK_DEPTH],
    Field(description="peak_stage: highest level (m, datum); peak_depth: deepest water (m)."),
]
Coordinate = Annotated[float, Field(allow_inf_nan=False)]
Metres = Annotated[float, Field(allow_inf_nan=False, description="Metres.")]
Crs = Annotated[str | None, Field(max_length=64, description="CRS of x and y, e.g. EPSG:4326; default the project's.")]
Notes = Annotated[str, Field(description="Free text.")]
Source = Annotated[str, Field(max_length=300, description="Who or what recorded it.")]
ObservedAt = Annotated[datetime | None, Field(description="When it was seen, ISO 8601.")]


class FloodEvent(
    Projection,
    of=FloodEventDetail,
    fields=("id", "name", "started_at", "ended_at", "description", "observation_count"),
):
    pass


class Observation(
    Projection,
    of=ObservationDetail,
    fields=(
        *("id", "event", "x", "y", "crs", "given", "quantity", "value_m", "tolerance_m", "observed_at", "source"),
        "notes",
    ),
):
    pass


class ObservationList(BaseModel):
    events: list[FloodEvent] = Field(description="Every flood event of the project.")
    count: int = Field(description="How many observations match in all.")
    next_page: int | None
    previous_page: int | None
    observations: list[Observation]


class CreatedEvent(FloodEvent, HandBack):
    pass


class ChangedObservation(Observation, HandBack):
    pass


class DeletedObservation(HandBack, Projection, of=ObservationDetail, fields=("id", "event")):
    deleted: bool


class ImportedObservations(HandBack):
    outcome: str = Field(
        description="imported, timed_out (call again with the same arguments), upload_failed or no_dataset."
    )
    event_id: int
    imported: int = Field(description="Observations created by this call.")
    observation_count: int | None = Field(description="The event's observations after the import.")
    upload_log: str | None = Field(default=None, description="Why the upload failed, when it did.")
    polls: int
    elapsed_seconds: float


def _place(execution: ExecutionStatus) -> dict[str, Any] | None:
    return execution.queue.model_dump() if execution.queue else None


def _observation_summary(observation: ObservationDetail) -> dict[str, Any]:
    return {
        "observation_id": observation.id,
        "event_id": observation.event,
        "quantity": observation.quantity,
        "value_m": observation.value_m,
        "tolerance_m": observation.tolerance_m,
        "x": observation.x,
        "y": observation.y,
        "crs": observation.crs,
    }


def _changed(data: dict[str, Any], verb: str) -> ChangedObservation:
    observation = ObservationDetail.model_validate(data)
    link = observation.ui_url
    return ChangedObservation.from_answer(
        observation,
        summary=_observation_summary(observation),
        say_to_user=f"I {verb} observation {observation.id}: {observation.quantity.replace('_', ' ')} "
        f"{observation.value_m} m ± {observation.tolerance_m} m at ({observation.x:.1f}, "
        f"{observation.y:.1f}) {observation.crs}. See it on the map: {link}",
    )


@tool(title="List flood observations", read_only=True, idempotent=True)
async def list_observations(
    ctx: Context,
    project_id: ProjectId,
    event_id: Annotated[int | None, Field(ge=1, description="Only this flood event's observations.")] = None,
    page: Page = 1,
    page_size: PageSize = 100,
) -> ObservationList:
    """List a project's flood events and their observations (high-water marks, gauge peaks)."""
    api = PlatformClient.for_context(ctx)
    params: dict[str, Any] = {"page": page, "page_size": page_size}
    if event_id is not None:
        params["event"] = event_id
    events = FloodEventList.model_validate((await api.get(paths.EVENTS.url(project_id=project_id))).data)
    data = (await api.get(paths.OBSERVATIONS.url(project_id=project_id), params=params)).data
    return ObservationList(
        events=[FloodEvent.from_answer(event) for event in events.results],
        **page_numbers(data),
        observations=[Observation.from_answer(o) for o in ObservationPage.model_validate(data).results],
    )


@tool(title="Record a flood event", relied_on=("id",))
async def create_flood_event(
    ctx: Context,
    project_id: ProjectId,
    name: Annotated[str, Field(min_length=1, max_length=200, description="e.g. March 2022 flood.")],
    started_at: Annotated[datetime, Field(description="ISO 8601, e.g. 2022-03-01T00:00:00Z.")],
    ended_at: Annotated[datetime | None, Field(description="ISO 8601; leave out if unknown.")] = None,
    description: Notes = "",
) -> CreatedEvent:
    """Record a historic flood: the event observations belong to and runs are compared with."""
    api = PlatformClient.for_context(ctx)
    data = (
        await api.post(
            paths.EVENTS.url(project_id=project_id),
            json=body(FloodEventCreate, name=name, started_at=started_at, ended_at=ended_at, description=description),
        )
    ).data
    event = FloodEventDetail.model_validate(data)
    link = event.ui_url
    return CreatedEvent.from_answer(
        event,
        summary={
            "event_id": event.id,
            "name": event.name,
            "started_at": event.started_at.isoformat(),
            "ended_at": event.ended_at.isoformat() if event.ended_at else None,
        },
        say_to_user=f"I recorded the flood event '{event.name}' (from {event.started_at:%Y-%m-%d}); add its "
        f"observations next. See it here: {link}",
    )


@tool(title="Record an observation", relied_on=("id",))
async def create_observation(
    ctx: Context,
    project_id: ProjectId,
    event_id: EventId,
    x: Annotated[Coordinate, Field(description="Easting, or longitude.")],
    y: Annotated[Coordinate, Field(description="Northing, or latitude.")],
    value_m: Annotated[Metres, Field(description="The observed peak, m: a level or a depth, as quantity says.")],
    quantity: QuantityArg = Quantity.PEAK_STAGE,
    crs: Crs = None,
    tolerance_m: Annotated[Metres, Field(description="How far off the model may be and still agree (m, > 0).")] = 0.3,
    observed_at: ObservedAt = None,
    source: Source = "",
    notes: Notes = "",
) -> ChangedObservation:
    """Record a flood event's high-water mark or gauge peak at a point (refused off the terrain)."""
    api = PlatformClient.for_context(ctx)
    data = (
        await api.post(
            paths.OBSERVATIONS.url(project_id=project_id),
            json=body(
                ObservationCreate,
                event=event_id,
                x=x,
                y=y,
                crs=crs,
                quantity=quantity,
                value_m=value_m,
                tolerance_m=tolerance_m,
                observed_at=observed_at,
                source=source,
                notes=notes,
            ),
        )
    ).data
    return _changed(data, "recorded")


@tool(title="Import observations", relied_on=("outcome", "imported", "observation_count"))
async def import_observations(
    ctx: Context,
    project_id: ProjectId,
    event_id: EventId,
    execution_id: Annotated[uuid.UUID, Field(description="What the GeoJSON upload returned.")],
    quantity: QuantityArg,
    value_property: Annotated[
        str, Field(min_length=1, max_length=200, description="The feature property holding each value, m.")
    ],
    tolerance_property: Annotated[
        str | None, Field(max_length=200, description="The property holding each tolerance, m; default 0.3 each.")
    ] = None,
    timeout_seconds: TimeoutSeconds = DEFAULT_TIMEOUT_SECONDS,
    poll_interval_seconds: PollIntervalSeconds = DEFAULT_POLL_INTERVAL_SECONDS,
) -> ImportedObservations:
    """Wait for a GeoJSON upload of points, then add each as an observation of the event, all or nothing;
    outcome imported, timed_out, upload_failed or no_dataset."""
    api = PlatformClient.for_context(ctx)
    # The event first: an unknown one is refused before any wait, and its answer holds the map link.
    link = FloodEventDetail.model_validate(
        (await api.get(paths.EVENT_DETAIL.url(project_id=project_id, event_id=event_id))).data
    ).ui_url

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
    common: dict[str, Any] = {
        "event_id": event_id,
        "polls": waited.polls,
        "elapsed_seconds": waited.elapsed_seconds,
        "ui_url": link,
    }
    if not waited.finished:
        return ImportedObservations(
            outcome="timed_out",
            imported=0,
            observation_count=None,
            summary={"upload": execution.status},
            say_to_user=queue_in_words("upload's import", _place(execution)) or "The upload is still being processed.",
            **common,
        )
    if execution.status == UploadStatus.FAILED:
        log = execution.log
        return ImportedObservations(
            outcome="upload_failed",
            imported=0,
            observation_count=None,
            upload_log=log,
            summary={},
            say_to_user=f"The observations file was rejected: {log}",
            **common,
        )
    if not execution.output_params.resources:
        return ImportedObservations(
            outcome="no_dataset",
            imported=0,
            observation_count=None,
            summary={},
            say_to_user="The upload finished but produced no dataset; upload the file again.",
            **common,
        )
    answer = (
        await api.post(
            paths.OBSERVATIONS_IMPORT.url(project_id=project_id, event_id=event_id),
            json=body(
                ObservationsImport,
                execution_id=str(execution_id),
                quantity=quantity,
                value_property=value_property,
                tolerance_property=tolerance_property,
            ),
        )
    ).data
    imported = ObservationImport.model_validate(answer)
    return ImportedObservations(
        outcome="imported",
        imported=imported.imported,
        observation_count=imported.observation_count,
        summary={
            "imported": imported.imported,
            "quantity": quantity,
            "value_min": imported.value_min,
            "value_max": imported.value_max,
            "bbox_wgs84": imported.bbox_wgs84,
            "observation_count": imported.observation_count,
        },
        say_to_user=f"I imported {imported.imported} {quantity.replace('_', ' ')} observation(s), "
        f"{imported.value_min} to {imported.value_max} m; check them on the map: {link}",
        **common,
    )


@tool(title="Change an observation", idempotent=True, relied_on=("id",))
async def update_observation(
    ctx: Context,
    project_id: ProjectId,
    observation_id: ObservationId,
    event_id: Annotated[int | None, Field(ge=1, description="Move it to another event of the project.")] = None,
    x: Annotated[Coordinate | None, Field(description="A move gives x and y together.")] = None,
    y: Annotated[Coordinate | None, Field(description="Northing, or latitude.")] = None,
    crs: Crs = None,
    quantity: QuantityArg | None = None,
    value_m: Metres | None = None,
    tolerance_m: Metres | None = None,
    observed_at: ObservedAt = None,
    source: Source | None = None,
    notes: Notes | None = None,
) -> ChangedObservation:
    """Change an observation's fields (only those given); earlier comparisons say they are stale until
    recompute_comparison."""
    changes = {
        "event": event_id,
        "x": x,
        "y": y,
        "crs": crs,
        "quantity": quantity,
        "value_m": value_m,
        "tolerance_m": tolerance_m,
        "observed_at": observed_at,
        "source": source,
        "notes": notes,
    }
    given = {name: value for name, value in changes.items() if value is not None}
    if not given:
        raise ToolError("Nothing to change: give at least one field, e.g. value_m.")
    api = PlatformClient.for_context(ctx)
    path = paths.OBSERVATION_DETAIL.url(project_id=project_id, observation_id=observation_id)
    data = (await api.patch(path, json=body(ObservationChanges, **given))).data
    return _changed(data, "updated")


@tool(title="Delete an observation", destructive=True, idempotent=True, relied_on=("id", "deleted"))
async def delete_observation(ctx: Context, project_id: ProjectId, observation_id: ObservationId) -> DeletedObservation:
    """Delete an observation for good; earlier comparisons say they are stale until recompute_comparison."""
    api = PlatformClient.for_context(ctx)
    path = paths.OBSERVATION_DETAIL.url(project_id=project_id, observation_id=observation_id)
    observation = ObservationDetail.model_validate((await api.get(path)).data)
    await api.request("DELETE", path)
    link = observation.ui_url
    return DeletedObservation.from_answer(
        observation,
        deleted=True,
        summary={"deleted": _observation_summary(observation)},
        say_to_user=f"I deleted observation {observation.id} ({observation.quantity.replace('_', ' ')} "
        f"{observation.value_m} m). See the event here: {link}",
    )
