"""A report says what ran, from the run's own package (docs/scenario-package.md): the SHA-256 of each file as the
build wrote it (hashed once, when the package was built; a report view reads no file of it to hash), and the
forcing as the run applied it, not as the scenario is now."""

import hashlib

import pytest
from django.test import Client

from config.celery import app as celery_app
from hydrata.storage import get_storage
from hydrata.studies.models import DesignMember
from tests.data import ARR
from tests.factories import make_finished_run, make_user, sign_in
from tests.hydrata.observations.helpers import PROJECTS, api_for, upload
from tests.hydrata.reports.helpers import STORM_ROWS, complete_run_of_package, rain_named

STUDY_FILES = {"ifd": "Synthetic_IFD_Depths_Short.csv", "temporal_patterns": "Synthetic_Increments_Two_Patterns.csv"}

pytestmark = pytest.mark.django_db(transaction=True)


def stored_sha256(key: str) -> str:
    with get_storage().open(key=key) as stream:
        return hashlib.sha256(stream.read()).hexdigest()


def test_the_package_is_hashed_once_when_built_and_a_report_view_reads_none_of_it_to_hash():
    owner = make_user()
    run = complete_run_of_package(owner)
    built = {name: stored_sha256(f"{run.package_prefix}/{name}") for name in ("mesh.msh", "inputs/dem.tif")}
    assert {name: run.package_sha256[name] for name in built} == built
    for name in built:  # a view that hashed the files again would find nothing to hash
        get_storage().delete(key=f"{run.package_prefix}/{name}")

    page = sign_in(Client(), owner).get(f"/reports/runs/{run.pk}/")

    assert page.status_code == 200
    assert all(digest.encode() in page.content for digest in built.values())


def forcing_facts(content: bytes) -> str:
    """The report's forcing table: the rain and inflow it says the run applied."""
    section = content.split(b'<section id="forcing">')[1].split(b"</section>")[0].decode()
    return section.split('<table class="facts">')[-1].split("</table>")[0]


def test_a_report_shows_the_forcing_the_run_applied_not_the_series_as_it_is_now():
    owner = make_user()
    run = complete_run_of_package(owner, rain_series="Design burst")
    client = sign_in(Client(), owner)
    before = forcing_facts(client.get(f"/reports/runs/{run.pk}/").content)
    project_id = run.scenario.project_id
    api = api_for(owner)
    tenfold = [{**row, "value": row["value"] * 10} for row in STORM_ROWS]
    heavier = {"name": "Heavier burst", "series_type": "hyetograph", "units": "mm/hr", "data": {"rowData": tenfold}}
    assert api.post(f"{PROJECTS}{project_id}/time-series/", heavier, format="json").status_code == 201
    dataset = upload(api, "heavier.geojson", rain_named("Heavier burst"))["output_params"]["resources"][0]["id"]
    rainfall = api.get(f"{PROJECTS}{project_id}/inputs/").json()["rainfall"][0]["id"]
    changed = api.patch(f"{PROJECTS}{project_id}/rainfalls/{rainfall}/", {"gn_layer": dataset}, format="json")
    assert changed.status_code == 200, changed.content
    now = api.get(f"{PROJECTS}{project_id}/scenarios/{run.scenario_id}/").json()["forcing"]

    after = client.get(f"/reports/runs/{run.pk}/")

    assert "mm in total" in before and forcing_facts(after.content) == before
    assert f"{now['rain_total_depth_mm']:.1f} mm in total" not in before
    assert b"this report shows the run as it ran" in after.content


def test_a_design_study_members_report_names_its_own_storm_and_shows_its_rain_not_the_base_scenarios():
    owner = make_user()
    base = complete_run_of_package(owner, name="base")
    project_id = base.scenario.project_id
    api = api_for(owner, level="launch")
    inputs = {
        kind: api.post(
            f"{PROJECTS}{project_id}/design-inputs/",
            {"kind": kind, "name": name, "content": (ARR / name).read_text()},
            format="json",
        ).json()["id"]
        for kind, name in STUDY_FILES.items()
    }
    study = api.post(
        f"{PROJECTS}{project_id}/design-studies/",
        {
            "name": "Storm $x^{$ study",
            "base_scenario": base.scenario_id,
            **inputs,
            "aeps": ["1%"],
            "durations_min": [5],
            "initial_loss_mm": 5,
            "continuing_loss_mm_h": 1,
        },
        format="json",
    )
    assert study.status_code == 201, study.content
    celery_app.conf.task_always_eager = False  # the members stay queued; one is completed below
    started = api.post(f"{PROJECTS}{project_id}/design-studies/{study.json()['id']}/start/")
    assert started.status_code == 202, started.content
    member = DesignMember.objects.filter(study_id=study.json()["id"]).select_related("run", "study").first()
    assert member is not None and member.run is not None
    run = make_finished_run(base.scenario.project, run=member.run)
    client = sign_in(Client(), owner)

    page = client.get(f"/reports/runs/{run.pk}/").content.decode()
    base_page = client.get(f"/reports/runs/{base.pk}/").content.decode()

    storm = page.split('id="design-storm"')[1].split("</table>")[0]
    assert f"{member.aep} AEP, {member.duration_min} min, temporal pattern {member.pattern}" in storm
    assert f"{member.rain_depth_mm:.1f} mm of rain; {member.excess_depth_mm:.1f} mm applied after losses" in storm
    assert "initial 5.0 mm" in storm and "continuing 1.00 mm/h" in storm and "climate 1.0" in storm
    assert f"{member.excess_depth_mm:.1f} mm in total" in forcing_facts(page.encode())
    assert forcing_facts(page.encode()) != forcing_facts(base_page.encode())
    assert 'id="design-storm"' not in base_page
    assert "design storm" in page and "(hyetograph)</figcaption>" in page
