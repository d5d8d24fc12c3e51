from typing import Annotated, Any

from pydantic import Field

from hydrata_contract.errors import ErrorCode
from hydrata_contract.requests.base import (
    DESCRIPTION_MAX_LENGTH,
    MAX_ID,
    NAME_MAX_LENGTH,
    Body,
    Changes,
    Instant,
    description_field,
    name_field,
    unchanged,
)

MIN_RESOLUTION_M, MAX_RESOLUTION_M = 0.1, 1000.0
MAX_DURATION_S = 30 * 24 * 3600
MAX_INUNDATION_THRESHOLD_M = 10.0

RESOLUTION = "Metres; the base mesh's largest triangle has an area of resolution² / 2."
DURATION = "Simulated time in seconds."
MODEL_START = "The date and time of simulated time 0 (ISO 8601; without an offset, UTC), or null."
THRESHOLD = "Depth (m) above which a cell counts as inundated, for its time and duration."
Resolution = Annotated[float, Field(ge=MIN_RESOLUTION_M, le=MAX_RESOLUTION_M)]
Duration = Annotated[int, Field(ge=1, le=MAX_DURATION_S)]
Threshold = Annotated[float, Field(gt=0, le=MAX_INUNDATION_THRESHOLD_M)]
CODES = {
    "resolution": ErrorCode.INVALID_RESOLUTION,
    "duration": ErrorCode.INVALID_DURATION,
    "inundation_threshold_m": ErrorCode.INVALID_INUNDATION_THRESHOLD,
}


def reference(what: str) -> Any:
    return Field(
        None,
        ge=1,
        le=MAX_ID,
        description=f"The {what} to use (its id in this project). Left out: the project's default; null: none.",
    )


class ScenarioCreate(Body):
    refusal_codes = CODES

    name: str = name_field("scenario")
    description: str = description_field()
    resolution: Resolution = Field(description=RESOLUTION)
    duration: Duration = Field(description=DURATION)
    model_start: Instant | None = Field(None, description=MODEL_START)
    inundation_threshold_m: Threshold = unchanged(f"{THRESHOLD} Left out: the platform's default.")
    terrain: int | None = reference("terrain (a ready one)")
    boundary: int | None = reference("boundary row")
    friction: int | None = reference("friction row")
    inflow: int | None = reference("inflow row")
    rainfall: int | None = reference("rainfall row")
    structure: int | None = reference("structure row")
    breakline: int | None = reference("breakline row")
    culvert: int | None = reference("culvert row")
    weir: int | None = reference("weir row")
    mesh_region: int | None = reference("mesh-region row")
    gauge: int | None = reference("gauge row")
    flow_line: int | None = reference("flow-line row")
    initial_condition: int | None = reference("initial-condition row")
    soil: int | None = reference("soil row")


class ScenarioChanges(Changes):
    """The fields to change; a new run is needed afterwards (the latest run no longer matches)."""

    refusal_codes = CODES

    name: str = unchanged("The scenario's name.", min_length=1, max_length=NAME_MAX_LENGTH)
    description: str = unchanged("Free text for people.", max_length=DESCRIPTION_MAX_LENGTH)
    resolution: Resolution = unchanged(RESOLUTION)
    duration: Duration = unchanged(DURATION)
    model_start: Instant | None = unchanged(MODEL_START)
    inundation_threshold_m: Threshold = unchanged(THRESHOLD)
    terrain: int | None = unchanged("The terrain (a ready one); null: none.", ge=1, le=MAX_ID)
    boundary: int | None = unchanged("The boundary row; null: none.", ge=1, le=MAX_ID)
    friction: int | None = unchanged("The friction row; null: none.", ge=1, le=MAX_ID)
    inflow: int | None = unchanged("The inflow row; null: none.", ge=1, le=MAX_ID)
    rainfall: int | None = unchanged("The rainfall row; null: none.", ge=1, le=MAX_ID)
    structure: int | None = unchanged("The structure row; null: none.", ge=1, le=MAX_ID)
    breakline: int | None = unchanged("The breakline row; null: none.", ge=1, le=MAX_ID)
    culvert: int | None = unchanged("The culvert row; null: none.", ge=1, le=MAX_ID)
    weir: int | None = unchanged("The weir row; null: none.", ge=1, le=MAX_ID)
    mesh_region: int | None = unchanged("The mesh-region row; null: none.", ge=1, le=MAX_ID)
    gauge: int | None = unchanged("The gauge row; null: none.", ge=1, le=MAX_ID)
    flow_line: int | None = unchanged("The flow-line row; null: none.", ge=1, le=MAX_ID)
    initial_condition: int | None = unchanged("The initial-condition row; null: none.", ge=1, le=MAX_ID)
    soil: int | None = unchanged("The soil row; null: none.", ge=1, le=MAX_ID)


class ScenarioClone(Body):
    refusal_codes = {f"overrides.{name}": code for name, code in CODES.items()}

    name: str = name_field("new scenario")
    overrides: ScenarioChanges = Field(
        default_factory=ScenarioChanges, description="Fields that differ from the scenario cloned (its name aside)."
    )
