"""The map's Calibration panel in a real browser: a study's link opens it, and the numbers it shows (the parameters'
best values, the best fit at every observation, the convergence points, the Morris chart and ranking) are those the
REST detail answers with. The studies are rows written here (no simulation runs): what the panel reads is the answer.

Numbers are compared as the panel writes them: 3 decimals (see hydrata/map/static/map/panels/calibration.js)."""

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from playwright.sync_api import sync_playwright

from hydrata.anuga.models import Scenario
from hydrata.calibration.models import CalibrationMember, CalibrationStudy
from hydrata.calibration.selectors import calibration_link
from hydrata.observations.models import FloodEvent, Observation
from tests.browser import Visit, launch, sign_in, visit, wait_for_panel
from tests.factories import PASSWORD, make_grant, make_project, make_user
from tests.mcp_client import call

pytestmark = pytest.mark.django_db(transaction=True)

# A friction name an agent wrote: the panel shows it as text, and it never runs.
HOSTILE = "<img src=x onerror=\"document.title='ran'\">channel"
FRICTION = {"target": "friction", "name": HOSTILE, "low": 0.02, "high": 0.12}
RAIN = {"target": "rain", "name": None, "low": 0.6, "high": 1.6}
INFLOW = {"target": "inflow", "name": "creek", "low": 0.5, "high": 2.0}
ESTIMATE = {
    "members": 6,
    "mesh_triangle_count_estimate": 1200,
    "triangle_steps": 720000,
    "vcpu_hours_estimate": 0.0123,
    "compute_cost_estimate": "4.20",
}
# An optimiser's members, [n, rain] by index, and their RMSE (m); member 4's run gave no comparison.
OPTIMISED = [
    ([0.0731, 1.2117], 0.3312),
    ([0.0412, 0.8893], 0.2177),
    ([0.1093, 1.4431], 0.4011),
    ([0.0357, 1.0212], 0.1234),
    ([0.0524, 0.9411], None),
    ([0.0389, 1.0578], 0.1391),
]


@dataclass
class Studies:
    url: str
    username: str
    project_id: int
    optimised: int
    morris: int
    draft: int
    links: dict[str, str]
    key: str  # a read key of the engineer's, for the tool


def _study(project, scenario, event, user, **fields) -> CalibrationStudy:
    defaults = {
        "budget": 6,
        "members_planned": 6,
        "in_flight": 2,
        "estimate": ESTIMATE,
        "status": "complete",
        "started_at": timezone.now() - timedelta(hours=1),
        "finished_at": timezone.now(),
        "compute_cost": Decimal("4.20"),
    }
    return CalibrationStudy.objects.create(
        project=project, base_scenario=scenario, event=event, created_by=user, **{**defaults, **fields}
    )


def _optimised(project, scenario, event, user, observations) -> CalibrationStudy:
    labels = [f"friction:{HOSTILE}", "rain"]
    study = _study(project, scenario, event, user, name=HOSTILE, method="optimise", parameters=[FRICTION, RAIN])
    for index, (values, objective) in enumerate(OPTIMISED):
        CalibrationMember.objects.create(study=study, index=index, values=values, objective=objective, told=True)
    best_values, best_rmse = OPTIMISED[3]
    observed = [(observations[0], 2.4137, 2.3021), (observations[1], 1.8822, 2.0413), (observations[2], 3.1071, None)]
    study.results = {
        "method": "optimise",
        "members_run": 6,
        "members_complete": 5,
        "best": {
            "member": 3,
            "run": None,
            "values": dict(zip(labels, best_values, strict=True)),
            "objective": best_rmse,
            "comparison": None,
            "metrics": {"n": 2, "bias": 0.0243, "mae": 0.1353, "rmse": best_rmse, "max_abs_error": 0.1591},
            "fit": [
                {
                    "observation_id": observation.pk,
                    "observed": value,
                    "modelled": modelled,
                    "error": None if modelled is None else modelled - value,
                    "within_tolerance": None if modelled is None else abs(modelled - value) <= 0.3,
                }
                for observation, value, modelled in observed
            ],
        },
        "morris": None,
    }
    study.save()
    return study


def _effects(rows):
    return [{"parameter": p, "mu_star": m, "sigma": s, "mu_star_conf": c} for p, m, s, c in rows]


