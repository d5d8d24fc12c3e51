"""Where work stands on its queue, as the platform's answers say it: counted from the database, per queue, in the
order the work was sent; nothing of it for a reader who sees the project only because it is public."""

from datetime import timedelta

import pytest
from django.core.files import File
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from config.celery import app as celery_app
from hydrata.anuga.models import Run, Scenario
from hydrata.anuga.services.build import _build_claim
from hydrata.anuga.services.terrain import terrain_import, terrain_upload_direct
from hydrata.uploads.services import dataset_import, upload_create
from hydrata_contract.states import RunStatus
from tests.data import BOUNDARY, DEM
from tests.factories import make_project, make_user

pytestmark = pytest.mark.django_db(transaction=True)

API = "/api/v2/anuga/"


def queued(queue: str, ahead: int, running: int) -> dict:
    return {"state": "queued", "queue": queue, "ahead": ahead, "running": running}


def running(queue: str) -> dict:
    return {"state": "running", "queue": queue, "ahead": None, "running": None}


def test_each_answer_says_how_much_of_its_queue_waits_before_it_and_running_once_a_worker_took_it():
    celery_app.conf.task_always_eager = False  # no worker: everything sent stays on its queue
    owner = make_user("engineer")
    project = make_project(owner)
    client = Client()
    client.force_login(owner)
    scenario = Scenario.objects.create(project=project, name="base", resolution=10, duration=600)
    upload = upload_create(user=owner, uploaded_file=SimpleUploadedFile("b.geojson", BOUNDARY.read_bytes()))
    build = Run.objects.create(scenario=scenario, resolution=10, duration=600, created_by=owner)
    now = timezone.now()
    single = Run.objects.create(
        scenario=scenario, resolution=10, duration=600, status=RunStatus.QUEUED, queued_at=now + timedelta(seconds=1)
    )
    members = [
        Run.objects.create(
            scenario=scenario, resolution=10, duration=600, status=RunStatus.QUEUED, queued_at=now, study_member=True
        )
        for _ in range(3)
    ]

    def queue_of(path: str, key: str = "queue") -> dict | None:
        answer = client.get(path)
        assert answer.status_code == 200, answer.content
        return answer.json()[key]

    execution = f"/api/v2/resource-service/execution-status/{upload.id}"
    assert queue_of(execution) == queued("interactive", 0, 0)
    assert queue_of(f"{API}runs/{build.pk}/status/") == queued("interactive", 1, 0)  # behind the upload
    assert queue_of(f"{API}runs/{single.pk}/status/") == queued("interactive", 2, 0)  # study members not counted
    assert queue_of(f"{API}runs/{members[-1].pk}/status/") == queued("studies", 0, 0)  # sent at the same instant

    _build_claim(run_id=build.pk, worker="interactive@test")  # as the worker that takes it
    assert queue_of(f"{API}runs/{build.pk}/status/") == running("interactive")
    scenario_answer = client.get(f"{API}projects/{project.pk}/scenarios/{scenario.pk}/").json()
    assert scenario_answer["latest_run"]["id"] == single.pk
    assert scenario_answer["latest_run"]["queue"] == queued("interactive", 1, 1)  # the upload waits, the build runs

    dataset_import(execution_id=upload.id)
    assert queue_of(execution) is None  # it ended


def test_a_terrain_import_waits_until_a_worker_takes_it_and_a_public_reader_is_told_nothing_of_the_queue():
    celery_app.conf.task_always_eager = False
    owner = make_user("engineer")
    project = make_project(owner, is_public=True)
    scenario = Scenario.objects.create(project=project, name="base", resolution=10, duration=600)
    build = Run.objects.create(scenario=scenario, resolution=10, duration=600, created_by=owner)
    with DEM.open("rb") as stream:
        terrain = terrain_upload_direct(project=project, user=owner, uploaded_file=File(stream, DEM.name))
    member, reader = Client(), Client()
    member.force_login(owner)
    reader.force_login(make_user("passer-by"))
    terrain_path = f"{API}projects/{project.pk}/terrain/{terrain.pk}/"

    assert member.get(terrain_path).json()["queue"] == queued("interactive", 1, 0)  # behind the build
    public = reader.get(f"{API}runs/{build.pk}/status/").json()
    assert public["queue"] is None and "queue" in public["withheld"]
    assert member.get(f"{API}runs/{build.pk}/status/").json()["queue"] == queued("interactive", 0, 0)

    terrain_import(terrain_id=terrain.pk)
    assert member.get(terrain_path).json()["queue"] is None
