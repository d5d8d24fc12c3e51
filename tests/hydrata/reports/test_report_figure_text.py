"""A stored name in matplotlib's math syntax (`Storm $x^{$`) made the owner's report of a finished run answer 500,
on the page, the PDF and the API. Every user-named label a report draws (project, scenario, time series, mesh
region, gauge, flow line, event and observation) is here hostile; and a figure that cannot be drawn is a
placeholder, not a failed report."""

import pytest
from django.test import Client

from hydrata.storage import get_storage
from tests.factories import make_user, sign_in
from tests.hydrata.compute.figures.test_figure_text import HOSTILE
from tests.hydrata.observations.helpers import api_for, event_of, observation
from tests.hydrata.reports.helpers import complete_run_of_package

pytestmark = pytest.mark.django_db(transaction=True)


def every_view(owner, run_id: int) -> list[int]:
    client = sign_in(Client(), owner)
    page = client.get(f"/reports/runs/{run_id}/")
    pdf = client.get(f"/reports/runs/{run_id}/report.pdf")
    rest = api_for(owner, level="read").get(f"/api/v2/anuga/runs/{run_id}/report/")
    assert b"could not be drawn" not in page.content, "every figure is drawn"
    return [page.status_code, pdf.status_code, rest.status_code]


@pytest.mark.parametrize("name", [HOSTILE[0], HOSTILE[3], HOSTILE[6][:200]])
def test_the_owners_report_of_a_run_whose_every_name_is_hostile_answers_on_the_page_pdf_and_api(name):
    owner = make_user()
    run = complete_run_of_package(owner, name=name)
    api = api_for(owner)
    event = event_of(api, run.scenario.project_id, name=name)
    assert observation(api, run.scenario.project_id, event["id"], source=name).status_code == 201
    compared = api.post(f"/api/v2/anuga/runs/{run.pk}/compare/", {"event": event["id"]}, format="json")
    assert compared.status_code in (200, 201), compared.content

    assert every_view(owner, run.pk) == [200, 200, 200]


def test_a_figure_that_cannot_be_drawn_is_a_placeholder_and_the_report_stands():
    owner = make_user()
    run = complete_run_of_package(owner, name="plain")
    get_storage().save(key=f"{run.results_prefix}/max_speed.tif", data=b"not a raster")
    client = sign_in(Client(), owner)

    page = client.get(f"/reports/runs/{run.pk}/")
    pdf = client.get(f"/reports/runs/{run.pk}/report.pdf")

    assert page.status_code == 200 and pdf.status_code == 200
    assert page.content.count(b"This figure could not be drawn") == 1
    assert b'alt="Peak depth"' in page.content and b"Peak speed</figcaption>" in page.content
