"""Reading an uploaded GeoJSON without Django: the checks, the CRS it names, and the one reader of "crs"."""

import json

import pytest

from hydrata.compute.errors import GeoJSONRejected
from hydrata.compute.geojson import DEFAULT_CRS, crs_member_name, crs_urn, geojson_inspect

SQUARE = {
    "type": "Polygon",
    "coordinates": [[[151.0, -33.9], [151.1, -33.9], [151.1, -33.8], [151.0, -33.8], [151.0, -33.9]]],
}


def collection(*geometries, crs=None) -> bytes:
    features = [{"type": "Feature", "geometry": g, "properties": {"n": i}} for i, g in enumerate(geometries)]
    document = {"type": "FeatureCollection", "features": features}
    if crs is not None:
        document["crs"] = crs
    return json.dumps(document).encode()


@pytest.mark.parametrize(
    "member",
    [
        "EPSG:28356",
        {"type": "name", "properties": {"name": "EPSG:28356"}},
        {"type": "EPSG", "properties": {"code": 28356}},
    ],
)
def test_each_legacy_form_of_the_crs_member_gives_its_name(member):
    assert crs_member_name(member) == "EPSG:28356"


@pytest.mark.parametrize(
    "member", [{}, [], 28356, {"type": "link", "properties": {"href": "x"}}, {"properties": {"name": "EPSG:28356"}}]
)
def test_a_crs_member_in_any_other_form_has_no_name(member):
    assert crs_member_name(member) is None


def test_a_collection_without_a_crs_member_is_longitude_latitude_with_its_extent():
    inspected = geojson_inspect(data=collection(SQUARE), max_features=10)

    assert DEFAULT_CRS == inspected.crs == "EPSG:4326"
    assert inspected.geometry_types == ["Polygon"] and inspected.property_names == ["n"]
    assert inspected.bbox_native == [151.0, -33.9, 151.1, -33.8]
    assert inspected.bbox_wgs84 == pytest.approx([151.0, -33.9, 151.1, -33.8])


def test_an_unreadable_crs_member_is_rejected_with_the_form_to_use():
    with pytest.raises(GeoJSONRejected, match="not in a form this importer reads"):
        geojson_inspect(data=collection(SQUARE, crs={"type": "link"}), max_features=10)


def test_too_many_features_are_rejected_before_any_geometry_is_read():
    with pytest.raises(GeoJSONRejected, match="has 2 features; at most 1"):
        geojson_inspect(data=collection(SQUARE, None), max_features=1)


def test_a_normalised_crs_member_names_the_crs_by_its_urn():
    assert crs_urn("EPSG:28356") == "urn:ogc:def:crs:EPSG::28356"
    assert crs_urn("OGC:CRS84") == "urn:ogc:def:crs:OGC:1.3:CRS84"
