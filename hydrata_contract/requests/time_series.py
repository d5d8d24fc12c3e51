from pydantic import Field, JsonValue

from hydrata_contract.inputs import SeriesType
from hydrata_contract.requests.base import Body, description_field, name_field

UNITS = (
    "hyetograph: mm/hr, mm/interval (the depth in the interval ending at each row) or mm cumulative (the depth since "
    "the first row); hydrograph: m3/s; stage: m; generic: any text. Common spellings (mm/h, mm per interval, "
    "cumulative mm, m³/s, metres, ...) are stored under these names."
)


class TimeSeriesCreate(Body):
    name: str = name_field("time series")
    series_type: SeriesType = Field(description="What the values are: rain, flow, a water level, or other.")
    units: str = Field(min_length=1, max_length=30, description=UNITS)
    timezone: str = Field("UTC", min_length=1, max_length=64, description="The rows' time zone (IANA name).")
    source: str = Field("", max_length=300, description="Where the values come from.")
    location_name: str = Field("", max_length=200, description="Where they were measured.")
    description: str = description_field()
    data: JsonValue = Field(
        description='The rows: {"rowData": [{"timestamp": ISO 8601, "value": number}, ...]}, in time order.'
    )
