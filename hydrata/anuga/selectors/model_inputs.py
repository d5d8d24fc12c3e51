"""Reads of the inputs a model is built from, inside one project: its terrain, input layers and time series.
The project itself was resolved through the caller's visibility."""

from typing import Any

from django.db.models import QuerySet

from hydrata.anuga.models import InputLayer, Project, Terrain, TimeSeries
from hydrata.anuga.selectors.links import project_link
from hydrata.compute.series_units import series_applied
from hydrata.core.errors import NotFound
from hydrata_contract.errors import ErrorCode
from hydrata_contract.links import Panel


def terrains_of(*, project: Project) -> QuerySet[Terrain]:
    return project.terrains.all()  # each terrain's .project is this one: no query per answer


def terrain_get(*, project: Project, terrain_id: int) -> Terrain:
    terrain = terrains_of(project=project).filter(pk=terrain_id).first()
    if terrain is None:
        raise NotFound(
            f"Project {project.pk} has no terrain {terrain_id}.",
            code=ErrorCode.TERRAIN_NOT_FOUND,
            ui_url=project_link(project, Panel.TERRAIN),
        )
    return terrain


def input_layers_of(*, project: Project, kind: str | None = None) -> QuerySet[InputLayer]:
    layers = project.input_layers.select_related("dataset")
    return layers.filter(kind=kind) if kind else layers


def input_layer_get(*, project: Project, kind: str, layer_id: int) -> InputLayer:
    layer = input_layers_of(project=project, kind=kind).filter(pk=layer_id).first()
    if layer is None:
        raise NotFound(f"Project {project.pk} has no {kind} row {layer_id}.", code=ErrorCode.INPUT_NOT_FOUND)
    return layer


def time_series_of(*, project: Project) -> QuerySet[TimeSeries]:
    return project.time_series.all()


def time_series_get(*, project: Project, series_id: int) -> TimeSeries:
    series = time_series_of(project=project).filter(pk=series_id).first()
    if series is None:
        raise NotFound(f"Project {project.pk} has no time series {series_id}.", code=ErrorCode.TIME_SERIES_NOT_FOUND)
    return series


def time_series_applied(*, series: TimeSeries) -> dict[str, Any]:
    """What the model applies of the series on its own, from its first instant to its last row: for rain the total
    depth (mm) and peak intensity (mm/hr), for flow the volume (m3) and peak (m3/s), for a level its range (m).
    A series whose units the model does not know (a generic one, or a row stored before units were read) says so
    in `problem`."""
    return series_applied(series.rows, series.units)
