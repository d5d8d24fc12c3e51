"""A complete design study's envelope tiles over REST: every layer of an AEP drawn as a run's are (the hazard in its
classes' colours, the critical duration a class per duration), scoped through the study's project, and a bad AEP,
layer or address refused with its machine code.

The members are complete runs whose rasters the factory writes (no ANUGA here: tests/hydrata_mcp/
test_design_study_runs.py runs a study on a real worker); their envelopes are computed by the study's own service."""

import io

import morecantile
import numpy as np
import pytest
import rasterio
from django.utils import timezone
from PIL import Image
from rest_framework.test import APIClient

from hydrata.anuga.models import Project, Scenario, Terrain
from hydrata.studies.models import DesignMember, DesignStudy
from hydrata.studies.services.envelopes import design_study_envelopes
from hydrata_contract.hazard import HazardClass
from hydrata_contract.layers import CRITICAL_DURATION, ResultLayer
from hydrata_contract.studies import StudyStatus
from tests.data import DEM
from tests.factories import make_finished_run, make_grant, make_user
from tests.hydrata.studies.helpers import base_scenario, upload_inputs
from tests.model_setup import PROJECTS, api, small_test_model

pytestmark = pytest.mark.django_db(transaction=True)

WEB_MERCATOR = morecantile.tms.get("WebMercatorQuad")
FILES = {"ifd": "Synthetic_IFD_Depths_Short.csv", "temporal_patterns": "Synthetic_Increments_Two_Patterns.csv"}
ENVELOPED = [ResultLayer.MAX_DEPTH, ResultLayer.MAX_STAGE, ResultLayer.MAX_SPEED, ResultLayer.MAX_HAZARD]
LAYERS = [*sorted(layer.value for layer in ENVELOPED), CRITICAL_DURATION]  # as the envelopes are written
# Each member's peak depth (m) over the model's west and east halves: the 5-minute storms' median is 0.4 m in the
# west and dry in the east, the 10-minute storms' 0.1 m and 1.0 m; so the 5-minute storm is critical in the west and
# the 10-minute one in the east.
DEPTHS = {(5, 1051): (0.3, 0.0), (5, 1052): (0.5, 0.0), (10, 1061): (0.1, 0.9), (10, 1062): (0.1, 1.1)}


