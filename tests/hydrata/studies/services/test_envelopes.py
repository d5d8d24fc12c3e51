"""A study's envelopes take the central value its setting names. Ten patterns of one duration, whose peaks are
spread so that their median and mean differ, are settled by the study's own advance; each member's rasters are
written by the simulation's own writer (no simulation), so the test knows every peak."""

import numpy as np
import pytest
import rasterio

from hydrata.anuga.models import Project, Scenario
from hydrata.storage import get_storage
from hydrata.studies.models import DesignMember, DesignStudy
from hydrata.studies.sampling import SAMPLED
from hydrata.studies.services.runs import design_study_advance
from hydrata_contract.layers import ResultLayer
from hydrata_contract.studies import StudyStatus
from tests.factories import make_finished_run, make_grant
from tests.hydrata.studies.helpers import (
    assert_figures_equal,
    base_scenario,
    figures_of_rasters,
    stored_raster,
    upload_inputs,
)
from tests.mcp_client import call
from tests.model_setup import PROJECTS, api, small_test_model

pytestmark = pytest.mark.django_db(transaction=True)
CENTRAL = {"median": np.median, "mean": np.mean}


def stored(key: str) -> np.ndarray:
    with get_storage().local_path(key=key) as path, rasterio.open(path) as source:
        return source.read(1, masked=True).astype(np.float64).filled(np.nan)


def drafted_study(url: str, key: str, statistic: str) -> DesignStudy:
    """A study of the 1% AEP 30-minute storm's ten patterns (Synthetic_Increments.csv) on small_test."""
    model = small_test_model(url, key)
    with api(url, key) as http:
        scenario = base_scenario(http, model.project_id)
        inputs = upload_inputs(http, model.project_id)
        created = http.post(
            f"{PROJECTS}{model.project_id}/design-studies/",
            json={
                "name": "ten patterns",
                "base_scenario": scenario["id"],
                **inputs,
                "aeps": ["1%"],
                "durations_min": [30],
                "central_statistic": statistic,
            },
        )
    assert created.status_code == 201, created.text
    return DesignStudy.objects.get(pk=created.json()["id"])


def members_completed(study: DesignStudy) -> list[np.ndarray]:
    """Each member's run complete, the k-th pattern's peak depth (k + 1)^2 cm over the model's western half: a
    spread whose mean (38.5 cm) is far from its median (30.5 cm). Returns each member's depth raster."""
    project = Project.objects.get(pk=study.project_id)
    scenario = Scenario.objects.select_related("terrain").get(pk=study.base_scenario_id)
    assert scenario.terrain is not None
    with get_storage().local_path(key=scenario.terrain.dem_key) as path, rasterio.open(path) as dem:
        height, width = dem.height, dem.width
    depths = []
    for k, member in enumerate(DesignMember.objects.filter(study=study).order_by("pattern")):
        depth = np.zeros((height, width), dtype=np.float32)
        depth[:, : width // 2] = (k + 1) ** 2 / 100
        member.run = make_finished_run(project, scenario=scenario, depth=depth, hazard=(depth > 0) * (1 + k % 3))
        member.save(update_fields=["run"])
        depths.append(depth)
    return depths


@pytest.mark.parametrize("statistic", ["median", "mean"])
def test_the_envelope_is_the_median_or_the_mean_of_the_patterns_as_the_study_says(live_asgi, statistic):
    _, key = make_grant(level="draft")
    study = drafted_study(live_asgi.url, key, statistic)
    DesignStudy.objects.filter(pk=study.pk).update(status=StudyStatus.RUNNING)
    depths = members_completed(study)

    design_study_advance(study_id=study.pk)  # every member settled: the envelopes are computed (eager queue)

    study.refresh_from_db()
    assert study.status == StudyStatus.COMPLETE, study.status_message
    assert len(depths) == 10 and study.results["central_statistic"] == statistic
    (aep,) = study.results["aeps"]
    keys = {layer["name"]: layer["key"] for layer in aep["layers"]}
    expected = CENTRAL[statistic](np.stack(depths), axis=0)
    envelope = stored(keys[ResultLayer.MAX_DEPTH.value])
    wet = expected > 0
    assert wet.any() and np.allclose(envelope[wet], expected[wet].astype(np.float32))
    assert np.allclose(np.unique(envelope[wet]), 0.305 if statistic == "median" else 0.385)


def test_get_design_study_gives_figures_equal_to_the_envelope_rasters_own_and_samples_them_at_points(live_asgi):
    _, key = make_grant(level="draft")
    study = drafted_study(live_asgi.url, key, "median")
    DesignStudy.objects.filter(pk=study.pk).update(status=StudyStatus.RUNNING)
    members_completed(study)
    design_study_advance(study_id=study.pk)
    study.refresh_from_db()
    (aep,) = study.results["aeps"]
    expected = figures_of_rasters(aep, [30])
    keys = {layer["name"]: layer["key"] for layer in aep["layers"]}
    depth, transform = stored_raster(keys["max_depth"])
    east = transform @ (depth.shape[1] - 0.5, 0.5)  # the north-east cell's centre: dry in every pattern
    peak = expected["peak_depth_at"]
    points = [peak, {"x": east[0], "y": east[1]}, {"x": 0.0, "y": 0.0}]  # the last off the grid

    got = call(
        live_asgi.url,
        key,
        "get_design_study",
        {"project_id": study.project_id, "study_id": study.pk, "points": points},
    )

    assert not got.is_error, got.content[0].text
    answer = got.structured_content
    told = answer["results"]["aeps"][0]["figures"]
    assert_figures_equal(told, expected)
    assert told["peak_depth_m"] == pytest.approx(0.305) and told["flooded_area_m2"] > 0
    assert told["hazard_area_m2_by_class"]["H2"] == pytest.approx(told["flooded_area_m2"])  # the median of 1,2,3
    assert told["critical_durations"] == [
        {"duration_min": 30, "area_m2": pytest.approx(told["flooded_area_m2"]), "share_pct": pytest.approx(100.0)}
    ]
    (sampled,) = answer["sampled"]
    wet, dry, off = sampled["points"]
    assert sampled["aep"] == "1%"
    assert wet == {
        **peak,
        "peak_depth": pytest.approx(0.305),
        "peak_stage": pytest.approx(stored_raster(keys["max_stage"])[0][0, 0], abs=1e-4),
        "peak_speed": pytest.approx(stored_raster(keys["max_speed"])[0][0, 0], abs=1e-4),
        "max_hazard": 2,
        "critical_duration_min": 30,
    }
    assert dry["peak_depth"] == 0.0 and dry["max_hazard"] == 0 and dry["critical_duration_min"] is None
    assert set(off) == {"x", "y", *SAMPLED} and all(off[name] is None for name in SAMPLED)
    said = answer["say_to_user"]
    assert "1% AEP: peak depth 0.305 m" in said and "ha flooded (H2 " in said and "30 min 100%" in said
