"""`make demo-flood`'s script, run as a user runs it, against a live server and a real worker."""

import os
import re
import subprocess
import sys

import pytest
from django.test import Client

from hydrata.anuga.models import Run
from hydrata_contract.states import RunStatus
from tests.factories import make_grant
from tests.processes import ROOT

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_demo_flood_script_runs_a_first_flood_and_prints_a_ui_url_that_opens_its_run(live_asgi, celery_worker):
    grant, key = make_grant(level="launch")

    finished = subprocess.run(
        [sys.executable, "-m", "scripts.demo_flood", "--url", live_asgi.url, "--duration", "600"],
        cwd=ROOT,
        env={**os.environ, "HYDRATA_AGENT_KEY": key},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )

    assert finished.returncode == 0, finished.stdout + finished.stderr
    ui_url = finished.stdout.splitlines()[-1].removeprefix("ui_url: ")
    link = re.fullmatch(rf"{re.escape(live_asgi.url)}(/catalogue/)#/map/(\d+)\?.*\brun=(\d+)\b.*", ui_url)
    assert link, finished.stdout
    page, base_map, run_id = link.group(1), int(link.group(2)), int(link.group(3))
    run = Run.objects.select_related("scenario__project").get(pk=run_id)
    assert run.status == RunStatus.COMPLETE and run.statistics["peak_depth_m"] > 0
    assert run.scenario.project.base_map_id == base_map and run.scenario.project.owner == grant.user
    assert f"peak depth: {run.statistics['peak_depth_m']:.3f} m" in finished.stdout

    browser = Client()
    browser.force_login(grant.user)
    assert browser.get(page).status_code == 200, "the map page the link opens"
    record = browser.get(f"/api/v2/anuga/runs/{run_id}/")
    assert record.status_code == 200 and record.json()["status"] == RunStatus.COMPLETE, "the run it opens on"
