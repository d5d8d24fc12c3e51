"""The report of the folder's real small_test run, as an engineer opens it: the page in chromium (under the site's
CSP), its PDF downloaded on the site, every page of it rendered by pdftoppm, and its text holding the numbers the
tools hand back (get_run_results, get_run) for peak depth, wet area, mass error and cost. get_run_report's
summary names the same pages and figures. Each page is left as a picture in var/test-artifacts/."""

import json
import re
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.browser import ARTIFACTS, off_the_browser_thread, sign_in
from tests.hydrata.map.browser.conftest import PASSWORD
from tests.mcp_client import call

MAPS = ("Peak depth", "Peak speed", "Peak hazard (ARR 2019)", "Time of first inundation")


def number_after(label: str, text: str) -> float:
    """The first number after `label` on its line of pdftotext -layout's text."""
    found = re.search(rf"{re.escape(label)}\s+(-?[\d,]+(?:\.\d+)?)", text)
    assert found, (label, text[:3000])
    return float(found[1].replace(",", ""))


def tool(site, name: str, **arguments) -> dict:
    result = off_the_browser_thread(call, site.url, site.key, name, arguments)
    assert not result.is_error, result.content[0].text
    return result.structured_content


@pytest.fixture(scope="module")
def report(site):
    """The tool's answer, asked first of all (the platform draws the figures then), and how long it took. The
    site's worker lays the PDF out; until it has, the answer's pages are null and the agent asks again."""
    started = time.perf_counter()
    answer = tool(site, "get_run_report", run_id=site.run_id)
    TIMINGS["get_run_report_first_seconds"] = round(time.perf_counter() - started, 2)
    while answer["summary"]["pages"] is None and time.perf_counter() - started < 300:
        answer = tool(site, "get_run_report", run_id=site.run_id)
    TIMINGS["get_run_report_with_pages_seconds"] = round(time.perf_counter() - started, 2)
    return answer


TIMINGS: dict[str, float] = {}


def test_the_run_report_page_opens_under_the_policy_with_every_section_and_map(tab, site, report):
    sign_in(tab, report["ui_url"], username=site.username, password=PASSWORD)
    tab.page.wait_for_selector("#provenance")
    tab.page.screenshot(path=str(_artifact("report-run-page.png")), full_page=True)
    images = tab.page.eval_on_selector_all("figure img", "images => images.map(i => [i.alt, i.naturalWidth])")

    for section in ("model", "forcing", "health", "results", "provenance"):
        assert tab.page.locator(f"section#{section}").count() == 1
    assert {alt for alt, _ in images} >= set(MAPS) and all(width > 0 for _, width in images)
    assert [alt for alt, _ in images] == report["summary"]["figures"]
    assert tab.page.get_attribute("#report-pdf", "href") == report["summary"]["pdf_url"]
    assert tab.foreign_requests() == [] and tab.console_errors == []


def test_the_pdf_renders_every_page_and_holds_the_numbers_the_tools_hand_back(tab, site, report, tmp_path):
    results = tool(site, "get_run_results", run_id=site.run_id)["statistics"]
    run = tool(site, "get_run", run_id=site.run_id)
    sign_in(tab, report["ui_url"], username=site.username, password=PASSWORD)
    started = time.perf_counter()
    download = tab.page.request.get(report["summary"]["pdf_url"])
    TIMINGS["pdf_download_seconds"] = round(time.perf_counter() - started, 2)
    _artifact("report-run-timing.json").write_text(json.dumps({**TIMINGS, "pages": report["summary"]["pages"]}))
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(download.body())

    pages = _rendered_pages(pdf, prefix="report-run-pdf")
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, check=True).stdout.decode()

    assert download.status == 200 and download.headers["content-type"] == "application/pdf"
    assert len(pages) == report["summary"]["pages"] >= 4
    assert all(_inked(page) > 0.003 for page in pages)  # more than the page number: a drawn page
    assert number_after("Peak depth", text) == pytest.approx(results["peak_depth_m"], abs=5e-4)
    assert number_after("Wet area", text) == pytest.approx(results["wet_area_m2"], abs=0.05)
    assert number_after("Mass error", text) == pytest.approx(results["mass_balance_error_pct"], abs=5e-5)
    assert number_after("Cost", text) == pytest.approx(float(run["compute_cost"]), abs=0.005)
    assert "through the agent grant “browser tests”" in " ".join(text.split())


def test_get_run_report_hands_back_the_page_the_pages_and_the_figures(site, report):
    assert report["id"] == site.run_id
    assert report["ui_url"] == f"{site.url}/reports/runs/{site.run_id}/"
    assert report["summary"]["pdf_url"] == f"{site.url}/reports/runs/{site.run_id}/report.pdf"
    assert set(MAPS) <= set(report["summary"]["figures"]) and "Model boundary" in report["summary"]["figures"]
    assert report["ui_url"] in report["say_to_user"] and "X-Hydrata-Signature" not in str(report)


def _inked(page: Path) -> float:
    """The share of a page's pixels that are not paper-white."""
    grey = np.asarray(Image.open(page).convert("L"))
    return float((grey < 250).mean())


def _artifact(name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / name


def _rendered_pages(pdf: Path, *, prefix: str) -> list[Path]:
    """Every page of the PDF as a PNG by pdftoppm (poppler), kept in var/test-artifacts/."""
    for old in ARTIFACTS.glob(f"{prefix}-*.png"):
        old.unlink()
    subprocess.run(["pdftoppm", "-png", "-r", "60", str(pdf), str(_artifact(prefix))], check=True)
    return sorted(ARTIFACTS.glob(f"{prefix}-*.png"))
