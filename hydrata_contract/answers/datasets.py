"""GeoNode's dataset read (served by the anuga app, since who sees a dataset depends on projects)."""

from datetime import datetime

from pydantic import Field

from hydrata_contract.answers.base import Answer


class Dataset(Answer):
    """An imported GeoJSON upload (hydrata.uploads' DatasetOutput)."""

    pk: int
    title: str
    name: str
    owner: str = Field(description="The owner's username.")
    crs: str
    feature_count: int
    geometry_types: list[str]
    property_names: list[str]
    bbox_wgs84: list[float] = Field(description="[minx, miny, maxx, maxy] in longitude/latitude.")
    created: datetime


class DatasetDetail(Answer):
    dataset: Dataset
