"""A calibration study's report, on the site and as its PDF: what the study searched and against what, its method,
budget and cost, each parameter's range and best value, the best fit at every observation with the numbers of the
study's results, how the search converged, and a Morris screen's ranking. Who may open it (the project's members,
as the API shares a study), and what a study that is not complete gets. The study is written with the ORM as a
finished one leaves it (its results in the contract's shape), over a complete run written by the simulation's own
writer: no simulation."""

import html
import re
import subprocess
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client

from hydrata.calibration.models import CalibrationMember, CalibrationStudy
from hydrata.observations.models import FloodEvent
from hydrata_contract.answers.calibration import CalibrationResults
from hydrata_contract.calibration import CalibrationMethod
from tests.factories import make_finished_run, make_project, make_user, sign_in
from tests.hydrata.compute.figures.test_figure_text import HOSTILE
from tests.hydrata.observations.helpers import INSIDE, api_for, event_of, observation

pytestmark = pytest.mark.django_db(transaction=True)

FLOODPLAIN = "floodplain"
PARAMETERS = [
    {"target": "all_friction", "name": None, "low": 0.5, "high": 2.0},
    {"target": "friction", "name": FLOODPLAIN, "low": 0.02, "high": 0.08},
]
LABELS = ["all_friction", f"friction:{FLOODPLAIN}"]
# Each member's values (in the parameters' order) and RMSE (m): member 3 fits best; member 2 gave none.
MEMBERS = [
    ([1.5, 0.06], 0.4123),
    ([0.8, 0.03], 0.2871),
    ([1.9, 0.07], None),
    ([1.1, 0.045], 0.1234),
    ([0.6, 0.025], 0.1987),
]
BEST = 3
# Each observation's value, and the calibrated run's modelled peak there (None: off the model).
FIT = [(12.345, 12.4), (11.5, 11.375), (13.25, 13.0), (12.0, None)]
TOLERANCE = 0.2


def pdf_text(pdf: bytes) -> str:
    """The PDF's text, each line's white space made single spaces (a table's row is one line)."""
    laid = subprocess.run(["pdftotext", "-layout", "-", "-"], input=pdf, capture_output=True, check=True).stdout
    return "\n".join(" ".join(line.split()) for line in laid.decode().splitlines())


def flat(text: str) -> str:
    """`text` on one line: a sentence the PDF wraps reads whole."""
    return " ".join(text.split())


def page_text(content: bytes) -> str:
    """The page's text, its markup dropped and its white space made single spaces."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", content.decode())).split())


def calibrated(owner, *, method: str = CalibrationMethod.OPTIMISE, status: str = "complete", parameters=None):
    """A project with a complete run, a flood event with FIT's observations compared with that run, and a study of
    the run's scenario against the event, ended as `status` with MEMBERS; the best member is the run."""
    project = make_project(owner, name="Calibrated")
    run = make_finished_run(project)
    api = api_for(owner)
    event = event_of(api, project.pk, name="March 2022 flood")
    ids = []
    for number, (value, _) in enumerate(FIT):
        made = observation(
            api, project.pk, event["id"], x=INSIDE[0] + 10 * number, value_m=value, tolerance_m=TOLERANCE
        )
        assert made.status_code == 201, made.content
        ids.append(made.json()["id"])
    compared = api.post(f"/api/v2/anuga/runs/{run.pk}/compare/", {"event": event["id"]}, format="json")
    assert compared.status_code in (200, 201), compared.content
    study = CalibrationStudy.objects.create(
        project=project,
        base_scenario=run.scenario,
        event=FloodEvent.objects.get(pk=event["id"]),
        name="Friction fit",
        method=method,
        parameters=parameters or PARAMETERS,
        budget=6,
        members_planned=len(MEMBERS),
        in_flight=2,
        seed=7,
        estimate={
            "members": len(MEMBERS),
            "mesh_triangle_count_estimate": 900,
            "triangle_steps": 54000,
            "vcpu_hours_estimate": 0.25,
            "compute_cost_estimate": "4.50",
        },
        status=status,
        compute_cost=Decimal("3.21") if status == "complete" else None,
        results=results_of(method, ids, run.pk, compared.json()["id"]) if status == "complete" else None,
        created_by=owner,
    )
    for index, (values, objective) in enumerate(MEMBERS):
        CalibrationMember.objects.create(
            study=study,
            index=index,
            values=values,
            run=run if index == BEST else None,
            objective=objective,
            told=True,
        )
    return study


