from typing import Annotated

from pydantic import Field

from hydrata_contract.compute import ComputeBackend
from hydrata_contract.errors import ErrorCode
from hydrata_contract.requests.base import Body

MAX_SAMPLED_POINTS = 1000
MAX_SERIES_PER_KIND = 50
CRS = "The points' CRS as an authority code (e.g. EPSG:4326); blank: the project's."
SeriesName = Annotated[str, Field(min_length=1, max_length=200)]
# The MPI processes a run computes on: at least one; the most is the platform's setting (HYDRATA_MAX_RANKS), which
# its service checks, so no schema can carry it.
Ranks = Annotated[int, Field(ge=1)]


class RunStart(Body):
    refusal_codes = {"compute_backend": ErrorCode.UNKNOWN_COMPUTE_BACKEND, "ranks": ErrorCode.INVALID_RANKS}

    compute_backend: ComputeBackend = Field(ComputeBackend.LOCAL, description="Where the simulation computes.")
    ranks: Ranks = Field(
        1,
        description="MPI processes the mesh is split over (at most the platform's maximum); the price grows with "
        "the extra communication.",
    )


class PointXY(Body):
    x: float = Field(description="Easting or longitude, in the request's CRS.")
    y: float = Field(description="Northing or latitude, in the request's CRS.")


class RunSampleQuery(Body):
    points: list[PointXY] = Field(min_length=1, max_length=MAX_SAMPLED_POINTS, description="Where to read the results.")
    crs: str = Field("", max_length=64, description=CRS)


class RunSeriesQuery(Body):
    gauges: list[SeriesName] | None = Field(
        None, max_length=MAX_SERIES_PER_KIND, description="Gauge names to chart; null: every gauge."
    )
    flow_lines: list[SeriesName] | None = Field(
        None, max_length=MAX_SERIES_PER_KIND, description="Flow-line names to chart; null: every flow line."
    )
    points: list[PointXY] = Field(
        default_factory=list, max_length=MAX_SERIES_PER_KIND, description="Other places to chart depth and stage at."
    )
    crs: str = Field("", max_length=64, description=CRS)
