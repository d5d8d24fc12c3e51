"""The pure parts of the boundaries: Manning's rating curve of the NormalDepth outlet, each edge's slope, and a
Dirichlet stage that follows a time series."""

import numpy as np
import pytest
import shapely

from hydrata.compute.scenario.package import PackageError
from hydrata.compute.simulation.forcing import dirichlet_stage, normal_depth_lines, stage_timestep_ceiling
from hydrata.compute.simulation.normal_depth import edge_midpoints, edge_slopes, rating_discharge


def boundary(kind: str, coordinates, **properties) -> dict:
    return {
        "type": "Feature",
        "properties": {"boundary": kind, "location": "External", **properties},
        "geometry": {"type": "LineString", "coordinates": coordinates},
    }


def test_the_rating_curve_carries_at_normal_depth_exactly_the_discharge_it_was_solved_for():
    depth = (1.0 * 0.03 / 0.002**0.5) ** 0.6  # Manning's normal depth for 1 m²/s

    assert depth == pytest.approx(0.787, abs=5e-4)
    assert rating_discharge(depth=np.array([depth]), mannings=np.array([0.03]), slope=np.array([0.002]))[
        0
    ] == pytest.approx(1.0)
    assert rating_discharge(
        depth=np.array([-0.1, 0.0]), mannings=np.array([0.03, 0.03]), slope=np.array([0.002, 0.002])
    ).tolist() == [0.0, 0.0]  # nothing flows from a dry edge


def test_each_edge_takes_the_slope_of_the_nearest_normal_depth_line():
    lines = [shapely.LineString([(0, 0), (0, 10)]), shapely.LineString([(100, 0), (100, 10)])]
    midpoints = np.array([[0.5, 5.0], [99.0, 2.0], [40.0, 5.0]])

    assert edge_slopes(midpoints=midpoints, lines=lines, slopes=[0.001, 0.01]).tolist() == [0.001, 0.01, 0.001]


def test_an_edges_midpoint_lies_between_the_two_vertices_other_than_the_one_it_is_named_after():
    triangles = np.array([[[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]]])

    midpoints = edge_midpoints(triangles, cells=np.array([0, 0, 0]), edges=np.array([0, 1, 2]))

    assert midpoints.tolist() == [[1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]


def test_a_normal_depth_line_without_a_positive_slope_is_refused_by_name():
    good = boundary("NormalDepth", [[0, 0], [0, 10]], slope=0.002)

    lines, slopes = normal_depth_lines([good, boundary("Reflective", [[0, 10], [5, 10]])])
    assert slopes == [0.002] and lines[0].length == 10
    for slope in (None, 0, -0.01, "steep"):
        with pytest.raises(PackageError, match=r"feature 1.*slope"):
            normal_depth_lines([good, {**boundary("NormalDepth", [[5, 0], [5, 10]], slope=slope), "id": None}])


def test_a_dirichlet_stage_is_a_number_or_a_stage_series_held_at_its_ends():
    tide = [{"timestamp": 0, "value": 1.0}, {"timestamp": 600, "value": 2.0}]

    assert dirichlet_stage([boundary("Dirichlet", [[0, 0], [1, 0]], stage=3.5)]) == 3.5
    assert dirichlet_stage([boundary("Transmissive", [[0, 0], [1, 0]])]) == 0.0
    stage = dirichlet_stage([boundary("Dirichlet", [[0, 0], [1, 0]], stage="tide")], series={"tide": tide})
    assert [stage(t) for t in (-10, 0, 300, 600, 6000)] == [1.0, 1.0, 1.5, 2.0, 2.0]
    with pytest.raises(PackageError, match="stage='surge'"):
        dirichlet_stage([boundary("Dirichlet", [[0, 0], [1, 0]], stage="surge")], series={"tide": tide})


def test_a_stage_series_bounds_the_time_step_to_a_tenth_of_its_closest_rows():
    tide = [{"timestamp": 0, "value": 1.0}, {"timestamp": 600, "value": 2.0}, {"timestamp": 900, "value": 1.5}]

    stage = dirichlet_stage([boundary("Dirichlet", [[0, 0], [1, 0]], stage="tide")], series={"tide": tide})

    assert stage_timestep_ceiling(stage) == 30.0
    assert stage_timestep_ceiling(2.0) is None
