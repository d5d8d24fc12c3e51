"""An input row's answers: the row, a page of one kind's rows, every row by kind, and the row's features."""

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from hydrata_contract.answers.base import Answer, map_link
from hydrata_contract.inputs import InputKind


class InputLayer(Answer):
    """InputLayerOutput: one input row of a project, and the dataset attached to it (`gn_layer`)."""

    id: int
    kind: InputKind
    title: str
    is_default: bool
    gn_layer: int | None = Field(description="The dataset attached, or null.")
    has_features: bool
    feature_count: int
    bbox_wgs84: list[float] | None
    ui_url: str = map_link()
    updated_at: datetime


class InputLayerPage(Answer):
    count: int
    next: str | None
    previous: str | None
    results: list[InputLayer]
    ui_url: str = Field(description="The map's Inputs panel.")


class InputsByKind(Answer):
    """AllInputsView: every input row of the project under its kind (one key per InputKind)."""

    boundary: list[InputLayer]
    friction: list[InputLayer]
    inflow: list[InputLayer]
    rainfall: list[InputLayer]
    structure: list[InputLayer]
    mesh_region: list[InputLayer]
    gauge: list[InputLayer]
    flow_line: list[InputLayer]


class LayerFeatures(Answer):
    """input_layer_features: a GeoJSON FeatureCollection in WGS84, with the row it came from."""

    type: Literal["FeatureCollection"]
    kind: InputKind
    layer: int
    feature_count: int
    bbox_wgs84: list[float] | None
    features: list[dict[str, Any]] = Field(description="GeoJSON features.")