def results_of(method: str, observation_ids: list[int], run_id: int, comparison_id: int) -> dict[str, Any]:
    """The results a study ends with, as the contract shapes them (checked by its CalibrationResults)."""
    fit = []
    for observation_id, (observed, modelled) in zip(observation_ids, FIT, strict=True):
        error = None if modelled is None else round(modelled - observed, 4)
        within = None if error is None else abs(error) <= TOLERANCE
        fit.append(
            {
                "observation_id": observation_id,
                "observed": observed,
                "modelled": modelled,
                "error": error,
                "within_tolerance": within,
            }
        )
    best_values, best_rmse = MEMBERS[BEST]
    results = {
        "method": method,
        "members_run": len(MEMBERS),
        "members_complete": sum(1 for _, objective in MEMBERS if objective is not None),
        "best": None,
        "morris": None,
    }
    if method == CalibrationMethod.OPTIMISE:
        results["best"] = {
            "member": BEST,
            "run": run_id,
            "values": dict(zip(LABELS, best_values, strict=True)),
            "objective": best_rmse,
            "comparison": comparison_id,
            "metrics": {
                "n": 3,
                "within_tolerance": 2,
                "outside_model": 1,
                "dry": 0,
                "bias": -0.0383,
                "mae": 0.1467,
                "rmse": best_rmse,
                "max_abs_error": 0.25,
                "within_tolerance_share": 0.6667,
            },
            "fit": fit,
        }
    else:
        results["morris"] = {
            "trajectories": 2,
            "outputs": [
                {
                    "output": "wet_area",
                    "name": "wet area (m²)",
                    "trajectories": 2,
                    "effects": [
                        {"parameter": LABELS[1], "mu_star": 420.5, "sigma": 80.25, "mu_star_conf": 12.5},
                        {"parameter": LABELS[0], "mu_star": 105.0, "sigma": 150.0, "mu_star_conf": 30.0},
                    ],
                },
                {
                    "output": "observation",
                    "name": str(observation_ids[0]),
                    "trajectories": 2,
                    "effects": [
                        {"parameter": LABELS[1], "mu_star": 0.3, "sigma": 0.05, "mu_star_conf": 0.01},
                        {"parameter": LABELS[0], "mu_star": 0.06, "sigma": 0.09, "mu_star_conf": 0.02},
                    ],
                },
            ],
            "ranking": [{"parameter": LABELS[1], "influence": 1.0}, {"parameter": LABELS[0], "influence": 0.2249}],
        }
    CalibrationResults.model_validate(results)
    return results


def fit_rows(study: CalibrationStudy) -> list[str]:
    """Each observation's row of the fit table as the study's results give it: id, quantity, observed, modelled,
    error and within tolerance, to the table's millimetres."""

    def number(value: float | None) -> str:
        return "—" if value is None else f"{value:.3f}"

    return [
        f"{row['observation_id']} peak_stage {number(row['observed'])} {number(row['modelled'])} "
        f"{number(row['error'])} {({True: 'yes', False: 'no', None: '—'})[row['within_tolerance']]}"
        for row in study.results["best"]["fit"]
    ]


def paths(study: CalibrationStudy) -> list[str]:
    return [f"/reports/calibration/{study.pk}/", f"/reports/calibration/{study.pk}/report.pdf"]


def test_an_optimisers_report_states_its_method_budget_cost_best_values_and_every_observations_fit_on_page_and_pdf():
    owner = make_user()
    study = calibrated(owner)
    client = sign_in(Client(), owner)

    page, pdf = (client.get(path) for path in paths(study))

    assert page.status_code == 200 and pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    text, laid = page_text(page.content), pdf_text(pdf.content)
    best = study.results["best"]
    for shown in (text, flat(laid)):
        assert "Optimiser (optuna TPE)" in shown
        assert "6 members at most; 5 planned, 5 run, 4 compared with the observations" in shown
        assert "3.21 USD (estimated 4.50 USD, 0.25 vCPU-hours, for 5 members)" in shown
        assert "Friction fit" in shown and "March 2022 flood" in shown and study.base_scenario.name in shown
        assert f"friction:{FLOODPLAIN}" in shown and "all_friction" in shown
        assert f"RMSE {best['objective']} m" in shown
        assert f"Bias {best['metrics']['bias']} m" in shown and f"MAE {best['metrics']['mae']} m" in shown
        assert "Points compared 3 (2 within tolerance, 0 dry, 1 outside the model)" in shown
        assert "Every point compared (4)" in shown
    parameter_rows = [
        f"friction:{FLOODPLAIN} Manning's n of the friction polygons of this name 0.02 0.08 "
        f"{best['values'][f'friction:{FLOODPLAIN}']:g}",
        f"all_friction A multiplier on every Manning's n, the default's too 0.5 2 {best['values']['all_friction']:g}",
    ]
    for row in parameter_rows:
        assert row in text, row
    for row in fit_rows(study):
        assert row in text, row
        assert row in laid.splitlines(), row
    assert b"could not be drawn" not in page.content
    assert page.content.count(b'src="data:image/png') == 1  # the convergence
    assert "Convergence: each member's RMSE and the best so far" in flat(laid)


