"""The report documents themselves: what a stored string becomes in them (text, never a fetch), and a comparison's
report with its statistics, scatter and ranking. On runs written by the simulation's own writer (no simulation);
the figures of a real run are checked in tests/hydrata/map/browser/test_reports.py."""

import base64
import http.server
import io
import subprocess
import threading
from collections.abc import Iterator

import pytest
from django.test import Client
from PIL import Image

from hydrata.reports.pdf import report_pdf
from tests.factories import make_finished_run, make_project, make_user, sign_in
from tests.hydrata.observations.helpers import api_for, event_of, observation

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def listener() -> Iterator[tuple[str, list[str]]]:
    """A loopback HTTP server that records every request it gets: where a fetch would land."""
    asked: list[str] = []

    class Recorder(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", asked
    server.shutdown()


def pdf_text(pdf: bytes) -> str:
    return subprocess.run(
        ["pdftotext", "-layout", "-", "-"], input=pdf, capture_output=True, check=True
    ).stdout.decode()


def test_markup_a_person_or_agent_stored_is_text_in_the_page_and_the_pdf_and_fetches_nothing(listener):
    address, asked = listener
    payload = f'<img src="{address}/ssrf"> <link rel="stylesheet" href="{address}/css">'
    owner = make_user()
    run = make_finished_run(make_project(owner, name=payload))
    run.scenario.name = payload
    run.scenario.save()
    client = sign_in(Client(), owner)

    page = client.get(f"/reports/runs/{run.pk}/")
    pdf = client.get(f"/reports/runs/{run.pk}/report.pdf")

    assert page.status_code == 200 and b'<img src="http://127.0.0.1' not in page.content
    assert b"&lt;img src=&quot;" + address.encode() in page.content
    assert f'<img src="{address}/ssrf">' in pdf_text(pdf.content)
    assert asked == []


def test_the_pdf_renderer_itself_refuses_every_url_but_the_reports_own_figures(listener):
    address, asked = listener

    rendered = report_pdf(
        html=f'<p>refused</p><img src="{address}/image"><img src="file:///etc/hostname">'
        f'<link rel="stylesheet" href="{address}/sheet.css"><iframe src="{address}/frame"></iframe>'
    )

    assert rendered.pages == 1 and rendered.pdf.startswith(b"%PDF")
    assert asked == []


def inline_image(kind: str) -> str:
    """A 4 x 4 image as a data: URI, in Pillow's `kind` (PNG, GIF, ...)."""
    encoded = io.BytesIO()
    Image.new("RGB", (4, 4), (200, 30, 30)).save(encoded, format=kind)
    return f"data:image/{kind.lower()};base64,{base64.b64encode(encoded.getvalue()).decode()}"


def pdf_image_count(pdf: bytes) -> int:
    listed = subprocess.run(["pdfimages", "-list", "-"], input=pdf, capture_output=True, check=True).stdout.decode()
    return len(listed.splitlines()[2:])  # after its two header lines, one line per image


def test_the_pdf_draws_its_own_png_figures_and_no_other_data_uri():
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="90" height="20"><text y="15">smuggled</text></svg>'
    inline_svg = f"data:image/svg+xml;base64,{base64.b64encode(svg.encode()).decode()}"

    figure_only = report_pdf(html=f'<img src="{inline_image("PNG")}">')
    mixed = report_pdf(
        html=f'<p>figures</p><img src="{inline_image("PNG")}"><img src="{inline_image("GIF")}"><img src="{inline_svg}">'
    )

    assert pdf_image_count(figure_only.pdf) == 1
    assert pdf_image_count(mixed.pdf) == 1 and "smuggled" not in pdf_text(mixed.pdf)


def test_a_comparisons_report_holds_its_statistics_each_point_and_the_ranking_of_the_events_runs():
    owner, stranger = make_user(), make_user()
    project = make_project(owner)
    first = make_finished_run(project)
    second = make_finished_run(project, scenario=first.scenario, stage_above_ground=0.2)
    api = api_for(owner)
    event = event_of(api, project.pk)
    assert observation(api, project.pk, event["id"]).status_code == 201
    compared = [
        api.post(f"/api/v2/anuga/runs/{run.pk}/compare/", {"event": event["id"]}, format="json").json()
        for run in (first, second)
    ]
    client = sign_in(Client(), owner)

    page = client.get(f"/reports/comparisons/{compared[0]['id']}/")
    pdf = client.get(f"/reports/comparisons/{compared[0]['id']}/report.pdf")
    theirs = sign_in(Client(), stranger).get(f"/reports/comparisons/{compared[0]['id']}/report.pdf")

    text = pdf_text(pdf.content)
    best = min(compared, key=lambda comparison: comparison["metrics"]["rmse"])
    ranking = text.split("Ranking of the runs compared with")[1]
    ranked_first = next(line.split() for line in ranking.splitlines() if line.split()[:1] == ["1"])
    assert page.status_code == 200 and b"Observed against modelled" in page.content
    assert str(compared[0]["metrics"]["rmse"]) in text and "Ranking of the runs compared with" in text
    assert ranked_first[1] == str(best["run"])
    assert theirs.status_code == 404
