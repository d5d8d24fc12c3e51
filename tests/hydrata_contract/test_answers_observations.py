"""The observations' answers in the contract: what the API tests cannot show, since the platform never builds it
(a key the model lacks, a quantity that is none, a comparison's stored row gaining a key)."""

import pytest
from pydantic import ValidationError

from hydrata_contract.answers.observations import ComparisonDetail, ObservationDetail, ObservationImport
from hydrata_contract.observations import Quantity

NOW = "2026-12-02T06:00:00Z"
OBSERVATION = {
    "id": 1,
    "event": 2,
    "x": 251100.0,
    "y": 6271900.0,
    "crs": "EPSG:28356",
    "given": {"x": 153.0, "y": -27.5, "crs": "EPSG:4326"},
    "quantity": "peak_stage",
    "value_m": 10.2,
    "tolerance_m": 0.3,
    "observed_at": None,
    "source": "",
    "notes": "",
    "ui_url": "https://hydrata.example/catalogue/#/map/3?panel=observations&event=2",
    "created_at": NOW,
    "updated_at": NOW,
}
POINT = {
    "observation_id": 1,
    "quantity": "peak_depth",
    "observed": 0.4,
    "tolerance": 0.3,
    "modelled": None,
    "error": None,
    "within_tolerance": None,
    "wet": None,
    "in_model": False,
    "x": 251100.0,
    "y": 6271900.0,
}
METRICS = {
    "n": 0,
    "within_tolerance": 0,
    "outside_model": 1,
    "dry": 0,
    "bias": None,
    "mae": None,
    "rmse": None,
    "max_abs_error": None,
    "within_tolerance_share": None,
}
COMPARISON = {
    "id": 4,
    "run": 5,
    "event": 2,
    "event_name": "March 2022",
    "project": 3,
    "crs": "EPSG:28356",
    "scenario": 6,
    "scenario_name": "Base",
    "method": "raster_cell",
    "computed_at": NOW,
    "is_stale": False,
    "metrics": METRICS,
    "points": [POINT],
    "ui_url": "https://hydrata.example/catalogue/#/map/3?panel=comparison",
}


def test_an_observation_as_the_platform_builds_it_is_read_with_its_quantity_as_the_contracts_member():
    assert ObservationDetail.model_validate(OBSERVATION).quantity is Quantity.PEAK_STAGE


def test_an_observation_with_a_key_the_model_lacks_is_refused():
    with pytest.raises(ValidationError, match="peak_flow"):
        ObservationDetail.model_validate({**OBSERVATION, "peak_flow": 3.0})


def test_a_quantity_the_contract_does_not_name_is_refused_in_an_observation_and_in_an_import():
    with pytest.raises(ValidationError, match="quantity"):
        ObservationDetail.model_validate({**OBSERVATION, "quantity": "peak_speed"})
    with pytest.raises(ValidationError, match="quantity"):
        ObservationImport.model_validate(
            {
                "event": 2,
                "imported": 0,
                "quantity": "depth",
                "value_min": None,
                "value_max": None,
                "bbox_wgs84": None,
                "observation_count": 0,
            }
        )


def test_a_comparison_of_a_point_off_the_model_is_read_and_a_stored_row_that_gains_a_key_is_refused():
    assert ComparisonDetail.model_validate(COMPARISON).points[0].in_model is False
    with pytest.raises(ValidationError, match=r"points\.0\.speed"):
        ComparisonDetail.model_validate({**COMPARISON, "points": [{**POINT, "speed": 1.0}]})
    with pytest.raises(ValidationError, match=r"metrics\.nse"):
        ComparisonDetail.model_validate({**COMPARISON, "metrics": {**METRICS, "nse": 0.9}})


def test_the_quantities_keep_the_labels_the_migrations_recorded():
    assert Quantity.choices() == [("peak_stage", "Peak stage (water level, m)"), ("peak_depth", "Peak depth (m)")]
