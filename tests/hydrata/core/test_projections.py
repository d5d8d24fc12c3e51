"""The one reader of CRS input: authority codes only, looked up by code."""

import pytest

from hydrata.core.errors import ValidationFailed
from hydrata.core.projections import crs_code_validate, projection_normalise


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ("EPSG:4326", "EPSG:4326"),
        (" epsg:28356 ", "EPSG:28356"),
        ("ESRI:102100", "ESRI:102100"),
        ("OGC:CRS84", "OGC:CRS84"),
    ],
)
def test_an_authority_code_of_a_horizontal_crs_is_accepted_and_normalised(value, code):
    assert crs_code_validate(value) == code


@pytest.mark.parametrize(
    "value",
    [
        "garbage",
        "+init=epsg:4326",
        "+proj=longlat +datum=WGS84",
        'GEOGCS["WGS 84",DATUM["WGS_1984"]]',
        "EPSG:99999999",
        "EPSG:5711",
        "",
        "/usr/share/proj/epsg",
    ],
)
def test_anything_else_is_invalid_crs(value):
    with pytest.raises(ValidationFailed) as refusal:
        crs_code_validate(value)

    assert refusal.value.error_code == "INVALID_CRS"


def test_a_project_projection_must_still_be_a_projected_epsg_crs_in_metres():
    assert projection_normalise("epsg:28356") == "EPSG:28356"
    for value in ("EPSG:4326", "ESRI:102100", "EPSG:2229"):
        with pytest.raises(ValidationFailed) as refusal:
            projection_normalise(value)
        assert refusal.value.error_code == "INVALID_PROJECTION"
