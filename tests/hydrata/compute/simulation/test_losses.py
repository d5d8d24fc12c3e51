"""Rainfall losses by soil in the simulation child: uniform rain on a plane with an initial and a continuing loss,
whose total loss is the analytic sum, whose outflow is the rain less the losses, and whose equilibrium discharge is
the rain rate less the continuing loss; and the pure step that the operator takes."""

import json

import numpy as np
import pytest
import rasterio

from hydrata.compute.scenario.package import PackageError
from hydrata.compute.simulation.losses import soil_values, soils, step_losses
from tests.hydrata.compute.channel import feature
from tests.hydrata.compute.flume import Flume, at, rectangle
from tests.run_files import assert_statistics_match_the_files

LENGTH, WIDTH, SLOPE = 100.0, 20.0, 0.01
RAIN_MM_H, IL_MM, CL_MM_H, IMPERVIOUS = 100.0, 10.0, 20.0, 0.25
DURATION = 1800.0
AREA = LENGTH * WIDTH
FLOW_LINE_X = 99.0


def analytic_loss_m3(duration: float = DURATION) -> float:
    """(1 - f) (IL + CL (T - IL / R)) over the plane, for a constant rain R above CL."""
    filled = IL_MM / RAIN_MM_H * 3600.0  # the initial loss is used up after 360 s
    depth_mm = (1 - IMPERVIOUS) * (IL_MM + CL_MM_H / 3600.0 * (duration - filled))
    return AREA * depth_mm / 1000.0


@pytest.fixture(scope="module")
def plane(tmp_path_factory):
    flume = Flume(
        length=LENGTH,
        width=WIDTH,
        bed=lambda x: 1.0 + SLOPE * (LENGTH - x),
        downstream={"boundary": "Transmissive"},
        mannings=0.03,
        layers={
            "rainfall": [rectangle(-1, -1, LENGTH + 1, WIDTH + 1, data=RAIN_MM_H)],
            "soil": [
                rectangle(
                    -1,
                    -1,
                    LENGTH + 1,
                    WIDTH + 1,
                    initial_loss_mm=IL_MM,
                    continuing_loss_mm_h=CL_MM_H,
                    impervious_fraction=IMPERVIOUS,
                )
            ],
            "flow_line": [feature("LineString", [at(FLOW_LINE_X, -1), at(FLOW_LINE_X, WIDTH + 1)], name="outlet")],
        },
    )
    return flume.run(tmp_path_factory.mktemp("plane"), resolution=4.0, duration=DURATION, yield_seconds=30)


def test_the_total_loss_on_a_plane_is_the_analytic_sum_of_initial_and_continuing_losses(plane):
    balance = plane.balance

    assert balance["rainfall_m3"] == pytest.approx(AREA * RAIN_MM_H / 1000 * DURATION / 3600, rel=1e-9)
    assert balance["losses_m3"] == pytest.approx(analytic_loss_m3(), rel=1e-6)
    assert balance["rainfall_excess_m3"] == pytest.approx(balance["rainfall_m3"] - analytic_loss_m3(), rel=1e-6)


def test_what_flows_out_and_stays_is_the_rain_less_the_losses(plane):
    balance = plane.balance

    assert balance["boundary_out_m3"] + balance["final_m3"] - balance["initial_m3"] == pytest.approx(
        balance["rainfall_m3"] - balance["losses_m3"], rel=1e-9
    )
    assert plane.statistics["mass_balance_error_pct"] < 1e-6


def test_the_equilibrium_discharge_is_the_rain_rate_less_the_continuing_loss(plane):
    equilibrium = FLOW_LINE_X * WIDTH * (RAIN_MM_H - (1 - IMPERVIOUS) * CL_MM_H) / 1000 / 3600  # 0.0468 m3/s
    discharge = plane.series["flow_lines"][0]["discharge"]

    assert np.mean(discharge[-5:]) == pytest.approx(equilibrium, rel=0.02)


def test_a_step_loses_the_initial_loss_first_then_the_continuing_loss_for_the_rest_of_the_step():
    rain = np.array([2.0, 2.0, 2.0, 0.5, 2.0])
    pervious = np.array([1.0, 1.0, 0.5, 1.0, 0.0])
    initial = np.array([3.0, 1.0, 0.5, 0.0, 5.0])

    loss, left = step_losses(rain_m=rain, pervious=pervious, initial_left_m=initial, continuing_m=np.full(5, 1.0))

    # all the rain to IL; 1 to IL then half the step at CL; the pervious half's 1 of rain (0.5 to IL, then half
    # the step at CL); CL capped by the rain; no pervious ground, no loss
    assert loss.tolist() == [2.0, 1.5, 1.0, 0.5, 0.0]
    assert left.tolist() == [1.0, 0.0, 0.0, 0.0, 5.0]


def test_the_first_soil_polygon_holding_a_centroid_sets_its_losses_and_outside_every_polygon_none_applies():
    plain = {"type": "Polygon", "coordinates": [[[0, 0], [2, 0], [2, 2], [0, 2], [0, 0]]]}
    wide = {"type": "Polygon", "coordinates": [[[0, 0], [6, 0], [6, 2], [0, 2], [0, 0]]]}
    features = [
        {"geometry": plain, "properties": {"initial_loss_mm": 10, "continuing_loss_mm_h": 3.6}},
        {"geometry": wide, "properties": {"initial_loss_mm": 20, "continuing_loss_mm_h": 0, "impervious_fraction": 1}},
    ]

    soil = soils(np.array([[1.0, 1.0], [4.0, 1.0], [9.0, 1.0]]), features)

    assert soil.initial_loss_m.tolist() == [0.01, 0.0, 0.0]
    assert soil.continuing_loss_m_s.tolist() == [pytest.approx(1e-6), 0.0, 0.0]
    assert soil.pervious.tolist() == [1.0, 0.0, 0.0] and soil.indices.tolist() == [0]


@pytest.mark.parametrize(
    "properties, problem",
    [
        ({"continuing_loss_mm_h": 1}, "initial_loss_mm=None"),
        ({"initial_loss_mm": -1, "continuing_loss_mm_h": 1}, "initial_loss_mm=-1.*0 or more"),
        ({"initial_loss_mm": 1, "continuing_loss_mm_h": "sandy"}, "continuing_loss_mm_h='sandy'"),
        (
            {"initial_loss_mm": 1, "continuing_loss_mm_h": 1, "impervious_fraction": 1.5},
            "impervious_fraction=1.5.*from 0 to 1",
        ),
    ],
)
def test_a_soil_out_of_range_is_refused_by_feature_and_field(properties, problem):
    with pytest.raises(PackageError, match=rf"Soil feature 2 has {problem}"):
        soil_values(2, {"properties": properties})
    assert soil_values(0, {"properties": {"initial_loss_mm": 0, "continuing_loss_mm_h": 0}}) == (0.0, 0.0, 0.0)


def test_the_total_loss_map_holds_the_analytic_loss_depth_on_every_cell_of_the_plane(plane):
    with rasterio.open(plane.output / "total_loss.tif") as source:
        values = source.read(1, masked=True).compressed()
    files = json.loads((plane.output / "result.json").read_text())["files"]

    assert files["total_loss"] == "total_loss.tif"
    assert values.size > 0
    assert np.allclose(values, analytic_loss_m3() / AREA * 1000, rtol=1e-5)  # 13.5 mm everywhere


def test_the_plane_with_losses_agrees_with_the_files_it_wrote(plane):
    assert_statistics_match_the_files(
        plane.statistics, sww=plane.output / "run.sww", max_depth=plane.output / "max_depth.tif"
    )
