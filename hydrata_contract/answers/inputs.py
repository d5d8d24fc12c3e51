"""An input row's answers: the row, a page of one kind's rows, every row by kind, and the row's features."""

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from hydrata_contract.answers.base import Answer, Page, Sparse, map_link
from hydrata_contract.inputs import InputKind


class InputLayer(Answer):
    """One input row of a project, and the dataset attached to it (`gn_layer`)."""

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


class LayerForcingPart(Sparse):
    feature: str
    data: Any = Field(description="The feature's `data`: a number, or a time series name.")
    constant: float | None = Field(default=None, description="A constant rate, applied for the whole run.")
    total_depth_mm: float | None = None
    peak_intensity_mm_per_h: float | None = None
    volume_m3: float | None = None
    peak_m3_per_s: float | None = None
    problem: str | None = None


class LayerForcing(Sparse):
    """compute/forcing.py layer_forcing: what a rainfall or inflow row's features apply on their own."""

    features: list[LayerForcingPart]
    rain_total_depth_mm: float | None = None
    rain_peak_intensity_mm_per_h: float | None = None
    inflow_volume_m3: float | None = None
    inflow_peak_m3_per_s: float | None = None
    constant_features: int
    problems: list[str]


class InputLayerDetail(InputLayer, Sparse):
    """One row read or attached: for rainfall and inflow rows, what their features apply (`forcing`)."""

    forcing: LayerForcing | None = Field(default=None, description="Rainfall and inflow rows only.")


class InputLayerPage(Page):
    results: list[InputLayer]
    ui_url: str = Field(description="The map's Inputs panel.")


class InputsByKind(Answer):
    """AllInputsView: every input row of the project under its kind (one key per InputKind)."""

    boundary: list[InputLayer]
    friction: list[InputLayer]
    inflow: list[InputLayer]
    rainfall: list[InputLayer]
    structure: list[InputLayer]
    breakline: list[InputLayer]
    culvert: list[InputLayer]
    weir: list[InputLayer]
    mesh_region: list[InputLayer]
    gauge: list[InputLayer]
    flow_line: list[InputLayer]
    initial_condition: list[InputLayer]
    soil: list[InputLayer]


class LayerFeatures(Answer):
    """input_layer_features: a GeoJSON FeatureCollection in WGS84, with the row it came from."""

    type: Literal["FeatureCollection"]
    kind: InputKind
    layer: int
    feature_count: int
    bbox_wgs84: list[float] | None
    features: list[dict[str, Any]] = Field(description="GeoJSON features.")
