"""A member's own layers and series: each target changes exactly what it names, and the child reads the changes
(compute/simulation/forcing.py's own readers), so that nothing a study accepts is stored and ignored."""

import numpy as np
import pytest

from hydrata.compute.calibration.members import TargetMissing, check_targets, member_files
from hydrata.compute.scenario.package import SeriesRecord
from hydrata.compute.simulation.forcing import DEFAULT_MANNINGS, forcing_value, friction_values
from hydrata_contract.requests.calibration import CalibrationParameter

EXTENT = (0.0, 0.0, 100.0, 100.0)


def square(name: str, west: float, south: float, east: float, north: float, **properties) -> dict:
    ring = [[west, south], [east, south], [east, north], [west, north], [west, south]]
    return {
        "type": "Feature",
        "properties": {"name": name, **properties},
        "geometry": {"type": "Polygon", "coordinates": [ring]},
    }


def collection(*features: dict) -> dict:
    return {"type": "FeatureCollection", "features": list(features)}


LAYERS = {
    "friction": collection(
        square("grass", 0, 0, 50, 100, mannings=0.035), square("road", 50, 0, 60, 100, mannings=0.015)
    ),
    "soil": collection(square("clay", 0, 0, 100, 100, initial_loss_mm=10.0, continuing_loss_mm_h=2.0)),
    "inflow": {
        "type": "FeatureCollection",
        "features": [
            {"type": "Feature", "properties": {"name": "creek", "data": "creek flow"}, "geometry": None},
            {"type": "Feature", "properties": {"name": "drain", "data": 2.0}, "geometry": None},
        ],
    },
    "rainfall": collection(square("all", 0, 0, 100, 100, data="storm"), square("roof", 0, 0, 10, 10, data=20.0)),
}
SERIES = {
    "creek flow": {
        "name": "creek flow",
        "units": "m3/s",
        "rows": [{"timestamp": 0, "value": 1.0}, {"timestamp": 60, "value": 3.0}],
    },
    "storm": {
        "name": "storm",
        "units": "mm/hr",
        "rows": [{"timestamp": 0, "value": 10.0}, {"timestamp": 60, "value": None}],
    },
}
CENTROIDS = np.array([[25.0, 50.0], [55.0, 50.0], [80.0, 50.0]])  # grass, road, no polygon


def files(*pairs: tuple[dict, float]):
    parameters = [CalibrationParameter(**given) for given, _ in pairs]
    return member_files(
        parameters=parameters,
        values=[value for _, value in pairs],
        layers=LAYERS,
        series=SERIES,
        extent=EXTENT,
        crs="EPSG:28356",
    )


def test_a_friction_parameter_sets_n_only_where_its_polygons_lie():
    made = files(({"target": "friction", "name": "grass", "low": 0.01, "high": 0.1}, 0.07))

    n = friction_values(CENTROIDS, made.layers["friction"]["features"])

    assert n.tolist() == [0.07, 0.015, DEFAULT_MANNINGS]
    assert set(made.layers) == {"friction"} and made.series == {}
    assert LAYERS["friction"]["features"][0]["properties"]["mannings"] == 0.035  # the base is never changed


def test_a_multiplier_on_all_friction_scales_every_n_and_the_default_where_no_polygon_lies():
    made = files(
        ({"target": "friction", "name": "grass", "low": 0.01, "high": 0.1}, 0.04),
        ({"target": "all_friction", "low": 0.5, "high": 2}, 1.5),
    )

    n = friction_values(CENTROIDS, made.layers["friction"]["features"])

    assert n == pytest.approx([0.06, 0.0225, DEFAULT_MANNINGS * 1.5])


def test_a_multiplier_where_the_base_has_no_friction_layer_scales_the_default_everywhere():
    made = member_files(
        parameters=[CalibrationParameter(target="all_friction", low=0.5, high=2)],
        values=[0.5],
        layers={"friction": None},
        series={},
        extent=EXTENT,
        crs="EPSG:28356",
    )

    assert friction_values(CENTROIDS, made.layers["friction"]["features"]) == pytest.approx(
        [DEFAULT_MANNINGS * 0.5] * 3
    )


def test_a_soils_losses_are_set_on_the_soils_of_its_name():
    made = files(
        ({"target": "soil_initial_loss", "name": "clay", "low": 0, "high": 50}, 25.0),
        ({"target": "soil_continuing_loss", "name": "clay", "low": 0, "high": 10}, 4.5),
    )

    properties = made.layers["soil"]["features"][0]["properties"]
    assert (properties["initial_loss_mm"], properties["continuing_loss_mm_h"]) == (25.0, 4.5)


def test_scaling_an_inflow_scales_its_hydrograph_into_a_series_of_the_members_own():
    made = files(({"target": "inflow", "name": "creek", "low": 0.5, "high": 2}, 1.25))

    creek, drain = made.layers["inflow"]["features"]
    own = made.series[creek["properties"]["data"]]
    flow = forcing_value(
        creek["properties"]["data"],
        series={name: SeriesRecord(rows=doc["rows"], units=doc["units"]) for name, doc in made.series.items()},
        start=None,
        scale=1.0,
        what="creek",
        use="flow",
    )
    assert [row["value"] for row in own["rows"]] == [1.25, 3.75]
    assert flow(30.0) == pytest.approx(2.5)
    assert drain["properties"]["data"] == 2.0  # another name: untouched


def test_scaling_the_rain_scales_every_rainfall_polygon_number_or_series():
    made = files(({"target": "rain", "low": 0.5, "high": 2}, 2.0))

    storm, roof = made.layers["rainfall"]["features"]
    assert roof["properties"]["data"] == 40.0
    assert [row["value"] for row in made.series[storm["properties"]["data"]]["rows"]] == [20.0, None]


@pytest.mark.parametrize(
    "given",
    [
        {"target": "friction", "name": "gravel", "low": 0.01, "high": 0.1},
        {"target": "soil_initial_loss", "name": "sand", "low": 0, "high": 10},
        {"target": "inflow", "name": "river", "low": 0.5, "high": 2},
    ],
)
def test_a_name_the_base_build_lacks_is_refused_naming_those_it_has(given):
    with pytest.raises(TargetMissing, match=f"named '{given['name']}'"):
        check_targets(parameters=[CalibrationParameter(**given)], layers=LAYERS)


def test_scaling_the_rain_of_a_base_without_rain_is_refused():
    with pytest.raises(TargetMissing, match="no rainfall layer"):
        check_targets(parameters=[CalibrationParameter(target="rain", low=0.5, high=2)], layers={"rainfall": None})