def _morris(project, scenario, event, user) -> CalibrationStudy:
    study = _study(
        project, scenario, event, user, name="Morris of the creek", method="morris", parameters=[FRICTION, RAIN, INFLOW]
    )
    friction = f"friction:{HOSTILE}"
    for index in range(6):
        values = [0.02 + 0.0171 * index, 0.6 + 0.1713 * index, 0.5 + 0.2609 * index]
        CalibrationMember.objects.create(study=study, index=index, values=values, objective=0.2 + 0.0217 * index)
    study.results = {
        "method": "morris",
        "members_run": 6,
        "members_complete": 6,
        "best": None,
        "morris": {
            "trajectories": 2,
            "outputs": [
                {
                    "output": "observation",
                    "name": "mark at the bridge",
                    "trajectories": 2,
                    "effects": _effects(
                        [
                            ("rain", 0.8123, 0.2117, 0.1041),
                            (friction, 0.4411, 0.0917, 0.0531),
                            ("inflow:creek", 0.0713, 0.0213, 0.0112),
                        ]
                    ),
                },
                {
                    "output": "wet_area",
                    "name": "wet area",
                    "trajectories": 2,
                    "effects": _effects(
                        [
                            ("inflow:creek", 1.5117, 0.3413, 0.2011),
                            ("rain", 1.2041, 0.6117, 0.1813),
                            (friction, 0.1019, 0.0411, 0.0217),
                        ]
                    ),
                },
            ],
            "ranking": [
                {"parameter": "rain", "influence": 0.8983},
                {"parameter": "inflow:creek", "influence": 0.5439},
                {"parameter": friction, "influence": 0.3052},
            ],
        },
    }
    study.save()
    return study


@pytest.fixture
def studies(live_asgi) -> Studies:
    """A project with three calibration studies of one base scenario and flood event: a complete optimiser, a
    complete Morris screen and a draft."""
    user = make_user("calibrator", password=PASSWORD)
    project = make_project(user, name="Calibration creek")
    scenario = Scenario.objects.create(project=project, name="Base", resolution=10, duration=60)
    event = FloodEvent.objects.create(
        project=project, name="March flood", started_at=timezone.now() - timedelta(days=30), created_by=user
    )
    observations = [
        Observation.objects.create(
            event=event,
            x=x,
            y=6250000.0,
            given_x=x,
            given_y=6250000.0,
            given_crs="EPSG:28356",
            quantity="peak_depth",
            value_m=value,
            created_by=user,
        )
        for x, value in ((300000.0, 2.4137), (300100.0, 1.8822), (300200.0, 3.1071))
    ]
    optimised = _optimised(project, scenario, event, user, observations)
    morris = _morris(project, scenario, event, user)
    draft = _study(
        project,
        scenario,
        event,
        user,
        name="Draft fit",
        method="optimise",
        parameters=[RAIN],
        status="draft",
        started_at=None,
        finished_at=None,
        compute_cost=None,
    )
    links = {study.name: calibration_link(study) for study in (optimised, morris, draft)}
    _, key = make_grant(user, level="read")
    return Studies(live_asgi.url, user.get_username(), project.pk, optimised.pk, morris.pk, draft.pk, links, key)


@pytest.fixture
def tab(studies) -> Iterator[Visit]:
    """A tab of Debian's chromium, opened after the rows are written (Playwright's event loop then holds the thread,
    where the ORM refuses to run); the test fails if any page broke the site's CSP."""
    with sync_playwright() as playwright:
        browser = launch(playwright)
        opened = visit(browser, studies.url)
        try:
            yield opened
        finally:
            opened.close()
            browser.close()
        assert opened.csp_violations == [], opened.csp_violations
        assert opened.console_errors == [], opened.console_errors


def open_study(tab: Visit, studies: Studies, name: str) -> dict:
    """Sign in through the study's link, wait for the panel, and hand back the REST detail the same session reads."""
    link = studies.links[name]
    assert "panel=calibration" in link
    sign_in(tab, link, username=studies.username, password=PASSWORD)
    wait_for_panel(tab, "calibration")
    study_id = int(link.rsplit("study=", 1)[1])
    path = f"{studies.url}/api/v2/anuga/projects/{studies.project_id}/calibration-studies/{study_id}/"
    answer = tab.page.request.get(path)
    assert answer.status == 200, answer.text()
    return answer.json()


def cells(tab: Visit, table: str) -> list[list[str]]:
    return tab.page.eval_on_selector_all(
        f"#{table} tbody tr", "rows => rows.map(r => Array.from(r.cells).map(c => c.textContent))"
    )


def three(value) -> str:
    return "—" if value is None else f"{value:.3f}"