def test_the_report_links_to_the_comparison_report_and_the_run_report_of_the_calibrated_run():
    owner = make_user()
    study = calibrated(owner)
    best = study.results["best"]
    client = sign_in(Client(), owner)

    page = client.get(paths(study)[0]).content.decode()
    comparison = client.get(f"/reports/comparisons/{best['comparison']}/")

    assert f'/reports/comparisons/{best["comparison"]}/" id="comparison-report"' in page
    assert f'/reports/runs/{best["run"]}/"' in page
    assert comparison.status_code == 200


def test_a_morris_screens_report_ranks_the_parameters_and_draws_mu_star_against_sigma():
    owner = make_user()
    study = calibrated(owner, method=CalibrationMethod.MORRIS)
    client = sign_in(Client(), owner)

    page, pdf = (client.get(path) for path in paths(study))

    assert page.status_code == 200 and pdf.status_code == 200
    text, laid = page_text(page.content), pdf_text(pdf.content)
    ranking = study.results["morris"]["ranking"]
    for shown in (text, flat(laid)):
        assert "Morris screen (SALib)" in shown
        assert "6 members at most; 5 planned, 5 run" in shown
        assert "no best value" in shown and "Best fit" not in shown
    for rank, row in enumerate(ranking, start=1):
        expected = f"{rank} {row['parameter']} {row['influence']:.3f}"
        assert expected in text and expected in laid.splitlines(), expected
    observed = study.results["morris"]["outputs"][1]["name"]
    assert "Wet area (m²) 2 friction:floodplain 420.5000 80.2500 12.5000" in text
    assert f"Peak at observation {observed} 2 all_friction 0.0600 0.0900 0.0200" in text
    assert b"could not be drawn" not in page.content
    assert page.content.count(b'src="data:image/png') == 2  # each member's RMSE, and mu* against sigma
    assert 'alt="Morris screen: μ* against σ"' in page.content.decode()
    assert "Each parameter's μ* against its σ" in flat(laid)


@pytest.mark.parametrize("name", [HOSTILE[0], HOSTILE[5]])
def test_a_parameter_named_in_markup_or_math_is_text_on_the_page_and_drawn_as_text_in_the_figures(name):
    owner = make_user()
    parameters = [PARAMETERS[0], {**PARAMETERS[1], "name": name}]
    study = calibrated(owner, method=CalibrationMethod.MORRIS, parameters=parameters)
    hostile = f"friction:{name}"
    study.results["morris"]["ranking"][0]["parameter"] = hostile
    for output in study.results["morris"]["outputs"]:
        output["effects"][0]["parameter"] = hostile
    study.save(update_fields=["results"])
    client = sign_in(Client(), owner)

    page, pdf = (client.get(path) for path in paths(study))

    assert page.status_code == 200 and pdf.status_code == 200
    assert b"could not be drawn" not in page.content
    assert html.escape(hostile).encode() in page.content
    assert b"<b>bold</b>" not in page.content


def test_a_person_who_may_not_see_the_project_or_is_not_its_member_gets_404_for_the_page_and_the_pdf():
    owner, stranger = make_user(), make_user()
    study = calibrated(owner)
    private = [sign_in(Client(), stranger).get(path).status_code for path in paths(study)]
    study.project.is_public = True
    study.project.save(update_fields=["is_public"])

    public = [sign_in(Client(), stranger).get(path).status_code for path in paths(study)]
    missing = sign_in(Client(), owner).get(f"/reports/calibration/{study.pk + 1000}/").status_code

    assert private == [404, 404]
    assert public == [404, 404]  # a study is its members' only, as the API shares it
    assert missing == 404


def test_a_person_signed_out_is_sent_to_sign_in():
    study = calibrated(make_user())

    answers = [Client().get(path) for path in paths(study)]

    assert all(answer.status_code == 302 and "/accounts/login/" in answer["Location"] for answer in answers)


@pytest.mark.parametrize("status", ["draft", "running"])
def test_a_study_that_is_not_complete_is_refused_with_409_saying_so(status):
    owner = make_user()
    study = calibrated(owner, status=status)
    client = sign_in(Client(), owner)

    page, pdf = (client.get(path) for path in paths(study))

    assert [page.status_code, pdf.status_code] == [409, 409]
    assert f"is {status}".encode() in page.content and b"complete study" in page.content
