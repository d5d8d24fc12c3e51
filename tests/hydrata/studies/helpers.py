"""Arrange a design study's inputs through the REST API itself, as an agent would."""

from typing import Any

import httpx
import numpy as np
import pytest
import rasterio
from affine import Affine

from hydrata.storage import get_storage
from tests.data import ARR
from tests.model_setup import PROJECTS, api

FILES = {
    "ifd": "Synthetic_IFD_Depths.csv",
    "temporal_patterns": "Synthetic_Increments.csv",
    "storm_losses": "Synthetic_DataHub.txt",
}


# create_design_study's argument for each kind of design input (TOOLS.md's names).
TOOL_ARGUMENTS = {"ifd": "ifd", "temporal_patterns": "temporal_patterns", "storm_losses": "losses"}
# The shorter files of the studies that run on a worker: two patterns, and no losses file.
SHORT_FILES = {"ifd": "Synthetic_IFD_Depths_Short.csv", "temporal_patterns": "Synthetic_Increments_Two_Patterns.csv"}


def uploaded_inputs(url: str, key: str, project_id: int, files: dict[str, str] = FILES) -> dict[str, int]:
    """Each design input of `files` uploaded as an agent uploads it (the server's instructions: multipart `kind`
    and `base_file`), as create_design_study takes them: its argument for the kind -> id."""
    with api(url, key) as http:
        ids = upload_inputs(http, project_id, files, multipart=True)
    return {TOOL_ARGUMENTS[kind]: input_id for kind, input_id in ids.items()}


def upload_inputs(
    http: httpx.Client, project_id: int, files: dict[str, str] = FILES, *, multipart: bool = False
) -> dict[str, int]:
    """Each synthetic design input of `files` (kind -> file in tests/data/arr), stored in the project: kind -> id.
    Sent as its text in JSON (`content`), or with `multipart` as a file (`base_file`)."""
    ids = {}
    for kind, file in files.items():
        path = f"{PROJECTS}{project_id}/design-inputs/"
        if multipart:
            created = http.post(path, data={"kind": kind}, files={"base_file": (file, (ARR / file).read_bytes())})
        else:
            created = http.post(path, json={"kind": kind, "name": file, "content": (ARR / file).read_text()})
        assert created.status_code == 201, created.text
        ids[kind] = created.json()["id"]
    return ids


def base_scenario(http: httpx.Client, project_id: int, **fields: Any) -> dict[str, Any]:
    created = http.post(
        f"{PROJECTS}{project_id}/scenarios/", json={"name": "base", "resolution": 5, "duration": 3600, **fields}
    )
    assert created.status_code == 201, created.text
    return created.json()


def stored_raster(key: str) -> tuple[np.ndarray, Affine]:
    """A stored raster read whole with rasterio (its nodata as NaN), and its transform."""
    with get_storage().local_path(key=key) as path, rasterio.open(path) as source:
        return source.read(1, masked=True).astype(np.float64).filled(np.nan), source.transform


def figures_of_rasters(aep: dict[str, Any], durations: list[int]) -> dict[str, Any]:
    """An AEP's figures recomputed independently from its stored envelope COGs, whole, with numpy: a cell is flooded
    where the depth envelope is at least 1 cm; the hazard class of a central value between two is the upper."""
    keys = {layer["name"]: layer["key"] for layer in aep["layers"]}
    depth, transform = stored_raster(keys["max_depth"])
    stage, speed, hazard, critical = (
        stored_raster(keys[name])[0] for name in ("max_stage", "max_speed", "max_hazard", "critical_duration")
    )
    cell = abs(transform.a * transform.e)
    flooded = np.nan_to_num(depth, nan=0.0) >= 0.01
    bands = [("0.01-0.15", 0.01, 0.15), ("0.15-0.3", 0.15, 0.3), ("0.3-0.5", 0.3, 0.5), ("0.5-1.0", 0.5, 1.0)]
    bands += [("1.0-2.0", 1.0, 2.0), (">2.0", 2.0, np.inf)]
    valid = np.nan_to_num(depth, nan=-1.0)
    row, col = np.unravel_index(np.nanargmax(depth), depth.shape)
    x, y = transform @ (col + 0.5, row + 0.5)
    area = cell * np.count_nonzero(flooded)
    return {
        "peak_depth_m": float(np.nanmax(depth)),
        "peak_depth_at": {"x": float(x), "y": float(y)},
        "peak_stage_m": float(stage[flooded].max()) if flooded.any() else None,
        "peak_speed_m_s": float(speed[flooded].max()) if flooded.any() else None,
        "flooded_area_m2": float(area),
        "flooded_area_m2_by_depth_band": {
            label: float(cell * np.count_nonzero((valid >= low) & (valid < high))) for label, low, high in bands
        },
        "hazard_area_m2_by_class": {
            f"H{k}": float(cell * np.count_nonzero(np.ceil(hazard[flooded]) == k)) for k in range(1, 7)
        },
        "critical_share_pct": {
            d: 100.0 * cell * np.count_nonzero(critical[flooded] == d) / area if area else 0.0 for d in durations
        },
    }


def assert_figures_equal(told: dict[str, Any], expected: dict[str, Any]) -> None:
    """get_design_study's figures of an AEP against figures_of_rasters'."""
    for name in ("peak_depth_m", "peak_stage_m", "peak_speed_m_s", "flooded_area_m2"):
        assert told[name] == pytest.approx(expected[name]), name
    assert told["peak_depth_at"] == pytest.approx(expected["peak_depth_at"])
    for name in ("flooded_area_m2_by_depth_band", "hazard_area_m2_by_class"):
        assert told[name] == pytest.approx(expected[name]), name
    shares = {item["duration_min"]: item["share_pct"] for item in told["critical_durations"]}
    assert shares == pytest.approx(expected["critical_share_pct"])
