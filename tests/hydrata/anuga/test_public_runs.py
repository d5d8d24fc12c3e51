"""A public project's runs as a non-member reads them: the published results (state, statistics, the result
layers, the preview, values at points), never the cost, the log, error details or a signed download link.
One real simulation on a real worker, then every run endpoint read by a stranger and by a viewer."""

import json

import pytest

from hydrata.anuga.models import Project
from tests.factories import make_grant, make_user
from tests.model_setup import PROJECTS, api, small_test_model, until

pytestmark = pytest.mark.django_db(transaction=True)

RUNS = "/api/v2/anuga/runs/"
SIGNATURES = ("X-Amz-Signature", "X-Hydrata-Signature", "X-Amz-Security-Token")
WITHHELD = {
    "compute_cost": None,
    "log_tail": [],
    "error_message": "",
    "user_message": "",
    "compute_backend": None,
    "wall_seconds": None,
}


@pytest.fixture
def public_run(live_asgi, celery_worker) -> dict:
    """A complete run of a small_test model in a project made public; returns its ids and the viewer's key."""
    _, owner_key = make_grant(level="launch")
    model = small_test_model(live_asgi.url, owner_key)
    viewer = make_user()
    project = Project.objects.get(pk=model.project_id)
    project.is_public = True
    project.save(update_fields=["is_public"])
    project.memberships.create(user=viewer, role="viewer")
    with api(live_asgi.url, owner_key) as http:
        scenario = http.post(
            f"{PROJECTS}{model.project_id}/scenarios/", json={"name": "published", "resolution": 10, "duration": 600}
        ).json()
        http.post(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/build/").raise_for_status()
        scenario_path = f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/"
        built = until(lambda: http.get(scenario_path).json(), lambda s: s["computed_status"] in ("built", "error"))
        assert built["computed_status"] == "built", built
        run = http.post(f"/api/v2/anuga/scenarios/{scenario['id']}/run/").json()
        done = until(
            lambda: http.get(f"{RUNS}{run['id']}/status/").json(),
            lambda r: r["status"] in ("complete", "error", "cancelled"),
            seconds=300,
        )
        assert done["status"] == "complete", done
    return {"project": model.project_id, "run": run["id"], "viewer_key": make_grant(viewer, level="read")[1]}


def everything_a_reader_asks(url: str, key: str, ids: dict) -> dict:
    run = f"{RUNS}{ids['run']}/"
    with api(url, key) as http:
        answers = {
            "detail": http.get(run),
            "status": http.get(f"{run}status/"),
            "results": http.get(f"{run}results/"),
            "preview": http.get(f"{run}preview/"),
            "sample": http.post(f"{run}sample/", json={"points": [{"x": 251100, "y": 6271900}]}),
            "list": http.get(f"{PROJECTS}{ids['project']}/runs/"),
            "scenarios": http.get(f"{PROJECTS}{ids['project']}/scenarios/"),
        }
    for name, response in answers.items():
        assert response.status_code == 200, (name, response.text)
    return {name: response.json() for name, response in answers.items()}


def test_a_non_member_reads_a_public_projects_published_results_and_a_member_reads_everything(live_asgi, public_run):
    _, stranger_key = make_grant(make_user(), level="read")

    seen = everything_a_reader_asks(live_asgi.url, stranger_key, public_run)
    member = everything_a_reader_asks(live_asgi.url, public_run["viewer_key"], public_run)

    assert not any(signature in json.dumps(seen) for signature in SIGNATURES)
    for record in (seen["detail"], seen["list"]["results"][0]):
        assert record["reduced"] is True and record["status"] == "complete"
        assert {key: record[key] for key in WITHHELD} == WITHHELD and set(WITHHELD) <= set(record["withheld"])
        assert record["statistics"]["peak_depth_m"] > 0 and "gn_layer_max_depth" in record
        assert not any(key.startswith("s3_") for key in record)
    assert seen["status"]["status"] == "complete" and seen["status"]["error_message"] == ""
    assert seen["status"]["compute_backend"] is None and seen["status"]["reduced"] is True
    results = seen["results"]
    assert results["statistics"]["peak_depth_m"] > 0 and results["gn_layer_max_stage"]["units"] == "m"
    assert not any(key.startswith("s3_") for key in results)
    assert seen["preview"]["mime_type"] == "image/png" and seen["preview"]["data"]
    assert seen["sample"]["points"][0]["peak_depth"] is not None
    latest = seen["scenarios"]["results"][0]["latest_run"]
    assert latest["status"] == "complete" and latest["reduced"] is True and latest["error_message"] == ""

    for record in (member["detail"], member["list"]["results"][0]):
        assert "reduced" not in record and "withheld" not in record
        assert record["compute_cost"] is not None and record["log_tail"] and record["compute_backend"] == "local"
        assert "X-Hydrata-Signature" in record["s3_max_depth_url"]
    assert "X-Hydrata-Signature" in member["results"]["s3_log_url"]
    assert member["preview"]["data"] == seen["preview"]["data"]
