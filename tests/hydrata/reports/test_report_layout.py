"""A report at scale and where its PDF is laid out. A read-level get_run_report of a run compared with 2,000 points
took 29 s, laying every point out in the web process. Now a report's table shows the largest errors and says how
many of how many; the PDF and its page count are laid out by a worker, in a child held to time and memory limits,
and kept by the report's data (not by a document carrying the clock and the reader)."""

from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import Client

from config.celery import app as celery_app
from hydrata.anuga.models import Project
from hydrata.reports.selectors import POINT_ROWS
from hydrata.reports.services import DOCUMENTS
from hydrata.storage import get_storage
from tests.factories import make_finished_run, make_grant, make_project, make_user, sign_in
from tests.hydrata.observations.helpers import INSIDE, PROJECTS, api_for, event_of, points, upload
from tests.hydrata.observations.helpers import point as feature
from tests.mcp_client import call

pytestmark = pytest.mark.django_db(transaction=True)
RUNS = "/api/v2/anuga/runs/"


def compared_with(owner, run, count: int) -> dict:
    """`run` compared with an event of `count` observed levels around the middle of the terrain."""
    project_id = run.scenario.project_id
    api = api_for(owner)
    event = event_of(api, project_id)
    marks = [
        feature(INSIDE[0] - 50 + (k % 50) * 2, INSIDE[1] - 50 + (k // 50) * 2, level=10.0 + k / count)
        for k in range(count)
    ]
    execution = upload(api, "marks.geojson", points(*marks))
    imported = api.post(
        f"{PROJECTS}{project_id}/events/{event['id']}/observations/import/",
        {"execution_id": execution["exec_id"], "quantity": "peak_stage", "value_property": "level"},
        format="json",
    )
    assert imported.status_code == 201, imported.content
    compared = api.post(f"{RUNS}{run.pk}/compare/", {"event": event["id"]}, format="json")
    assert compared.status_code in (200, 201), compared.content
    return compared.json()


def table_rows(content: bytes) -> int:
    return content.split(b"<th>Observation</th>")[1].split(b"</table>")[0].count(b"<tr>")


def documents() -> list[str]:
    """The report documents kept (the test's storage is its media folder): one folder per digest."""
    folder = Path(django_settings.MEDIA_ROOT) / DOCUMENTS
    return sorted(path.name for path in folder.iterdir()) if folder.exists() else []


def test_a_run_compared_with_2000_points_shows_the_largest_errors_and_says_how_many_of_how_many():
    owner = make_user()
    run = make_finished_run(make_project(owner))
    comparison = compared_with(owner, run, 2000)
    client = sign_in(Client(), owner)

    run_page = client.get(f"/reports/runs/{run.pk}/")
    comparison_page = client.get(f"/reports/comparisons/{comparison['id']}/")

    shown = sorted(comparison["points"], key=lambda point: -abs(point["error"] or 0))[:POINT_ROWS]
    for page in (run_page, comparison_page):
        assert page.status_code == 200 and table_rows(page.content) == POINT_ROWS
        assert f"The {POINT_ROWS} points with the largest errors, of 2000 compared".encode() in page.content
        assert f"<td>{shown[0]['observation_id']}</td>".encode() in page.content


def test_the_web_request_lays_no_pdf_out_and_a_worker_does(settings, start_worker):
    owner = make_user()
    run = make_finished_run(make_project(owner))
    client, http = sign_in(Client(), owner), api_for(owner, level="read")
    celery_app.conf.task_always_eager = False  # no worker yet: the queue only holds the layout
    settings.HYDRATA_REPORT_WAIT_SECONDS = 0.5

    waiting = client.get(f"/reports/runs/{run.pk}/report.pdf")
    summary = http.get(f"{RUNS}{run.pk}/report/")

    assert waiting.status_code == 503 and waiting["Retry-After"] and b"being laid out" in waiting.content
    assert summary.status_code == 200 and summary.json()["pages"] is None
    (digest,) = documents()
    assert not get_storage().exists(key=f"{DOCUMENTS}/{digest}/report.pdf")

    start_worker()
    settings.HYDRATA_REPORT_WAIT_SECONDS = 120
    pdf = client.get(f"/reports/runs/{run.pk}/report.pdf")
    counted = http.get(f"{RUNS}{run.pk}/report/").json()

    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF") and counted["pages"] >= 1
    assert documents() == [digest]


def test_the_pdf_is_kept_by_what_the_report_shows_not_by_the_clock_or_the_reader():
    owner, colleague = make_user(), make_user()
    project = make_project(owner, members={colleague: "editor"})
    run = make_finished_run(project)
    reader = api_for(colleague, level="read")

    first = api_for(owner, level="read").get(f"{RUNS}{run.pk}/report/").json()
    kept = documents()
    theirs = reader.get(f"{RUNS}{run.pk}/report/").json()
    again = sign_in(Client(), owner).get(f"/reports/runs/{run.pk}/report.pdf")
    unchanged = documents()
    Project.objects.filter(pk=project.pk).update(name="Renamed river")
    renamed = reader.get(f"{RUNS}{run.pk}/report/").json()

    assert first["pages"] >= 1 and theirs["pages"] == first["pages"] and again.status_code == 200
    assert len(kept) == 1 and unchanged == kept
    assert renamed["pages"] >= 1 and len(documents()) == 2


def test_a_pdf_that_outgrows_its_memory_limit_is_refused_saying_so_and_the_web_process_lives(settings):
    owner = make_user()
    run = make_finished_run(make_project(owner))
    settings.HYDRATA_REPORT_PDF_MEMORY_BYTES = 64 * 1024 * 1024

    pdf = sign_in(Client(), owner).get(f"/reports/runs/{run.pk}/report.pdf")
    summary = api_for(owner, level="read").get(f"{RUNS}{run.pk}/report/")

    assert pdf.status_code == 503 and b"within its time and memory limits" in pdf.content
    assert summary.status_code == 200 and summary.json()["pages"] is None


def test_get_run_report_of_a_run_compared_with_2000_points_answers_through_the_mcp_client(live_asgi):
    owner = make_user()
    run = make_finished_run(make_project(owner))
    compared_with(owner, run, 2000)
    _, key = make_grant(owner, level="read")

    result = call(live_asgi.url, key, "get_run_report", {"run_id": run.pk})

    assert not result.is_error, result.content
    assert result.structured_content["summary"]["pages"] >= 1
    assert "Observed against modelled" in result.structured_content["summary"]["figures"]
