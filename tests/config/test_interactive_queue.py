"""A build is never held up by a design study: with the study's members filling their queue, `make run`'s
interactive worker (a real one, taking only the interactive queue as make run starts it) builds a scenario sent
after them, while every member still waits."""

import pytest

from hydrata.anuga.models import Run
from hydrata_contract.states import RunStatus
from tests.factories import make_grant
from tests.hydrata.studies.test_study_runs_api import drafted_study, member_runs, start
from tests.model_setup import PROJECTS, api, until

pytestmark = pytest.mark.django_db(transaction=True)


def queued_messages(folder) -> list[str]:
    """The queue of each message waiting in the embedded broker's folder (`<time>_<id>.<queue>.msg`)."""
    return sorted(path.name.split(".")[-2] for path in folder.glob("*.msg"))


def test_a_build_sent_after_a_studys_members_is_taken_first_by_the_interactive_worker(
    live_asgi, celery_queue_dir, request
):
    _, key = make_grant(level="launch")
    project_id, study = drafted_study(live_asgi.url, key)  # from here on, nothing runs in the request
    assert start(live_asgi.url, key, project_id, study).status_code == 202
    with api(live_asgi.url, key) as http:
        project = f"{PROJECTS}{project_id}/"
        other = http.post(f"{project}scenarios/", json={"name": "other", "resolution": 10, "duration": 600}).json()
        assert http.post(f"{project}scenarios/{other['id']}/build/").status_code == 202
    assert queued_messages(celery_queue_dir) == ["interactive", "studies", "studies", "studies", "studies"]

    start_worker = request.getfixturevalue("start_worker")  # after the study's eager arrangement
    start_worker("interactive", queues="interactive")
    with api(live_asgi.url, key) as http:
        built = until(
            lambda: http.get(f"{project}scenarios/{other['id']}/").json(),
            lambda scenario: scenario["computed_status"] not in ("created", "building"),
        )

    assert built["computed_status"] == RunStatus.BUILT, built
    assert Run.objects.get(pk=built["latest_run"]["id"]).worker_hostname.startswith("interactive@")
    assert {run.status for run in member_runs(study)} == {RunStatus.QUEUED}
    assert queued_messages(celery_queue_dir) == ["studies"] * 4
