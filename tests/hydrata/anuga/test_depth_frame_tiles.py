"""Depth at saved times over REST: the run's tile layers list the frames with their times, the run's tile route
draws a frame (`?frame=`), a frame out of range is a 400 INVALID_FRAME, and a run from before frames has none."""

import io

import morecantile
import numpy as np
import pytest
from PIL import Image
from rest_framework.test import APIClient

from hydrata.storage import get_storage
from tests.factories import make_finished_run, make_project, make_ready_terrain, make_user

pytestmark = pytest.mark.django_db

WEB_MERCATOR = morecantile.tms.get("WebMercatorQuad")
CENTRE = WEB_MERCATOR.tile(150.315665, -33.663676, 18)  # the small_test DEM's middle


def signed_in(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def frame_url(run, frame: str | int | None, layer: str = "depth") -> str:
    query = "" if frame is None else f"?frame={frame}"
    return f"/api/v2/anuga/runs/{run.pk}/tiles/{layer}/{CENTRE.z}/{CENTRE.x}/{CENTRE.y}.png{query}"


def drawn_share(response) -> float:
    return float((np.asarray(Image.open(io.BytesIO(response.content)).convert("RGBA"))[..., 3] == 255).mean())


def dem_shape(project) -> tuple[int, int]:
    import rasterio

    terrain = make_ready_terrain(project)
    with get_storage().local_path(key=terrain.dem_key) as path, rasterio.open(path) as dem:
        return dem.height, dem.width


@pytest.fixture
def owner():
    return make_user("alice")


@pytest.fixture
def filling_run(owner):
    """The water spreads from the west: dry at 0 s, the western quarter at 60 s, the western half at 120 s."""
    project = make_project(owner)
    height, width = dem_shape(project)
    frames = {}
    for time, share in ((0.0, 0.0), (60.0, 0.25), (120.0, 0.5)):
        depth = np.zeros((height, width), dtype=np.float32)
        depth[:, : int(width * share)] = 1.0
        frames[time] = depth
    return make_finished_run(project, frames=frames)


def test_the_tile_layers_list_the_depth_at_each_saved_time(owner, filling_run):
    answer = signed_in(owner).get(f"/api/v2/anuga/runs/{filling_run.pk}/tiles/").json()

    frames = answer["frames"]
    assert frames["name"] == "depth" and frames["units"] == "m"
    assert frames["times"] == [0.0, 60.0, 120.0] and frames["saved"] == 3 and frames["note"] == ""
    assert frames["tiles"].endswith("/tiles/depth/{z}/{x}/{y}.png?frame={frame}")
    assert frames["legend"] == next(layer["legend"] for layer in answer["results"] if layer["name"] == "max_depth")


def test_each_frame_draws_the_water_of_its_time(owner, filling_run):
    client = signed_in(owner)

    shares = [drawn_share(client.get(frame_url(filling_run, frame))) for frame in range(3)]

    assert shares[0] == 0.0  # dry: a clear tile
    assert 0.0 < shares[1] < shares[2] < 0.9  # the wet west grows


@pytest.mark.parametrize("frame", ["3", "-1", "one", "1.5", "99999999"])
def test_a_frame_out_of_range_or_not_a_whole_number_is_a_400_saying_which_frames_exist(owner, filling_run, frame):
    response = signed_in(owner).get(frame_url(filling_run, frame))

    assert response.status_code == 400 and response.json()["code"] == "INVALID_FRAME"
    assert response.json()["detail"]


def test_the_depth_layer_without_a_frame_is_a_400_naming_the_range(owner, filling_run):
    response = signed_in(owner).get(frame_url(filling_run, None))

    assert response.status_code == 400 and response.json()["code"] == "INVALID_FRAME"
    assert "from 0 to 2" in response.json()["detail"]


def test_a_frame_asked_of_a_whole_run_layer_is_a_400(owner, filling_run):
    response = signed_in(owner).get(frame_url(filling_run, 1, layer="max_depth"))

    assert response.status_code == 400 and response.json()["code"] == "INVALID_FRAME"


def test_over_the_cap_the_answer_says_an_evenly_spaced_subset_is_kept(owner):
    project = make_project(owner)
    height, width = dem_shape(project)
    wet = np.ones((height, width), dtype=np.float32)
    run = make_finished_run(project, frames={0.0: wet, 150.0: wet, 300.0: wet}, saved_frames=31)

    frames = signed_in(owner).get(f"/api/v2/anuga/runs/{run.pk}/tiles/").json()["frames"]

    assert frames["times"] == [0.0, 150.0, 300.0] and frames["saved"] == 31
    assert "31" in frames["note"] and "3 evenly spaced" in frames["note"]


def test_a_run_from_before_frames_were_kept_has_none_and_says_why(owner):
    run = make_finished_run(make_project(owner))
    client = signed_in(owner)

    frames = client.get(f"/api/v2/anuga/runs/{run.pk}/tiles/").json()["frames"]
    response = client.get(frame_url(run, 0))

    assert frames["times"] == [] and frames["saved"] == 0 and "before" in frames["note"]
    assert response.status_code == 400 and response.json()["code"] == "INVALID_FRAME"


def test_another_accounts_frames_are_not_found(filling_run):
    response = signed_in(make_user("mallory")).get(frame_url(filling_run, 1))

    assert response.status_code == 404 and response.json()["code"] == "RUN_NOT_FOUND"