def member_depth(west: float, east: float) -> np.ndarray:
    with rasterio.open(DEM) as source:
        depth = np.full((source.height, source.width), east, dtype=np.float32)
    depth[:, : depth.shape[1] // 2] = west
    return depth


def complete_study(url: str) -> tuple[DesignStudy, Terrain]:
    """A study of the 1% AEP, 5 and 10 minutes, two patterns each, made over REST; its members' runs complete with
    the depths above, and its envelopes computed by the service that computes them after a real study."""
    _, key = make_grant(level="draft")
    model = small_test_model(url, key)
    with api(url, key) as http:
        scenario = base_scenario(http, model.project_id)
        inputs = upload_inputs(http, model.project_id, FILES)
        made = http.post(
            f"{PROJECTS}{model.project_id}/design-studies/",
            json={
                "name": "two storms",
                "base_scenario": scenario["id"],
                **inputs,
                "aeps": ["1%"],
                "durations_min": [5, 10],
                "initial_loss_mm": 5,
                "continuing_loss_mm_h": 1,
            },
        )
    assert made.status_code == 201, made.text
    base = Scenario.objects.get(pk=scenario["id"])
    for member in DesignMember.objects.filter(study_id=made.json()["id"]):
        depth = member_depth(*DEPTHS[member.duration_min, member.pattern])
        member.run = make_finished_run(base.project, scenario=base, depth=depth, hazard=True)
        member.save()
    DesignStudy.objects.filter(pk=made.json()["id"]).update(
        status=StudyStatus.POST_PROCESSING, started_at=timezone.now()
    )
    study = design_study_envelopes(study_id=made.json()["id"])
    assert study.status == StudyStatus.COMPLETE, study.status_message
    assert base.terrain is not None
    return study, base.terrain


@pytest.fixture
def study(live_asgi) -> tuple[DesignStudy, Terrain]:
    return complete_study(live_asgi.url)


def signed_in(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def owner_of(study: DesignStudy):
    return Project.objects.get(pk=study.project_id).owner


def tiles_path(study: DesignStudy) -> str:
    return f"{PROJECTS}{study.project_id}/design-studies/{study.pk}/tiles/"


def tiles_over(terrain: Terrain, zoom: int = 18) -> list[morecantile.Tile]:
    return list(WEB_MERCATOR.tiles(*terrain.bbox_wgs84, zooms=[zoom]))


def drawn_colours(client: APIClient, study: DesignStudy, terrain: Terrain, layer: str) -> set[str]:
    """Every opaque colour the layer's tiles over the model draw, as #rrggbb."""
    colours: set[str] = set()
    for tile in tiles_over(terrain):
        response = client.get(f"{tiles_path(study)}1pct/{layer}/{tile.z}/{tile.x}/{tile.y}.png")
        assert response.status_code == 200 and response["Content-Type"] == "image/png", response.content[:200]
        image = np.asarray(Image.open(io.BytesIO(response.content)).convert("RGBA"))
        colours |= {"#" + "".join(f"{int(v):02x}" for v in pixel[:3]) for pixel in image[image[..., 3] == 255]}
    return colours


def test_every_envelope_layer_of_an_aep_is_listed_with_its_tiles_units_and_legend(study):
    record, _ = study

    response = signed_in(owner_of(record)).get(tiles_path(record))

    assert response.status_code == 200, response.content
    (aep,) = response.json()["aeps"]
    assert aep["aep"] == "1%"
    layers = {layer["name"]: layer for layer in aep["layers"]}
    assert list(layers) == LAYERS
    for name, layer in layers.items():
        assert layer["tiles"] == f"{tiles_path(record)}1pct/{name}/{{z}}/{{x}}/{{y}}.png"
        assert not layer["empty"] and layer["legend"]
        assert "1% AEP" in layer["title"]
    assert layers["max_depth"]["units"] == "m" and layers["max_depth"]["legend"][-1]["value"] == pytest.approx(1.0)
    assert [stop["colour"] for stop in layers["max_hazard"]["legend"]] == [item.colour for item in HazardClass]
    critical = layers[CRITICAL_DURATION]
    assert critical["units"] == "min"
    assert [(stop["value"], stop["label"]) for stop in critical["legend"]] == [(5, "5 min"), (10, "10 min")]


def test_every_layer_draws_the_wet_model_the_hazard_in_its_classes_and_the_critical_duration_a_class_each(study):
    record, terrain = study
    client = signed_in(owner_of(record))
    legend = client.get(tiles_path(record)).json()["aeps"][0]["layers"][-1]["legend"]

    colours = {layer: drawn_colours(client, record, terrain, layer) for layer in LAYERS}

    assert all(colours.values()), {layer: len(drawn) for layer, drawn in colours.items()}
    hazard = colours[ResultLayer.MAX_HAZARD.value]
    assert hazard <= {item.colour for item in HazardClass}, hazard
    # The west half's critical duration is 5 minutes and the east half's 10: both classes are drawn, nothing else.
    assert colours[CRITICAL_DURATION] == {stop["colour"] for stop in legend}


def test_a_bad_aep_layer_or_address_is_refused_with_its_code(study):
    record, terrain = study
    client = signed_in(owner_of(record))
    tile = tiles_over(terrain)[0]
    address = f"{tile.z}/{tile.x}/{tile.y}.png"

    no_aep = client.get(f"{tiles_path(record)}2pct/max_depth/{address}")
    no_layer = client.get(f"{tiles_path(record)}1pct/max_secrets/{address}")
    no_tile = client.get(f"{tiles_path(record)}1pct/max_depth/25/0/0.png")

    assert no_aep.status_code == 404 and no_aep.json()["code"] == "AEP_NOT_IN_STUDY"
    assert "1pct (1%)" in no_aep.json()["detail"]
    assert no_layer.status_code == 404 and no_layer.json()["code"] == "LAYER_NOT_FOUND"
    assert CRITICAL_DURATION in no_layer.json()["detail"]
    assert no_tile.status_code == 400 and no_tile.json()["code"] == "INVALID_TILE"


def test_another_accounts_study_tiles_are_not_found_and_a_read_key_of_the_owner_reads_them(study):
    record, terrain = study
    tile = tiles_over(terrain)[0]
    url = f"{tiles_path(record)}1pct/max_depth/{tile.z}/{tile.x}/{tile.y}.png"
    stranger = make_user("mallory")
    _, stranger_key = make_grant(stranger, level="read")
    _, owner_key = make_grant(owner_of(record), level="read")
    by_key = APIClient()
    by_key.credentials(HTTP_AUTHORIZATION=f"Bearer {stranger_key}")
    owners_key = APIClient()
    owners_key.credentials(HTTP_AUTHORIZATION=f"Bearer {owner_key}")

    for client in (signed_in(stranger), by_key):
        for path in (tiles_path(record), url):
            response = client.get(path)
            assert response.status_code == 404 and response.json()["code"] == "PROJECT_NOT_FOUND", path
    assert owners_key.get(url).status_code == 200


def test_a_study_not_complete_has_no_tiles_yet(study):
    record, terrain = study
    DesignStudy.objects.filter(pk=record.pk).update(status=StudyStatus.RUNNING)
    tile = tiles_over(terrain)[0]

    listed = signed_in(owner_of(record)).get(tiles_path(record))
    tiled = signed_in(owner_of(record)).get(f"{tiles_path(record)}1pct/max_depth/{tile.z}/{tile.x}/{tile.y}.png")

    for response in (listed, tiled):
        assert response.status_code == 409 and response.json()["code"] == "STUDY_NOT_COMPLETE"
        assert response.json()["status"] == "running"
