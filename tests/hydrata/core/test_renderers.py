"""The one JSON renderer (hydrata/core/renderers.py): an answer holding a lone surrogate is still a JSON answer."""

import json

import pytest
from rest_framework.test import APIClient

from hydrata.core.renderers import replace_lone_surrogates
from hydrata.uploads.models import Dataset
from tests.factories import make_grant

pytestmark = pytest.mark.django_db


def test_a_stored_lone_surrogate_is_answered_as_the_replacement_character_not_an_html_500():
    """JSON stored before the parser refused lone surrogates (here a dataset's property names) may hold one."""
    grant, key = make_grant(level="read")
    dataset = Dataset.objects.create(
        owner=grant.user,
        title="marks",
        name="marks",
        storage_key="datasets/none/features.geojson",
        crs="EPSG:28356",
        feature_count=1,
        property_names=["level\ud800", "ok"],
        bbox_wgs84=[0, 0, 1, 1],
        bbox_native=[0, 0, 1, 1],
    )
    client = APIClient(raise_request_exception=False)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")

    response = client.get(f"/api/v2/datasets/{dataset.pk}/")

    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert json.loads(response.content.decode("utf-8"))["dataset"]["property_names"] == ["level\ufffd", "ok"]


def test_replacing_keeps_everything_else_as_it_was():
    data = {"a\udc00": ["x\ud800y", 1, None, ("t", 2.5)], "b": {"c": "été 😀"}}

    assert replace_lone_surrogates(data) == {"a\ufffd": ["x\ufffdy", 1, None, ["t", 2.5]], "b": {"c": "été 😀"}}
