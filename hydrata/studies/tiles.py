"""Selectors of a complete design study's map tiles: per AEP, the envelopes of its result layers and its
critical-duration raster, drawn as a run's results are (the same colour ramps, the hazard classes each in its one
colour, dry cells clear) and the critical duration as one class per storm duration. The study has already been
resolved through a project the caller may see; a finished study's rasters never change, so its tiles are cached."""

from typing import Any

from hydrata.anuga.selectors.tiles import HAZARD_CLASSES, RESULT_COLOURS, cached
from hydrata.compute.results import WET_DEPTH_M
from hydrata.compute.tiles import Classes, Ramp, classes_on, colour_tile, transparent_tile, value_range
from hydrata.core.errors import Conflict, NotFound
from hydrata.storage import get_storage
from hydrata.studies.models import DesignStudy
from hydrata.studies.services.envelopes import aep_slug
from hydrata_contract import paths
from hydrata_contract.errors import ErrorCode
from hydrata_contract.layers import CRITICAL_DURATION, CRITICAL_DURATION_TITLE, ResultLayer
from hydrata_contract.studies import StudyStatus

# A class per storm duration, shortest to longest along one colour map (rio-tiler's name).
CRITICAL_DURATION_COLOURS = "viridis"
# A study's hazard envelope is a central value of classes: the median of an even number of them may fall between
# two, which is drawn in the class above (hydrata/compute/tiles.py, Classes.round_up).
ENVELOPE_HAZARD_CLASSES = Classes(HAZARD_CLASSES.colours, round_up=True)


def study_tile_layers(*, study: DesignStudy) -> list[dict[str, Any]]:
    """Each AEP's tiled layers: URL template, title, units and legend, in the order the envelopes were written."""
    results = _complete(study)
    return [
        {"aep": aep["aep"], "layers": [_tile_layer(study, aep, layer["name"]) for layer in aep["layers"]]}
        for aep in results["aeps"]
    ]


def study_tile(*, study: DesignStudy, aep: str, layer: str, z: int, x: int, y: int) -> bytes:
    """One tile of an AEP's layer; `aep` as its route spells it (1% is 1pct)."""
    found = _aep(study, aep)
    keys = _keys(found)
    if layer not in keys:
        listed = ", ".join(keys) or "none: no member of this AEP completed"
        raise NotFound(
            f"Design study {study.pk} has no layer {layer!r} for the {found['aep']} AEP; it has {listed}.",
            code=ErrorCode.LAYER_NOT_FOUND,
        )

    def render() -> bytes:
        style = _style(study, found, layer)
        if style is None:
            return transparent_tile()
        storage = get_storage()
        with (
            storage.local_path(key=keys[layer]) as path,
            storage.local_path(key=keys[ResultLayer.MAX_DEPTH]) as depth,
        ):
            return colour_tile(path, z=z, x=x, y=y, ramp=style, hide_below=WET_DEPTH_M, where_wet=depth)

    return cached(f"tile:{_version(study)}:{aep}:{layer}:{z}/{x}/{y}", render)


def _complete(study: DesignStudy) -> dict[str, Any]:
    if study.status != StudyStatus.COMPLETE or not study.results:
        raise Conflict(
            f"Design study {study.pk} has no envelopes yet (status {study.status}): they are drawn once it is "
            "complete.",
            code=ErrorCode.STUDY_NOT_COMPLETE,
            status=study.status,
        )
    return study.results


def _aep(study: DesignStudy, slug: str) -> dict[str, Any]:
    aeps = _complete(study)["aeps"]
    for aep in aeps:
        if aep_slug(aep["aep"]) == slug:
            return aep
    named = ", ".join(f"{aep_slug(aep['aep'])} ({aep['aep']})" for aep in aeps)
    raise NotFound(
        f"Design study {study.pk} has no AEP {slug[:40]!r} in its tile routes; it has {named}.",
        code=ErrorCode.AEP_NOT_IN_STUDY,
    )


def _keys(aep: dict[str, Any]) -> dict[str, str]:
    return {layer["name"]: layer["key"] for layer in aep["layers"]}


def _tile_layer(study: DesignStudy, aep: dict[str, Any], name: str) -> dict[str, Any]:
    style = _style(study, aep, name)
    slug = aep_slug(aep["aep"])
    title = CRITICAL_DURATION_TITLE if name == CRITICAL_DURATION else ResultLayer(name).label
    return {
        "name": name,
        "title": f"{title}, {aep['aep']} AEP",
        "units": next(layer["units"] for layer in aep["layers"] if layer["name"] == name),
        "tiles": paths.DESIGN_STUDY_TILE.tiles(project_id=study.project_id, study_id=study.pk, aep=slug, layer=name),
        "legend": style.legend() if style else [],
        "empty": style is None,
    }


def _style(study: DesignStudy, aep: dict[str, Any], name: str) -> Ramp | Classes | None:
    """As a run's layer is drawn (hydrata/anuga/selectors/tiles.py): depth and speed from 0 to their peak, level over
    the wet cells; hazard by class; the critical duration a class per duration. None when the envelope is dry."""
    keys = _keys(aep)

    def wet_range() -> tuple[float, float] | None:
        storage = get_storage()
        with (
            storage.local_path(key=keys[name]) as path,
            storage.local_path(key=keys[ResultLayer.MAX_DEPTH]) as depth,
        ):
            return value_range(path, where_wet=depth, wet=WET_DEPTH_M)

    found = cached(f"range:{_version(study)}:{aep_slug(aep['aep'])}:{name}", wet_range)
    if found is None:
        return None
    if name == ResultLayer.MAX_HAZARD:
        return ENVELOPE_HAZARD_CLASSES
    if name == CRITICAL_DURATION:
        durations = [float(minutes) for minutes in study.durations_min]
        labels = [f"{minutes} min" for minutes in study.durations_min]
        return classes_on(CRITICAL_DURATION_COLOURS, durations, labels)
    colours, start = RESULT_COLOURS[name]
    low, high = (0.0, found[1]) if name != ResultLayer.MAX_STAGE else found
    return Ramp(colours, round(low, 3), round(max(high, low + 0.01), 3), start=start)


def _version(study: DesignStudy) -> str:
    """Names this study's envelopes in the cache, even should a database hand out a deleted study's id again."""
    finished = study.finished_at.timestamp() if study.finished_at else 0
    return f"study:{study.pk}:{study.created_at.timestamp()}:{finished}"
