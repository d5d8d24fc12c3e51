"""A calibration's synthetic truth, arranged through the REST API as an agent would: small_test with a friction
layer of two polygons, one over the whole model (its n the truth) and one beyond the model's edge, where the water
never reaches; the base scenario built and run once as it is, and that run's peak stages at eight points posted as a
flood event's observations."""

from dataclasses import dataclass

from hydrata.anuga.models import Run
from hydrata.observations.run_reading import run_peaks
from tests.model_setup import PROJECTS, api, attach, small_test_model, until, upload_geojson

TRUE_N = 0.045
RESOLUTION, DURATION = 10, 900


def _polygon(name: str, n: float, west: float, south: float, east: float, north: float) -> dict:
    ring = [[west, south], [east, south], [east, north], [west, north], [west, south]]
    return {
        "type": "Feature",
        "properties": {"name": name, "mannings": n},
        "geometry": {"type": "Polygon", "coordinates": [ring]},
    }


FRICTION = {
    "type": "FeatureCollection",
    "crs": {"type": "name", "properties": {"name": "EPSG:28356"}},
    "features": [
        _polygon("beyond the edge", 0.03, 251198.5, 6271800.0, 251200.0, 6272000.0),
        _polygon("floodplain", TRUE_N, 251000.0, 6271800.0, 251200.0, 6272000.0),
    ],
}


@dataclass(frozen=True)
class Truth:
    project_id: int
    scenario_id: int
    event_id: int
    run_id: int
    points: list[tuple[float, float]]


def synthetic_truth(url: str, key: str) -> Truth:
    model = small_test_model(url, key)
    with api(url, key) as http:
        assert attach(http, model, "friction", upload_geojson(http, "friction.geojson", FRICTION)).status_code == 200
        project = f"{PROJECTS}{model.project_id}/"
        scenario = http.post(
            f"{project}scenarios/", json={"name": "base", "resolution": RESOLUTION, "duration": DURATION}
        ).json()
        built = http.post(f"{project}scenarios/{scenario['id']}/build/")
        assert built.status_code == 202, built.text
        build_id = built.json()["run"]["id"]
        until(lambda: http.get(f"/api/v2/anuga/runs/{build_id}/").json(), lambda r: r["status"] in ("built", "error"))
        started = http.post(f"/api/v2/anuga/scenarios/{scenario['id']}/run/", json={})
        assert started.status_code == 202, started.text
        run_id = started.json()["id"]
        until(
            lambda: http.get(f"/api/v2/anuga/runs/{run_id}/").json(),
            lambda r: r["status"] in ("complete", "error"),
            seconds=600,
        )
        run = Run.objects.get(pk=run_id)
        assert run.status == "complete", run.error_message
        points = deepest_points(run)
        event = http.post(f"{project}events/", json={"name": "the truth", "started_at": "2024-01-01T00:00:00Z"}).json()
        for (x, y), peak in zip(points, run_peaks(run=run, points=points), strict=True):
            made = http.post(
                f"{project}observations/",
                json={"event": event["id"], "x": x, "y": y, "quantity": "peak_stage", "value_m": peak.stage},
            )
            assert made.status_code == 201, made.text
    return Truth(model.project_id, scenario["id"], event["id"], run_id, points)


def deepest_points(run: Run, count: int = 8) -> list[tuple[float, float]]:
    """The `count` deepest of a 10 m grid of points inside the model, no two within 20 m: where the water gathers."""
    grid = [(251010.0 + 10 * i, 6271810.0 + 10 * j) for i in range(19) for j in range(19)]
    peaks = run_peaks(run=run, points=grid)
    ranked = sorted(
        ((p.depth, xy) for p, xy in zip(peaks, grid, strict=True) if p.depth is not None and p.stage is not None),
        reverse=True,
    )
    chosen: list[tuple[float, float]] = []
    for _, (x, y) in ranked:
        if all(abs(x - a) >= 20 or abs(y - b) >= 20 for a, b in chosen):
            chosen.append((x, y))
        if len(chosen) == count:
            break
    return chosen
