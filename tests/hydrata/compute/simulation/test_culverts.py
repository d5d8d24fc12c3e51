"""A box culvert between two basins (tests/hydrata/compute/basins.py), run by the simulation child as the platform
runs it, against the water it moved and against the same model built by hand in plain ANUGA."""

import contextlib
import io

import netCDF4
import numpy as np
import pytest

from hydrata.compute.scenario.package import sample_dem
from tests.hydrata.compute.basins import (
    MANNINGS,
    RAIN_EXTENT,
    RAIN_MM_PER_HOUR,
    RIDGE,
    X0,
    box_culvert,
    make_basins_package,
)
from tests.hydrata.compute.channel import run_channel

DURATION = 120
YIELD_SECONDS = 10.0


def basins_run(directory, **culvert):
    package = make_basins_package(directory / "package", duration=DURATION, site={"culvert": [box_culvert(**culvert)]})
    return package, run_channel(package, directory / "output", yield_seconds=YIELD_SECONDS)


@pytest.fixture(scope="module")
def open_culvert(tmp_path_factory):
    return basins_run(tmp_path_factory.mktemp("culvert"))


def final_frame(sww) -> dict[str, np.ndarray]:
    with netCDF4.Dataset(sww) as dataset:
        dataset.set_auto_mask(False)
        x = np.asarray(dataset["x"][:], dtype=float) + float(dataset.xllcorner)
        y = np.asarray(dataset["y"][:], dtype=float) + float(dataset.yllcorner)
        triangles = np.asarray(dataset["volumes"][:])
        corners = np.stack([x[triangles], y[triangles]], axis=-1)
        edge1, edge2 = corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]
        return {
            "x": corners[:, :, 0].mean(axis=1),
            "area": 0.5 * np.abs(edge1[:, 0] * edge2[:, 1] - edge1[:, 1] * edge2[:, 0]),
            "stage": np.asarray(dataset["stage_c"][:], dtype=float),
            "elevation": np.asarray(dataset["elevation_c"][:], dtype=float),
        }


def series_named(run, name: str) -> dict:
    return next(line for line in run.series["flow_lines"] if line["name"] == name)


def test_the_water_that_left_the_first_basin_is_the_culverts_recorded_discharge_integrated(open_culvert):
    _, run = open_culvert
    frame = final_frame(run.output / "run.sww")
    depth = np.maximum(frame["stage"][-1] - frame["elevation"], 0.0)
    second = frame["x"] > X0 + RIDGE[1]
    arrived = float(np.sum(depth[second] * frame["area"][second]))  # no rain there: all of it came through
    culvert = series_named(run, "under ridge")
    times = np.asarray(run.series["t"])
    integrated = float(np.sum(np.asarray(culvert["discharge"]) * np.diff(times, prepend=times[0])))

    assert culvert["culvert"] is True and len(culvert["discharge"]) == len(times)
    assert arrived > 10.0  # m3: the culvert ran
    assert integrated == pytest.approx(arrived, rel=0.005)
    assert sum(culvert["volume"]) == pytest.approx(arrived, rel=0.005)
    balance = run.statistics["volume_balance"]
    assert abs(balance["error_pct"]) < 1e-6


def test_a_half_blocked_culvert_carries_less_than_an_open_one(open_culvert, tmp_path):
    _, open_run = open_culvert
    _, blocked = basins_run(tmp_path, blockage=0.5)

    assert sum(series_named(blocked, "under ridge")["volume"]) < 0.75 * sum(
        series_named(open_run, "under ridge")["volume"]
    )


def plain_anuga(package, output, *, blockage: float) -> tuple[float, float]:
    """The same model as a plain ANUGA script builds it: the mesh file, the ground and n at the centroids, the rain
    as a Rate_operator, the culvert as a Boyd_box_operator, walls all round. Returns the final volume and the
    volume the culvert moved."""
    with contextlib.redirect_stdout(io.StringIO()):
        import anuga

        domain = anuga.Domain(str(package / "mesh.msh"))
        xy = domain.get_centroid_coordinates(absolute=True)
        domain.set_quantity("elevation", sample_dem(package / "inputs" / "dem.tif", xy), location="centroids")
        domain.set_quantity("friction", np.full(len(xy), MANNINGS), location="centroids")
        domain.set_quantity("stage", expression="elevation", location="centroids")
        west, east = RAIN_EXTENT
        inside = np.flatnonzero((xy[:, 0] > X0 + west) & (xy[:, 0] < X0 + east))
        anuga.Rate_operator(domain, rate=RAIN_MM_PER_HOUR / 3_600_000.0, factor=1.0, indices=inside)
        culvert = anuga.Boyd_box_operator(
            domain,
            losses=0.0,
            width=1.0,
            height=0.5,
            blockage=blockage,
            end_points=[[X0 + 30, 6_200_010.0], [X0 + 70, 6_200_010.0]],
            manning=0.013,
        )
        domain.set_boundary({tag: anuga.Reflective_boundary(domain) for tag in domain.get_boundary_tags()})
        domain.set_datadir(str(output))
        domain.set_name("plain")
        for _ in domain.evolve(yieldstep=YIELD_SECONDS, finaltime=DURATION):
            pass
    return float(domain.get_water_volume()), float(culvert.accumulated_flow)


def test_the_platform_gives_what_a_plain_anuga_script_of_the_same_culvert_gives(open_culvert, tmp_path):
    package, run = open_culvert
    volume, moved = plain_anuga(package, tmp_path, blockage=0.0)
    ours, plain = final_frame(run.output / "run.sww"), final_frame(tmp_path / "plain.sww")

    assert run.statistics["final_volume_m3"] == pytest.approx(volume, rel=1e-9)
    assert sum(series_named(run, "under ridge")["volume"]) == pytest.approx(moved, rel=1e-9)
    assert np.array_equal(ours["stage"], plain["stage"])  # every saved frame, every triangle
