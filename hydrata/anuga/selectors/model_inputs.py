"""Reads of the inputs a model is built from, inside one project: its terrain, input layers and time series.
The project itself was resolved through the caller's visibility."""

from typing import Any

from django.conf import settings
from django.db.models import QuerySet

from hydrata.anuga.models import InputLayer, Project, Terrain, TerrainUpload, TimeSeries
from hydrata.anuga.selectors.links import input_row_link, project_link, terrain_link, time_series_link
from hydrata.anuga.selectors.queue import terrain_queue_place
from hydrata.anuga.selectors.scenarios import input_layer_forcing
from hydrata.compute.series_units import series_applied
from hydrata.core.errors import NotFound
from hydrata.core.rows import from_row
from hydrata.storage import get_storage
from hydrata_contract.answers import inputs as input_answers
from hydrata_contract.answers import terrain as terrain_answers
from hydrata_contract.answers import time_series as series_answers
from hydrata_contract.errors import ErrorCode
from hydrata_contract.inputs import InputKind
from hydrata_contract.links import Panel
from hydrata_contract.states import TerrainStatus


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


def terrain_answer(*, terrain: Terrain, signed_links: bool) -> terrain_answers.Terrain:
    """The terrain; with `signed_links` (an agent reading in full) the signed link of its hillshade once ready, which
    a browser's answer leaves out altogether (no `s3_hillshade_url` key)."""
    resolution = None
    if terrain.resolution_x is not None and terrain.resolution_y is not None:
        resolution = [terrain.resolution_x, terrain.resolution_y]
    signed = {"s3_hillshade_url": _hillshade_link(terrain)} if signed_links else {}
    return from_row(
        terrain_answers.Terrain,
        terrain,
        project=terrain.project_id,
        resolution=resolution,
        ui_url=terrain_link(terrain),
        queue=terrain_queue_place(terrain=terrain),
        **signed,
    )


def _hillshade_link(terrain: Terrain) -> str | None:
    if terrain.status != TerrainStatus.READY or not terrain.hillshade_key:
        return None
    return get_storage().presign_download(
        key=terrain.hillshade_key, expires_in=settings.HYDRATA_DOWNLOAD_URL_EXPIRY_SECONDS
    )


def terrain_presign(*, upload: TerrainUpload, url: str) -> terrain_answers.TerrainPresign:
    """The upload slot terrain_upload_presign reserved: PUT the file to `url` with these headers, then finalize."""
    return terrain_answers.TerrainPresign(
        upload_url=url,
        staging_key=upload.staging_key,
        process_id=upload.process_id,
        expires_in=settings.HYDRATA_UPLOAD_URL_EXPIRY_SECONDS,
        method="PUT",
        headers={"Content-Type": upload.content_type},
    )


def input_layers_of(*, project: Project, kind: str | None = None) -> QuerySet[InputLayer]:
    layers = project.input_layers.select_related("dataset")
    return layers.filter(kind=kind) if kind else layers


def input_layer_get(*, project: Project, kind: str, layer_id: int) -> InputLayer:
    layer = input_layers_of(project=project, kind=kind).filter(pk=layer_id).first()
    if layer is None:
        raise NotFound(f"Project {project.pk} has no {kind} row {layer_id}.", code=ErrorCode.INPUT_NOT_FOUND)
    return layer


def input_layer_answer(*, layer: InputLayer) -> input_answers.InputLayer:
    return from_row(input_answers.InputLayer, layer, **_input_layer_fields(layer))


def input_layer_detail(*, layer: InputLayer) -> input_answers.InputLayerDetail:
    """The row, and for rainfall and inflow what its features apply on their own (`forcing`, else no such key)."""
    forcing = input_layer_forcing(layer=layer)
    applied = {"forcing": forcing} if forcing is not None else {}
    return from_row(input_answers.InputLayerDetail, layer, **_input_layer_fields(layer), **applied)


def _input_layer_fields(layer: InputLayer) -> dict[str, Any]:
    """What an input row's answer carries that the row does not hold under that name."""
    return {"gn_layer": layer.dataset_id, "has_features": layer.feature_count > 0, "ui_url": input_row_link(layer)}


def inputs_by_kind(*, project: Project) -> input_answers.InputsByKind:
    """Every input row of the project under its kind, a kind without rows an empty list."""
    grouped: dict[str, list[input_answers.InputLayer]] = {kind: [] for kind in InputKind.values()}
    for layer in input_layers_of(project=project):
        grouped[layer.kind].append(input_layer_answer(layer=layer))
    return input_answers.InputsByKind.model_validate(grouped)


def time_series_of(*, project: Project) -> QuerySet[TimeSeries]:
    return project.time_series.all()


def time_series_get(*, project: Project, series_id: int) -> TimeSeries:
    series = time_series_of(project=project).filter(pk=series_id).first()
    if series is None:
        raise NotFound(f"Project {project.pk} has no time series {series_id}.", code=ErrorCode.TIME_SERIES_NOT_FOUND)
    return series


def time_series_summary(*, series: TimeSeries) -> series_answers.TimeSeriesSummary:
    return from_row(series_answers.TimeSeriesSummary, series, ui_url=time_series_link(series))


def time_series_detail(*, series: TimeSeries) -> series_answers.TimeSeriesDetail:
    """The series with its rows (`data.rowData`) and what the model applies of it (`applied`)."""
    return from_row(
        series_answers.TimeSeriesDetail,
        series,
        ui_url=time_series_link(series),
        applied=time_series_applied(series=series),
        data={"rowData": series.rows},
    )


def time_series_applied(*, series: TimeSeries) -> dict[str, Any]:
    """What the model applies of the series on its own, from its first instant to its last row: for rain the total
    depth (mm) and peak intensity (mm/hr), for flow the volume (m3) and peak (m3/s), for a level its range (m).
    A series whose units the model does not know (a generic one, or a row stored before units were read) says so
    in `problem`."""
    return series_applied(series.rows, series.units)
