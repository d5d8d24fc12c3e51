import pytest

from tests.factories import make_grant
from tests.model_setup import PROJECTS, api, small_test_model


@pytest.fixture
def queue_run(live_asgi):
    """queue_run(duration, ranks=1) -> (key, run id): a built small_test run, queued; nothing consumes the queue
    until a test starts a worker or simulates in-process."""

    def queue(duration: int, *, ranks: int = 1) -> tuple[str, int]:
        _, key = make_grant(level="launch")
        model = small_test_model(live_asgi.url, key)
        with api(live_asgi.url, key) as http:
            scenario = http.post(
                f"{PROJECTS}{model.project_id}/scenarios/", json={"name": "s", "resolution": 10, "duration": duration}
            ).json()
            assert http.post(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/build/").status_code == 202
            from config.celery import app

            app.conf.task_always_eager = False
            run = http.post(f"/api/v2/anuga/scenarios/{scenario['id']}/run/", json={"ranks": ranks})
        assert run.status_code == 202, run.text
        return key, run.json()["id"]

    return queue
