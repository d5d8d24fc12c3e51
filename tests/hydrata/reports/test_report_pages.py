"""A report a client takes: every page's text within its margins, no page all but empty before the last, and what
a flood study's report states (the friction the solver used, the vertical datum, a peak still rising at the end,
the depth map's cut-off, the locality and mesh figures, the solver's settings, the limitations and the document
control). Read from the PDF itself with poppler's `pdftotext -bbox`."""

import html
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.test import Client

from hydrata.anuga.models import Run
from hydrata.compute.simulation.forcing import DEFAULT_MANNINGS
from hydrata.compute.simulation.solver import default_algorithm_parameters
from hydrata.storage import get_storage
from hydrata_contract.hazard import HazardClass
from tests.factories import make_user, sign_in
from tests.hydrata.observations.helpers import PROJECTS, api_for, event_of, observation
from tests.hydrata.reports.helpers import complete_run_of_package

pytestmark = pytest.mark.django_db(transaction=True)

PEAKS = ("peak_depth_at", "peak_speed_at", "peak_stage_at")
MM = 72 / 25.4  # PDF points per millimetre
MARGIN_TOP, MARGIN_SIDE, MARGIN_BOTTOM = 16 * MM, 14 * MM, 18 * MM  # report.css's @page
SLACK = 1.0  # pt: rounding of a glyph's box


@dataclass(frozen=True)
class Word:
    text: str
    x_min: float
    y_min: float
    x_max: float
    y_max: float


@dataclass(frozen=True)
class Page:
    width: float
    height: float
    words: list[Word]

    @property
    def body(self) -> list[Word]:
        """The words but the footer's page number."""
        return [word for word in self.words if word.y_min < self.height - MARGIN_BOTTOM]

    @property
    def fill(self) -> float:
        """How far down the page's text area its last line of body text reaches (0 to 1)."""
        lowest = max((word.y_max for word in self.body), default=MARGIN_TOP)
        return (lowest - MARGIN_TOP) / (self.height - MARGIN_TOP - MARGIN_BOTTOM)


def pages_of(pdf: bytes) -> list[Page]:
    xhtml = subprocess.run(["pdftotext", "-bbox", "-", "-"], input=pdf, capture_output=True, check=True).stdout
    pages = []
    for head, body in re.findall(r"<page ([^>]*)>(.*?)</page>", xhtml.decode(), flags=re.S):
        size = dict(re.findall(r'(\w+)="([\d.]+)"', head))
        words = [
            Word(text, *(float(value) for value in box))
            for *box, text in re.findall(
                r'<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">(.*?)</word>', body
            )
        ]
        pages.append(Page(float(size["width"]), float(size["height"]), words))
    return pages


def outside(page: Page) -> list[Word]:
    return [
        word
        for word in page.words
        if word.x_min < MARGIN_SIDE - SLACK
        or word.x_max > page.width - MARGIN_SIDE + SLACK
        or word.y_min < MARGIN_TOP - SLACK
        or word.y_max > page.height
    ]


def with_statistics(run: Run) -> Run:
    """`run` with the statistics a finished simulation writes (compute/outputs/run_statistics.py), every table full."""
    bands = {"0.01-0.15": 1210.0, "0.15-0.3": 812.5, "0.3-0.5": 640.25, "0.5-1.0": 4410.0, "1.0-2.0": 20.0, ">2.0": 0.0}
    run.statistics = {
        **run.statistics,
        "peak_depth_at": {"x": 251010.5, "y": 6271900.25, "t": 60.0},
        "peak_speed_at": {"x": 251010.5, "y": 6271900.25, "t": 30.0},
        "peak_stage_m": 998.123,
        "peak_stage_at": {"x": 251010.5, "y": 6271900.25, "t": 60.0},
        "flooded_area_m2_by_depth_band": bands,
        "wet_area_m2": sum(bands.values()),
        "hazard_area_m2_by_class": {hazard.value: 1000.0 * hazard.number for hazard in HazardClass},
        "inundation_threshold_m": 0.05,
        "inundated_area_m2": 6000.0,
        "volume_in_m3": 123.456,
        "volume_out_m3": 12.5,
        "final_volume_m3": 110.9,
        "volume_balance": {"initial_m3": 0.0, "losses_m3": 0.0, "rainfall_m3": 123.456},
        "mass_balance_error_pct": 0.0012,
        "gauges": ["Layout"],
        "flow_lines": ["Layout"],
    }
    run.save(update_fields=["statistics"])
    storage = get_storage()  # a run with hazard areas has a time of inundation raster: seconds, on the same grid
    with storage.open(key=f"{run.results_prefix}/max_speed.tif") as stream:
        storage.save(key=f"{run.results_prefix}/time_of_inundation.tif", data=stream.read())
    return run


def report_pdf(owner, run_id: int) -> bytes:
    pdf = sign_in(Client(), owner).get(f"/reports/runs/{run_id}/report.pdf")
    assert pdf.status_code == 200, pdf.content[:500]
    if os.environ.get("HYDRATA_REPORT_PDF_OUT"):  # to look at it
        Path(os.environ["HYDRATA_REPORT_PDF_OUT"]).write_bytes(pdf.content)
    return pdf.content


