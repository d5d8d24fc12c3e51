from typing import Annotated, Any

from pydantic import Field, ValidationError, ValidatorFunctionWrapHandler, WrapValidator

from hydrata_contract.observations import Quantity
from hydrata_contract.requests.base import MAX_ID, Body, Changes, Instant, name_field, object_id, unchanged

MAX_RANKED_RUNS = 20
EVENT = "The flood event (its id in this project)."
CRS = "The CRS x and y are in, as an authority code (e.g. EPSG:4326); null or blank: the project's."
VALUE = "The value measured, in metres: a water level for peak_stage, a depth for peak_depth."
TOLERANCE = "How far off the value may be, in metres."


def _metres(value: Any, handler: ValidatorFunctionWrapHandler) -> float:
    try:
        return float(handler(value))
    except ValidationError:
        raise ValueError("Give a finite number of metres, e.g. 12.35.") from None


Metres = Annotated[float, WrapValidator(_metres)]


class FloodEventCreate(Body):
    name: str = name_field("flood event")
    started_at: Instant = Field(description="When the event began (ISO 8601; without an offset, UTC).")
    ended_at: Instant | None = Field(None, description="When it ended; null: not known.")
    description: str = Field("", description="Free text for people.")


class ObservationCreate(Body):
    event: int = object_id(EVENT)
    x: float = Field(description="Easting or longitude.")
    y: float = Field(description="Northing or latitude.")
    crs: str | None = Field(None, max_length=64, description=CRS)
    quantity: Quantity = Field(description="What was measured.")
    value_m: Metres = Field(description=VALUE)
    tolerance_m: Metres = Field(0.3, description=TOLERANCE)
    observed_at: Instant | None = Field(None, description="When it was measured; null: not known.")
    source: str = Field("", max_length=300, description="Who or what measured it.")
    notes: str = Field("", description="Free text for people.")


class ObservationChanges(Changes):
    event: int = unchanged(EVENT, ge=1, le=MAX_ID)
    x: float = unchanged("Easting or longitude.")
    y: float = unchanged("Northing or latitude.")
    crs: str | None = unchanged(CRS, max_length=64)
    quantity: Quantity = unchanged("What was measured.")
    value_m: Metres = unchanged(VALUE)
    tolerance_m: Metres = unchanged(TOLERANCE)
    observed_at: Instant | None = unchanged("When it was measured; null: not known.")
    source: str = unchanged("Who or what measured it.", max_length=300)
    notes: str = unchanged("Free text for people.")


class ObservationsImport(Body):
    execution_id: str = Field(min_length=1, max_length=64, description="The finished upload of the GeoJSON points.")
    quantity: Quantity = Field(description="What the points measured.")
    value_property: str = Field(min_length=1, max_length=200, description="The feature property holding the value.")
    tolerance_property: str | None = Field(
        None, max_length=200, description="The property holding each tolerance; null: the default tolerance."
    )


class RunCompare(Body):
    event: int = object_id("The flood event whose observations the run's results are compared with.")


class RunsRank(Body):
    event: int = object_id(EVENT)
    runs: list[Annotated[int, Field(ge=1, le=MAX_ID)]] = Field(
        min_length=1, max_length=MAX_RANKED_RUNS, description="The runs to rank by how well they match the event."
    )
