"""Map tiles over REST: scoped like the run or terrain they show, validated addresses, transparent off the raster."""

import io

import morecantile
import numpy as np
import pytest
from PIL import Image
from rest_framework.test import APIClient

from hydrata.storage import get_storage
from hydrata_contract.states import RunStatus
from tests.factories import make_finished_run, make_grant, make_project, make_ready_terrain, make_user

pytestmark = pytest.mark.django_db

WEB_MERCATOR = morecantile.tms.get("WebMercatorQuad")
# The small_test DEM's middle, where the default finished run is wet (west) and dry (east).
CENTRE = WEB_MERCATOR.tile(150.315665, -33.663676, 18)


def signed_in(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def with_key(user, level: str = "read") -> APIClient:
    _, key = make_grant(user, level=level)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def tile_url(run, layer: str = "max_depth", tile=CENTRE) -> str:
    return f"/api/v2/anuga/runs/{run.pk}/tiles/{layer}/{tile.z}/{tile.x}/{tile.y}.png"


def pixels(response) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(response.content)).convert("RGBA"))


@pytest.fixture
def owner():
    return make_user("alice")


@pytest.fixture
def run(owner):
    return make_finished_run(make_project(owner))


def test_a_depth_tile_is_a_png_that_draws_the_wet_cells(owner, run):
    response = signed_in(owner).get(tile_url(run))

    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert response["Cache-Control"].startswith("private")
    image = pixels(response)
    assert image.shape == (256, 256, 4)
    assert 0.1 < (image[..., 3] == 255).mean() < 0.9  # wet west half drawn, dry east half transparent


def test_a_read_level_agent_key_reads_the_tiles_too(owner, run):
    assert with_key(owner).get(tile_url(run)).status_code == 200


def test_another_accounts_run_tiles_are_not_found(run):
    stranger = make_user("mallory")

    for client in (signed_in(stranger), with_key(stranger)):
        response = client.get(tile_url(run))
        assert response.status_code == 404 and response.json()["code"] == "RUN_NOT_FOUND"


def test_a_viewer_of_the_project_reads_its_run_tiles():
    viewer = make_user("victor")
    run = make_finished_run(make_project(make_user("alice"), members={viewer: "viewer"}))

    assert signed_in(viewer).get(tile_url(run)).status_code == 200


@pytest.mark.parametrize("address", ["25/0/0", "3/8/0", "3/0/8", "3/-1/0", "x/0/0", "3/1.5/0", "3/0/99999999999"])
def test_a_bad_tile_address_is_400_with_a_reason(owner, run, address):
    response = signed_in(owner).get(f"/api/v2/anuga/runs/{run.pk}/tiles/max_depth/{address}.png")

    assert response.status_code == 400, response.content
    assert response.json()["code"] == "INVALID_TILE" and response.json()["detail"]


def test_a_tile_outside_the_raster_is_transparent(owner, run):
    response = signed_in(owner).get(tile_url(run, tile=morecantile.Tile(x=0, y=0, z=3)))

    assert response.status_code == 200
    assert (pixels(response)[..., 3] == 0).all()


def test_an_unknown_result_layer_is_not_found(owner, run):
    response = signed_in(owner).get(tile_url(run, layer="max_secrets"))

    assert response.status_code == 404 and response.json()["code"] == "LAYER_NOT_FOUND"


def test_a_run_without_results_has_no_tiles(owner, run):
    run.status = RunStatus.COMPUTING
    run.save()

    response = signed_in(owner).get(tile_url(run))

    assert response.status_code == 409 and response.json()["code"] == "RUN_NOT_COMPLETE"


def test_the_tile_index_lists_each_result_with_units_and_a_legend_and_no_signed_link(owner, run):
    response = signed_in(owner).get(f"/api/v2/anuga/runs/{run.pk}/tiles/")

    assert response.status_code == 200
    layers = {layer["name"]: layer for layer in response.json()["results"]}
    assert set(layers) == {"max_depth", "max_speed", "max_stage"}
    depth = layers["max_depth"]
    assert depth["units"] == "m" and layers["max_speed"]["units"] == "m/s"
    assert depth["tiles"] == f"/api/v2/anuga/runs/{run.pk}/tiles/max_depth/{{z}}/{{x}}/{{y}}.png"
    assert depth["legend"][0]["value"] == 0 and depth["legend"][-1]["value"] == pytest.approx(1.0)
    assert "Signature" not in response.content.decode() and "s3_" not in response.content.decode()


def test_a_run_that_never_got_wet_has_empty_result_layers(owner):
    run = make_finished_run(make_project(owner), depth=np.zeros((200, 200), dtype=np.float32))

    layers = signed_in(owner).get(f"/api/v2/anuga/runs/{run.pk}/tiles/").json()["results"]
    tile = signed_in(owner).get(tile_url(run))

    assert all(layer["empty"] and layer["legend"] == [] for layer in layers)
    assert (pixels(tile)[..., 3] == 0).all()


def test_terrain_tiles_draw_a_hillshade_and_an_elevation_ramp_with_its_legend(owner):
    project = make_project(owner)
    terrain = make_ready_terrain(project)
    base = f"/api/v2/anuga/projects/{project.pk}/terrain/{terrain.pk}/tiles/"
    client = signed_in(owner)

    index = client.get(base).json()["results"]
    shaded = client.get(f"{base}hillshade/{CENTRE.z}/{CENTRE.x}/{CENTRE.y}.png")
    coloured = client.get(f"{base}elevation/{CENTRE.z}/{CENTRE.x}/{CENTRE.y}.png")

    elevation = next(layer for layer in index if layer["name"] == "elevation")
    assert elevation["units"] == "m"
    assert elevation["legend"][0]["value"] == pytest.approx(terrain.elevation_min, abs=1e-3)
    assert elevation["legend"][-1]["value"] == pytest.approx(terrain.elevation_max, abs=1e-3)
    for response in (shaded, coloured):
        assert response.status_code == 200 and response["Content-Type"] == "image/png"
        assert (pixels(response)[..., 3] == 255).mean() > 0.5


def test_another_accounts_terrain_tiles_are_not_found(owner):
    project = make_project(owner)
    terrain = make_ready_terrain(project)

    response = signed_in(make_user("mallory")).get(
        f"/api/v2/anuga/projects/{project.pk}/terrain/{terrain.pk}/tiles/hillshade/{CENTRE.z}/{CENTRE.x}/{CENTRE.y}.png"
    )

    assert response.status_code == 404 and response.json()["code"] == "PROJECT_NOT_FOUND"


def test_a_tile_once_drawn_is_served_from_the_cache(owner, run):
    client = signed_in(owner)
    first = client.get(tile_url(run))
    for layer in ("max_depth", "max_speed", "max_stage"):
        get_storage().delete(key=f"{run.results_prefix}/{layer}.tif")

    again = client.get(tile_url(run))

    assert again.status_code == 200 and again.content == first.content
