"""Map tiles of terrain and run results, and the legend of each tiled layer. Callers have already resolved the
terrain or run through what the caller may see; tiles are cached, since the rasters behind them never change."""

import json
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache

from hydrata.anuga.models import Run, Terrain
from hydrata.anuga.selectors.run_results import LAYERS, layers_of
from hydrata.anuga.selectors.runs import run_outputs
from hydrata.compute.impact import CHANGE_M
from hydrata.compute.results import WET_DEPTH_M
from hydrata.compute.tiles import (
    Classes,
    Ramp,
    colour_tile,
    diverging_ramp,
    hillshade_tile,
    transparent_tile,
    value_range,
)
from hydrata.core.errors import NotFound, ValidationFailed
from hydrata.storage import get_storage
from hydrata_contract import paths
from hydrata_contract.answers.tiles import TileLayers
from hydrata_contract.compute import RunOutputs
from hydrata_contract.errors import ErrorCode
from hydrata_contract.hazard import HazardClass
from hydrata_contract.layers import (
    DEPTH_FRAMES_INDEX,
    DEPTH_FRAMES_LAYER,
    DEPTH_FRAMES_TITLE,
    TOTAL_LOSS,
    ResultLayer,
    depth_frame_filename,
)

# The colour map of each result (rio-tiler's names) and where on it the ramp starts.
RESULT_COLOURS: dict[str, tuple[str, float]] = {
    ResultLayer.MAX_DEPTH: ("ylgnbu", 0.25),
    ResultLayer.MAX_SPEED: ("plasma", 0.0),
    ResultLayer.MAX_STAGE: ("viridis", 0.0),
    ResultLayer.TIME_OF_INUNDATION: ("cividis", 0.0),
    ResultLayer.DURATION_OF_INUNDATION: ("magma", 0.0),
    TOTAL_LOSS: ("ylorbr", 0.15),
}
# Shown wherever the ground took rain, wet or not; the other results only where the water got (WET_DEPTH_M).
SHOWN_WHERE_IT_RAINED = frozenset({TOTAL_LOSS})
# The hazard raster is a class raster: each class in its one colour (hydrata_contract/hazard.py), as the legend says.
HAZARD_CLASSES = Classes(tuple((item.number, item.colour) for item in HazardClass))
IMPACT_TITLES = {
    "impact_depth": "Change in maximum depth (afflux)",
    "impact_stage": "Change in maximum stage (afflux), where both are wet",
}
TERRAIN_STYLES = {"hillshade": ("Hillshade", ""), "elevation": ("Elevation", "m")}
ELEVATION_COLOURS = ("terrain", 0.25)  # skip the ramp's blues: land must not look like water


def run_layers(*, run: Run) -> TileLayers:
    """A finished run's tiled layers, and the depth at its saved times (`frames`)."""
    return TileLayers.model_validate(
        {"id": run.pk, "results": run_tile_layers(run=run), "frames": run_depth_frames(run=run)}
    )


def impact_layers(*, run: Run, other: Run, prefix: str, files: dict[str, str]) -> TileLayers:
    """The impact map of `other` against `run` as tiled layers (no `frames`)."""
    return TileLayers.model_validate(
        {"id": run.pk, "results": impact_tile_layers(run=run, other=other, prefix=prefix, files=files)}
    )


def terrain_layers(*, terrain: Terrain) -> TileLayers:
    """A ready terrain's tiled layers, hillshade and elevation (no `frames`)."""
    return TileLayers.model_validate({"id": terrain.pk, "results": terrain_tile_layers(terrain=terrain)})


def run_tile_layers(*, run: Run) -> list[dict[str, Any]]:
    """Each result raster as a tiled layer: its tile URL template, units and the legend of its colours."""
    layers = []
    for name in layers_of(run):
        title, units = LAYERS[name]
        ramp = _result_ramp(run, name)
        layers.append(
            {
                "name": name,
                "title": title,
                "units": units,
                "tiles": paths.RUN_TILE.tiles(run_id=run.pk, layer=name),
                "legend": ramp.legend() if ramp else [],
                "empty": ramp is None,
            }
        )
    return layers


def run_depth_frames(*, run: Run) -> dict[str, Any]:
    """The depth at the run's saved times as one tiled layer per time (`?frame=` indexes `times`), on the maximum
    depth's colours so that the frames compare; a run from before they were kept has none, and says so."""
    ramp = _result_ramp(run, ResultLayer.MAX_DEPTH)
    index = _frames_index(run)
    layer = {
        "name": DEPTH_FRAMES_LAYER,
        "title": DEPTH_FRAMES_TITLE,
        "units": ResultLayer.MAX_DEPTH.units,
        "tiles": paths.RUN_TILE.tiles(run_id=run.pk, layer=DEPTH_FRAMES_LAYER) + "?frame={frame}",
        "legend": ramp.legend() if ramp else [],
        "times": index["times"] if index else [],
        "saved": index["saved"] if index else 0,
    }
    return {**layer, "note": _frames_note(run, index)}


