"""The storage cleanup: expired upload slots, staged terrain sources and old runs' .sww files go; nothing that
is still needed does."""

from datetime import timedelta
from io import StringIO
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from config.celery import app
from hydrata.anuga.models import Run, Terrain, TerrainUpload
from hydrata.anuga.services.simulation import run_simulate
from hydrata.anuga.tasks import storage_cleanup_task
from hydrata.storage import get_storage
from hydrata_contract.states import RunStatus
from tests.data import DEM
from tests.factories import make_grant, make_project, make_user
from tests.model_setup import api

pytestmark = pytest.mark.django_db(transaction=True)

PROJECTS = "/api/v2/anuga/projects/"


def draft_client(user) -> APIClient:
    _, key = make_grant(user, level="draft")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def presign_and_put(client: APIClient, project_id: int) -> dict:
    presigned = client.post(
        f"{PROJECTS}{project_id}/terrain/upload/presign/",
        {"filename": "dem.tif", "content_type": "image/tiff"},
        format="json",
    ).json()
    parts = urlsplit(presigned["upload_url"])
    stored = Client().put(f"{parts.path}?{parts.query}", data=DEM.read_bytes(), content_type="image/tiff")
    assert stored.status_code == 200, stored.content
    return presigned


def cleanup_command() -> str:
    output = StringIO()
    call_command("cleanup_storage", stdout=output)
    return output.getvalue()


def test_expired_upload_slots_that_were_never_finalized_are_deleted_with_their_files():
    user = make_user()
    client, project = draft_client(user), make_project(user)
    expired, fresh, finalized = (presign_and_put(client, project.pk) for _ in range(3))
    assert (
        client.post(
            f"{PROJECTS}{project.pk}/terrain/upload/finalize/", {"staging_key": finalized["staging_key"]}, format="json"
        ).status_code
        == 202
    )
    an_hour_ago = timezone.now() - timedelta(hours=1)
    TerrainUpload.objects.filter(staging_key__in=[expired["staging_key"], finalized["staging_key"]]).update(
        expires_at=an_hour_ago
    )
    storage = get_storage()

    printed = cleanup_command()

    assert "Deleted 1 expired upload slot(s)" in printed
    assert not storage.exists(key=expired["staging_key"])
    assert not TerrainUpload.objects.filter(staging_key=expired["staging_key"]).exists()
    assert (
        storage.exists(key=fresh["staging_key"])
        and TerrainUpload.objects.filter(staging_key=fresh["staging_key"]).exists()
    )
    assert TerrainUpload.objects.filter(staging_key=finalized["staging_key"]).exists()


def test_a_terrains_staged_upload_is_deleted_once_its_import_ended_a_retention_period_ago(settings):
    settings.HYDRATA_STAGING_RETENTION_HOURS = 24
    user = make_user()
    client, project = draft_client(user), make_project(user)
    old, recent = (
        client.post(f"{PROJECTS}{project.pk}/terrain/upload/", {"file": DEM.open("rb")}, format="multipart").json()
        for _ in range(2)
    )
    Terrain.objects.filter(pk=old["id"]).update(updated_at=timezone.now() - timedelta(hours=25))
    old_source, recent_source = (Terrain.objects.get(pk=t["id"]).source_key for t in (old, recent))
    storage = get_storage()

    storage_cleanup_task.delay()  # what the worker runs on the beat's schedule
    read = client.get(f"{PROJECTS}{project.pk}/terrain/{old['id']}/").json()

    assert not storage.exists(key=old_source) and storage.exists(key=recent_source)
    assert read["status"] == "ready" and storage.exists(key=Terrain.objects.get(pk=old["id"]).dem_key)
    assert settings.CELERY_BEAT_SCHEDULE["storage-cleanup"]["task"] == storage_cleanup_task.name


def test_a_complete_runs_sww_is_deleted_after_the_retention_and_its_results_stay(queue_run, live_asgi, settings):
    settings.HYDRATA_RUN_SWW_RETENTION_DAYS = 30
    key, run_id = queue_run(300)
    run = run_simulate(run_id=run_id)  # a real simulation, in-process
    assert run.status == RunStatus.COMPLETE, run.error_message
    storage, sww, depth = get_storage(), f"{run.results_prefix}/run.sww", f"{run.results_prefix}/max_depth.tif"
    assert storage.exists(key=sww)

    kept = cleanup_command()
    Run.objects.filter(pk=run_id).update(finished_at=timezone.now() - timedelta(days=31))
    deleted = cleanup_command()
    app.conf.task_always_eager = True
    with api(live_asgi.url, key) as http:
        results = http.get(f"/api/v2/anuga/runs/{run_id}/results/")

    assert "0 run .sww file(s)" in kept and "1 run .sww file(s)" in deleted
    assert not storage.exists(key=sww) and storage.exists(key=depth)
    assert results.status_code == 200 and results.json()["statistics"]