def test_every_word_of_a_run_report_lies_within_its_page_margins_and_no_page_but_the_last_is_under_a_tenth_full():
    owner = make_user()
    run = with_statistics(complete_run_of_package(owner, name="Layout", hazard=True))

    pages = pages_of(report_pdf(owner, run.pk))

    assert len(pages) >= 2
    assert [(index, outside(page)) for index, page in enumerate(pages) if outside(page)] == []
    assert [(index, round(page.fill, 3)) for index, page in enumerate(pages[:-1]) if page.fill < 0.1] == []


def text_of(pages: list[Page]) -> str:
    return " ".join(html.unescape(word.text) for page in pages for word in page.words)


def page_text(content: bytes) -> str:
    """The report page's text, its markup dropped and its white space made single spaces."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", content.decode())).split())


def test_a_run_report_states_the_friction_the_datum_the_solver_the_limitations_and_who_prepared_and_approved_it():
    owner = make_user()
    run = with_statistics(complete_run_of_package(owner, name="Layout", hazard=True))
    approved = sign_in(Client(), owner).post(
        f"{PROJECTS}{run.scenario.project_id}/scenarios/{run.scenario_id}/approve/"
    )
    assert approved.status_code in (200, 201), approved.content

    pdf = text_of(pages_of(report_pdf(owner, run.pk)))
    content = sign_in(Client(), owner).get(f"/reports/runs/{run.pk}/").content
    text = page_text(content)

    expected = default_algorithm_parameters()
    assert f"Manning's n {DEFAULT_MANNINGS} everywhere" in text
    assert "terrain's own vertical datum, which its file does not state" in text
    assert f"flow algorithm {expected['flow_algorithm']}".lower() in text.lower()
    assert f"minimum_allowed_height {expected['minimum_allowed_height']} m" in text
    for heading in ("Document control", "Solver", "Limitations", "Locality", "Mesh", "Vertical datum"):
        assert heading in pdf, heading
    assert f"Prepared by {owner.get_username()} (built the run)" in text
    assert f"(Approved, below). Approved {owner.get_username()} at" in text
    assert "Peak depth (depths of 0.05 m or less, the inundation threshold, shown as not flooded)" in text
    assert b"could not be drawn" not in content
    assert content.count(b'src="data:image/png') == 10  # locality, boundary, mesh, rain, 4 maps, 2 hydrographs


def test_a_peak_at_the_last_output_time_is_flagged_and_one_passed_before_it_is_not():
    owner = make_user()
    run = with_statistics(complete_run_of_package(owner, name="Rising", hazard=True))
    client = sign_in(Client(), owner)

    flagged = client.get(f"/reports/runs/{run.pk}/").content.decode()
    run.statistics = {**run.statistics, **{key: {"x": 0, "y": 0, "t": 30.0} for key in PEAKS}}
    run.save(update_fields=["statistics"])
    passed = client.get(f"/reports/runs/{run.pk}/").content.decode()

    # the gauge's depth and the flow line's discharge peak at 30 s of 60 (tests/hydrata/reports/helpers.py)
    assert "At the last output time (60 s), the run had not passed these peaks: Peak depth; Peak stage." in flagged
    assert "had not passed these peaks" not in passed


def test_the_solver_section_states_the_settings_a_run_recorded_not_those_of_the_anuga_installed_now():
    owner = make_user()
    run = complete_run_of_package(owner, name="Recorded")
    recorded = {**default_algorithm_parameters(), "flow_algorithm": "DE1", "minimum_allowed_height": 0.0005}
    run.statistics = {**run.statistics, "solver": {"anuga_version": "3.1.9", "parameters": recorded}}
    run.save(update_fields=["statistics"])

    text = page_text(sign_in(Client(), owner).get(f"/reports/runs/{run.pk}/").content)

    assert "ANUGA 3.1.9, solving" in text and "as the run recorded them" in text
    assert "Flow algorithm DE1," in text and "minimum_allowed_height 0.0005 m" in text


def test_the_depth_map_is_cut_at_the_inundation_threshold_the_run_used_and_says_so():
    owner = make_user()
    run = complete_run_of_package(owner, name="Threshold")
    run.statistics = {**run.statistics, "inundation_threshold_m": 0.2}
    run.save(update_fields=["statistics"])

    text = page_text(sign_in(Client(), owner).get(f"/reports/runs/{run.pk}/").content)

    assert "Peak depth (depths of 0.2 m or less, the inundation threshold, shown as not flooded)" in text


def test_a_comparisons_report_and_a_run_report_with_its_comparison_stay_within_their_margins():
    owner = make_user()
    run = with_statistics(complete_run_of_package(owner, name="Compared", hazard=True))
    api = api_for(owner)
    event = event_of(api, run.scenario.project_id)
    assert observation(api, run.scenario.project_id, event["id"]).status_code == 201
    compared = api.post(f"/api/v2/anuga/runs/{run.pk}/compare/", {"event": event["id"]}, format="json").json()
    comparison = sign_in(Client(), owner).get(f"/reports/comparisons/{compared['id']}/report.pdf")
    assert comparison.status_code == 200

    for pages in (pages_of(report_pdf(owner, run.pk)), pages_of(comparison.content)):
        assert [(index, outside(page)) for index, page in enumerate(pages) if outside(page)] == []
        assert [(index, round(page.fill, 3)) for index, page in enumerate(pages[:-1]) if page.fill < 0.1] == []