def _frames_note(run: Run, index: dict[str, Any] | None) -> str:
    if run_outputs(run=run) == RunOutputs.ENVELOPE:
        return "A design study's member keeps no depth at saved times, only the rasters its study's envelopes read."
    if index is None:
        return "This run was computed before the depth at its saved times was kept: run it again for a time slider."
    if not index["kept"]:
        return "This platform keeps no depth at saved times (HYDRATA_RUN_DEPTH_FRAMES is 0)."
    if index["kept"] < index["saved"]:
        saved, kept = index["saved"], index["kept"]
        return f"The run saved {saved} times; {kept} evenly spaced ones are kept, first and last among them."
    return ""


def run_tile(*, run: Run, layer: str, z: int, x: int, y: int, frame: int | None = None) -> bytes:
    if layer == DEPTH_FRAMES_LAYER:
        return _depth_frame_tile(run, frame=frame, z=z, x=x, y=y)
    if frame is not None:
        only = f"Only the {DEPTH_FRAMES_LAYER!r} layer has frames; {layer!r} is the whole run's."
        raise ValidationFailed(only, code=ErrorCode.INVALID_FRAME)
    if layer not in layers_of(run):
        raise NotFound(
            f"Run results have no layer {layer!r}; they have {', '.join([*layers_of(run), DEPTH_FRAMES_LAYER])}.",
            code=ErrorCode.LAYER_NOT_FOUND,
        )

    def render() -> bytes:
        ramp = _result_ramp(run, layer)
        if ramp is None:
            return transparent_tile()
        storage = get_storage()
        with (
            storage.local_path(key=_result_key(run, layer)) as path,
            storage.local_path(key=_result_key(run, ResultLayer.MAX_DEPTH)) as depth,
        ):
            if layer in SHOWN_WHERE_IT_RAINED:
                return colour_tile(path, z=z, x=x, y=y, ramp=ramp)
            return colour_tile(path, z=z, x=x, y=y, ramp=ramp, hide_below=WET_DEPTH_M, where_wet=depth)

    return cached(f"tile:{_run_version(run)}:{layer}:{z}/{x}/{y}", render)


def _depth_frame_tile(run: Run, *, frame: int | None, z: int, x: int, y: int) -> bytes:
    index = _frames_index(run)
    kept = index["kept"] if index else 0
    if not kept:
        raise ValidationFailed(_frames_note(run, index), code=ErrorCode.INVALID_FRAME)
    if frame is None or not 0 <= frame < kept:
        raise ValidationFailed(
            f"frame must be a whole number from 0 to {kept - 1}: this run kept the depth at {kept} times "
            "(the tile layers' frames.times).",
            code=ErrorCode.INVALID_FRAME,
        )

    def render() -> bytes:
        ramp = _result_ramp(run, ResultLayer.MAX_DEPTH)
        if ramp is None:
            return transparent_tile()
        with get_storage().local_path(key=f"{run.results_prefix}/{depth_frame_filename(frame)}") as path:
            return colour_tile(path, z=z, x=x, y=y, ramp=ramp, hide_below=WET_DEPTH_M)

    return cached(f"tile:{_run_version(run)}:{DEPTH_FRAMES_LAYER}:{frame}:{z}/{x}/{y}", render)


def _frames_index(run: Run) -> dict[str, Any] | None:
    """The run's depth_frames.json, or None for a run from before frames were kept."""

    def read() -> dict[str, Any] | None:
        storage, key = get_storage(), f"{run.results_prefix}/{DEPTH_FRAMES_INDEX}"
        if not storage.exists(key=key):
            return None
        with storage.open(key=key) as stream:
            return json.load(stream)

    return cached(f"frames:{_run_version(run)}", read)


def impact_tile_layers(*, run: Run, other: Run, prefix: str, files: dict[str, str]) -> list[dict[str, Any]]:
    """The impact map of other - run (its files under `prefix`, by layer name) as tiled layers on a diverging ramp
    centred on 0; a change under CHANGE_M is no change and is not drawn."""
    layers = []
    for name, title in IMPACT_TITLES.items():
        ramp = _impact_ramp(run, other, f"{prefix}/{files[name]}")
        layers.append(
            {
                "name": name,
                "title": title,
                "units": "m",
                "tiles": paths.RUN_IMPACT_TILE.tiles(run_id=run.pk, other_run_id=other.pk, layer=name),
                "legend": ramp.legend() if ramp else [],
                "empty": ramp is None,
            }
        )
    return layers


