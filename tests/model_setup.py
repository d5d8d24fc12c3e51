"""Arrange a small_test model through the platform's own REST API, as an agent would, over a live server."""

import json
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.data import BOUNDARY, DEM, RAINFALL

PROJECTS = "/api/v2/anuga/projects/"
KIND_PATHS = {
    "boundary": "boundaries",
    "friction": "frictions",
    "inflow": "inflows",
    "rainfall": "rainfalls",
    "structure": "structures",
    "breakline": "breaklines",
    "culvert": "culverts",
    "weir": "weirs",
    "mesh_region": "mesh-regions",
    "gauge": "gauges",
    "flow_line": "flow-lines",
    "initial_condition": "initial-conditions",
    "soil": "soils",
}


@dataclass
class Model:
    project_id: int
    terrain_id: int
    rows: dict[str, int]  # kind -> default row id


# httpx loads the CA bundle into a new TLS context for every client it makes, https or not: about 40 ms of CPU. The
# suite's clients make thousands of plain-HTTP calls to loopback, so they share one.
SHARED_TLS = ssl.create_default_context()


def api(url: str, key: str) -> httpx.Client:
    return httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=120, verify=SHARED_TLS)


# However long work keeps moving, a wait gives up after this: a test never hangs for ever.
LONGEST_WAIT_SECONDS = 1800


class Stall:
    """A deadline derived from the work, not from the clock alone: it moves on whenever the reading changes (a
    run's heartbeat, progress or state), so a busy machine that slows the work down never fails a wait, and work
    that has stopped still fails it `seconds` after its last change."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.last: object = None
        self.deadline = time.monotonic() + seconds
        self.cap = time.monotonic() + max(seconds, LONGEST_WAIT_SECONDS)

    def waiting(self, reading: object) -> bool:
        """Whether to read again: the reading changed within `seconds`, and the cap has not passed."""
        now = time.monotonic()
        if reading != self.last:
            self.last, self.deadline = reading, now + self.seconds
        return now < min(self.deadline, self.cap)


def until(read: Callable[[], dict], done: Callable[[dict], bool], *, seconds: float = 90) -> dict:
    """Read until done (background work runs eagerly or on a real worker); the last reading either way. It gives
    up once the reading has not changed for `seconds` (see Stall)."""
    stall = Stall(seconds)
    while not done(value := read()) and stall.waiting(value):
        time.sleep(0.3)
    return value


def upload_geojson(http: httpx.Client, name: str, collection: dict | Path) -> int:
    """Upload and return the dataset id once its import finished."""
    body = collection.read_bytes() if isinstance(collection, Path) else json.dumps(collection).encode()
    execution = http.post("/api/v2/uploads/upload/", files={"base_file": (name, body, "application/geo+json")})
    assert execution.status_code == 201, execution.text
    path = f"/api/v2/resource-service/execution-status/{execution.json()['execution_id']}"
    status = until(lambda: http.get(path).json(), lambda s: s["status"] in ("finished", "failed"))
    assert status["status"] == "finished", status
    return status["output_params"]["resources"][0]["id"]


def attach(http: httpx.Client, model: Model, kind: str, dataset_id: int | None) -> httpx.Response:
    return http.patch(
        f"{PROJECTS}{model.project_id}/{KIND_PATHS[kind]}/{model.rows[kind]}/", json={"gn_layer": dataset_id}
    )


def small_test_model(url: str, key: str, *, rainfall: bool = True, boundary: bool = True) -> Model:
    with api(url, key) as http:
        project = http.post(PROJECTS, json={"name": "Small test", "projection": "EPSG:28356"}).json()
        terrain = http.post(
            f"{PROJECTS}{project['id']}/terrain/upload/", files={"file": ("dem.tif", DEM.read_bytes(), "image/tiff")}
        ).json()
        terrain = until(
            lambda: http.get(f"{PROJECTS}{project['id']}/terrain/{terrain['id']}/").json(),
            lambda t: t["status"] in ("ready", "error"),
        )
        assert terrain["status"] == "ready", terrain
        inputs = http.get(f"{PROJECTS}{project['id']}/inputs/").json()
        model = Model(project["id"], terrain["id"], {kind: rows[0]["id"] for kind, rows in inputs.items()})
        if boundary:
            assert (
                attach(http, model, "boundary", upload_geojson(http, "boundary.geojson", BOUNDARY)).status_code == 200
            )
        if rainfall:
            assert (
                attach(http, model, "rainfall", upload_geojson(http, "rainfall.geojson", RAINFALL)).status_code == 200
            )
    return model