def test_an_optimisers_link_shows_its_parameters_best_values_convergence_and_best_fit_as_the_rest_detail_has_them(
    tab, studies
):
    detail = open_study(tab, studies, HOSTILE)
    best = detail["results"]["best"]

    assert cells(tab, "calibration-parameters") == [
        [p["label"], three(p["low"]), three(p["high"]), three(best["values"][p["label"]])] for p in detail["parameters"]
    ]
    assert cells(tab, "calibration-fit") == [
        [
            str(f["observation_id"]),
            three(f["observed"]),
            three(f["modelled"]),
            three(f["error"]),
            "—" if f["within_tolerance"] is None else "yes" if f["within_tolerance"] else "no",
        ]
        for f in best["fit"]
    ]
    scored = [m for m in detail["members"] if m["objective"] is not None]
    points = tab.page.eval_on_selector_all(
        "#calibration-convergence g.point", "gs => gs.map(g => [Number(g.dataset.index), Number(g.dataset.objective)])"
    )
    assert points == [[m["index"], m["objective"]] for m in scored] and len(points) == 5
    assert tab.page.get_attribute("#calibration-convergence", "data-points") == str(len(scored))
    assert tab.page.locator("#calibration-convergence path.running").count() == 1
    assert f"{best['objective']:.3f} m" in tab.page.inner_text("#panel")
    assert float(tab.page.get_attribute("#calibration-progress", "value")) == detail["progress"]["progress_pct"]
    assert "complete" in tab.page.inner_text("#calibration-live")
    # the agent's names are text: shown as written, never an element, never run
    assert HOSTILE in tab.page.inner_text("#panel h2")
    assert tab.page.locator("#panel img, #panel script").count() == 0
    assert tab.page.title() != "ran"
    tab.page.locator("#calibration-convergence").scroll_into_view_if_needed()
    tab.screenshot("map-calibration")
    # and the tool hands the agent the very numbers the panel shows
    asked = {"project_id": studies.project_id, "study_id": detail["id"]}
    with ThreadPoolExecutor(1) as aside:  # the MCP client runs its own event loop; Playwright's holds this thread
        told = aside.submit(call, studies.url, studies.key, "get_calibration_study", asked).result()
    assert not told.is_error, told.content[0].text
    assert told.structured_content["results"] == detail["results"]
    assert told.structured_content["summary"]["best_values"] == best["values"]
    assert told.structured_content["summary"]["best_rmse_m"] == best["objective"]


def test_a_morris_studys_chart_has_one_point_per_parameter_for_the_chosen_output_and_its_ranking_is_the_rest_ranking(
    tab, studies
):
    detail = open_study(tab, studies, "Morris of the creek")
    morris = detail["results"]["morris"]

    assert cells(tab, "calibration-ranking") == [
        [str(rank), row["parameter"], three(row["influence"])] for rank, row in enumerate(morris["ranking"], start=1)
    ]
    # the first output unless another is chosen
    assert tab.page.input_value("#calibration-output") == "0"
    assert tab.page.get_attribute("#calibration-morris", "data-output") == morris["outputs"][0]["name"]
    for index, output in enumerate(morris["outputs"]):
        tab.page.select_option("#calibration-output", str(index))
        tab.page.wait_for_selector(f'#calibration-morris[data-output="{output["name"]}"]')
        points = tab.page.eval_on_selector_all(
            "#calibration-morris g.point",
            "gs => gs.map(g => [g.dataset.parameter, Number(g.dataset.muStar), Number(g.dataset.sigma)])",
        )
        assert points == [[e["parameter"], e["mu_star"], e["sigma"]] for e in output["effects"]]
        assert tab.page.locator("#calibration-morris .point-label").all_text_contents() == [
            e["parameter"] for e in output["effects"]
        ]
        assert cells(tab, "calibration-effects") == [
            [e["parameter"], three(e["mu_star"]), three(e["mu_star_conf"]), three(e["sigma"])]
            for e in output["effects"]
        ]
    tab.page.locator("#calibration-morris").scroll_into_view_if_needed()
    tab.screenshot("map-calibration-morris")
    assert tab.page.locator("#calibration-fit").count() == 0  # a screen has no best fit
    assert tab.page.get_attribute("#calibration-convergence", "data-points") == str(len(detail["members"]))


def test_the_panel_without_a_study_lists_the_projects_studies_and_the_engineer_signs_a_draft_off(tab, studies):
    listing = studies.links["Draft fit"].split("&study=")[0]
    sign_in(tab, listing, username=studies.username, password=PASSWORD)
    wait_for_panel(tab, "calibration")
    assert sorted(tab.page.locator("#calibration-studies ul.links a").all_text_contents()) == sorted(studies.links)

    tab.page.click("#calibration-studies ul.links a:has-text('Draft fit')")
    wait_for_panel(tab, "calibration")
    tab.page.wait_for_selector("#calibration-approve")
    path = f"{studies.url}/api/v2/anuga/projects/{studies.project_id}/calibration-studies/{studies.draft}/"
    before = tab.page.request.get(path).json()["approval"]
    assert not before["approved"]
    assert tab.page.inner_text("#calibration-fingerprint") == before["fingerprint"]

    tab.page.click("#calibration-approve")
    tab.page.wait_for_selector("#calibration-sign-off[data-approved=true]")
    after = tab.page.request.get(path).json()["approval"]
    assert after["approved"] and after["approved_by_you"] and after["fingerprint"] == before["fingerprint"]
    assert "Signed off by you as it is now." in tab.page.inner_text("#calibration-sign-off")