def impact_tile(
    *, run: Run, other: Run, prefix: str, files: dict[str, str], layer: str, z: int, x: int, y: int
) -> bytes:
    if layer not in IMPACT_TITLES:
        raise NotFound(
            f"An impact map has no layer {layer!r}; it has {', '.join(IMPACT_TITLES)}.", code=ErrorCode.LAYER_NOT_FOUND
        )
    key = f"{prefix}/{files[layer]}"

    def render() -> bytes:
        ramp = _impact_ramp(run, other, key)
        if ramp is None:
            return transparent_tile()
        with get_storage().local_path(key=key) as path:
            return colour_tile(path, z=z, x=x, y=y, ramp=ramp, hide_within=CHANGE_M)

    return cached(f"tile:{_run_version(run)}:vs:{_run_version(other)}:{layer}:{z}/{x}/{y}", render)


def _impact_ramp(run: Run, other: Run, key: str) -> Ramp | None:
    """None when the change is nowhere defined (no cell where both runs were wet, for the stage)."""

    def changed_range() -> tuple[float, float] | None:
        with get_storage().local_path(key=key) as path:
            return value_range(path)

    found = cached(f"range:{_run_version(run)}:vs:{_run_version(other)}:{key}", changed_range)
    return None if found is None else diverging_ramp(*found, least=CHANGE_M)


def terrain_tile_layers(*, terrain: Terrain) -> list[dict[str, Any]]:
    at = {"project_id": terrain.project_id, "terrain_id": terrain.pk}
    elevation = _elevation_ramp(terrain)
    return [
        {
            "name": "hillshade",
            "title": "Hillshade",
            "units": "",
            "tiles": paths.TERRAIN_TILE.tiles(**at, style="hillshade"),
            "legend": [],
        },
        {
            "name": "elevation",
            "title": "Elevation",
            "units": "m",
            "tiles": paths.TERRAIN_TILE.tiles(**at, style="elevation"),
            "legend": elevation.legend(),
        },
    ]


def terrain_tile(*, terrain: Terrain, style: str, z: int, x: int, y: int) -> bytes:
    if style not in TERRAIN_STYLES:
        raise NotFound(
            f"Terrain has no tile style {style!r}; it has {', '.join(TERRAIN_STYLES)}.", code=ErrorCode.LAYER_NOT_FOUND
        )

    def render() -> bytes:
        with get_storage().local_path(key=terrain.dem_key) as path:
            if style == "hillshade":
                return hillshade_tile(path, z=z, x=x, y=y)
            return colour_tile(path, z=z, x=x, y=y, ramp=_elevation_ramp(terrain))

    return cached(f"tile:terrain:{terrain.pk}:{terrain.created_at.timestamp()}:{style}:{z}/{x}/{y}", render)


def _elevation_ramp(terrain: Terrain) -> Ramp:
    low, high = terrain.elevation_min or 0.0, terrain.elevation_max or 0.0
    return Ramp(ELEVATION_COLOURS[0], low, max(high, low + 0.1), start=ELEVATION_COLOURS[1])


def _result_ramp(run: Run, layer: str) -> Ramp | Classes | None:
    """Depth and speed from 0 to their peak; stage over the wet cells only; hazard by class. None when nothing got
    wet."""

    def wet_range() -> tuple[float, float] | None:
        storage = get_storage()
        with (
            storage.local_path(key=_result_key(run, layer)) as path,
            storage.local_path(key=_result_key(run, ResultLayer.MAX_DEPTH)) as depth,
        ):
            if layer in SHOWN_WHERE_IT_RAINED:
                return value_range(path)
            return value_range(path, where_wet=depth, wet=WET_DEPTH_M)

    found = cached(f"range:{_run_version(run)}:{layer}", wet_range)
    if found is None:
        return None
    if layer == ResultLayer.MAX_HAZARD:
        return HAZARD_CLASSES
    colours, start = RESULT_COLOURS[layer]
    low, high = (0.0, found[1]) if layer != ResultLayer.MAX_STAGE else found
    return Ramp(colours, round(low, 3), round(max(high, low + 0.01), 3), start=start)


def _run_version(run: Run) -> str:
    """Names this run's results in the cache, even should a database hand out a deleted run's id again."""
    return f"run:{run.pk}:{run.created_at.timestamp()}:{run.results_prefix}"


def _result_key(run: Run, layer: str) -> str:
    return f"{run.results_prefix}/{layer}.tif"


def cached(key: str, compute: Callable[[], Any]) -> Any:
    """`compute()`, kept in Django's cache under `key` for HYDRATA_TILE_CACHE_SECONDS (a study's tiles use it too)."""
    missing = object()
    found = cache.get(key, missing)
    if found is missing:
        found = compute()
        cache.set(key, found, timeout=settings.HYDRATA_TILE_CACHE_SECONDS)
    return found
