"""Who may open a run's report, on the site (page and PDF) and over REST, and what a run that is not complete gets.
The report's contents are checked on a real simulation in tests/hydrata/reports/browser/."""

import json

import pytest
from django.test import Client

from hydrata.anuga.models import InputLayer, Run, Scenario
from tests.data import BOUNDARY
from tests.factories import (
    make_dataset,
    make_finished_run,
    make_grant,
    make_project,
    make_ready_terrain,
    make_user,
    sign_in,
)
from tests.hydrata.observations.helpers import api_for

pytestmark = pytest.mark.django_db(transaction=True)
RUNS = "/api/v2/anuga/runs/"


def site_paths(run_id: int) -> list[str]:
    return [f"/reports/runs/{run_id}/", f"/reports/runs/{run_id}/report.pdf"]


@pytest.fixture
def finished():
    """A complete run of its owner's project (rasters written by the simulation's own writer), and a stranger."""
    owner, stranger = make_user(), make_user()
    return owner, stranger, make_finished_run(make_project(owner))


def test_the_owner_opens_the_report_page_and_its_pdf_on_the_site(finished):
    owner, _, run = finished
    client = sign_in(Client(), owner)

    page, pdf = (client.get(path) for path in site_paths(run.pk))

    assert page.status_code == 200 and b"Peak depth" in page.content
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf" and pdf.content.startswith(b"%PDF")


def test_another_persons_run_is_404_for_the_page_the_pdf_and_rest(finished):
    _, stranger, run = finished
    client = sign_in(Client(), stranger)

    answers = [client.get(path) for path in site_paths(run.pk)]
    rest = api_for(stranger, level="read").get(f"{RUNS}{run.pk}/report/")

    assert [answer.status_code for answer in answers] == [404, 404]
    assert rest.status_code == 404 and rest.json()["code"] == "RUN_NOT_FOUND"


def test_a_person_signed_out_is_sent_to_sign_in_and_a_revoked_key_is_refused(finished):
    owner, _, run = finished
    _, revoked = make_grant(owner, level="read", revoked=True)

    answers = [Client().get(path) for path in site_paths(run.pk)]
    rest = Client().get(f"{RUNS}{run.pk}/report/", HTTP_AUTHORIZATION=f"Bearer {revoked}")

    assert all(answer.status_code == 302 and "/accounts/login/" in answer["Location"] for answer in answers)
    assert rest.status_code == 401


def test_a_run_that_is_not_complete_is_refused_saying_what_to_do(finished):
    owner, _, run = finished
    Run.objects.filter(pk=run.pk).update(status="computing")
    client = sign_in(Client(), owner)

    rest = api_for(owner, level="read").get(f"{RUNS}{run.pk}/report/")
    page = client.get(site_paths(run.pk)[0])

    assert rest.status_code == 409 and rest.json()["code"] == "RUN_NOT_COMPLETE"
    assert "get_run_status" in rest.json()["detail"]
    assert page.status_code == 409 and b"complete" in page.content


def test_a_reader_of_a_public_project_gets_its_published_report_without_the_cost_provenance_or_document_control():
    owner, reader = make_user(), make_user()
    run = make_finished_run(make_project(owner, is_public=True))
    Run.objects.filter(pk=run.pk).update(compute_cost="1.23")
    client = sign_in(Client(), reader)

    page = client.get(site_paths(run.pk)[0])
    summary = api_for(reader, level="read").get(f"{RUNS}{run.pk}/report/").json()

    assert page.status_code == 200 and b"Peak depth" in page.content
    assert b'id="provenance"' not in page.content and b"1.23" not in page.content
    assert "Provenance" not in summary["sections"] and "Results" in summary["sections"]
    assert b'id="document-control"' not in page.content and "Document control" not in summary["sections"]


def test_the_report_lists_the_stage_edges_the_initial_water_and_the_soils_with_their_volumes():
    owner = make_user()
    project = make_project(owner)
    square = [[251050.0, 6271850.0], [251150.0, 6271850.0], [251150.0, 6271950.0], [251050.0, 6271850.0]]
    polygon = {"type": "Polygon", "coordinates": [square]}
    crs = {"type": "name", "properties": {"name": "EPSG:28356"}}
    rows = {}
    for kind, properties in (("initial_condition", {"depth": 0.5}), ("soil", {"initial_loss_mm": 10})):
        dataset = make_dataset(
            owner,
            {
                "type": "FeatureCollection",
                "crs": crs,
                "features": [{"type": "Feature", "properties": properties, "geometry": polygon}],
            },
        )
        rows[kind] = InputLayer.objects.create(
            project=project, kind=kind, title=f"{kind} row", dataset=dataset, feature_count=1
        )
    ring = json.loads(BOUNDARY.read_text())
    ring["features"][2]["properties"] = {"boundary": "Dirichlet", "location": "External", "stage": "tide"}
    boundary = make_dataset(owner, ring)
    rows["boundary"] = InputLayer.objects.create(project=project, kind="boundary", title="b", dataset=boundary)
    scenario = Scenario.objects.create(
        project=project, name="wet", terrain=make_ready_terrain(project), resolution=10, duration=60, **rows
    )
    run = make_finished_run(project, scenario=scenario)
    balance = {"initial_m3": 1234.5, "rainfall_m3": 300.0, "losses_m3": 45.25}
    Run.objects.filter(pk=run.pk).update(statistics={"volume_balance": balance, "mass_balance_error_pct": 0.0})

    page = sign_in(Client(), owner).get(site_paths(run.pk)[0]).content.decode()

    assert "Dirichlet feature 2 (id &#x27;north&#x27;) at tide" in page
    assert "initial_condition row (1 polygons): 1234.50 m³ at the start" in page
    assert "soil row (1 polygons): 45.25 m³ of rain lost" in page
    assert "45.25 m³ of 300.00 m³ of rain" in page
