"""The price of a run: every triangle steps at the time step of the finest triangles, so a small fine region
prices the whole mesh at its resolution."""

import math
from decimal import Decimal

import pytest

from hydrata.compute.costs.pricing import (
    MPI_EXCHANGE_SECONDS_PER_STEP,
    MPI_IMBALANCE,
    NETWORK_LATENCY_SECONDS,
    SECONDS_PER_TRIANGLE_STEP,
    SERIAL_SECONDS_PER_TRIANGLE_STEP,
    parallel_overhead,
    vcpu_hours_estimate,
)
from tests.factories import make_grant
from tests.model_setup import PROJECTS, api, attach, small_test_model, upload_geojson

pytestmark = pytest.mark.django_db(transaction=True)

DAY = 86_400
FINE_SQUARE = {
    "type": "Feature",
    "id": "fine",
    "properties": {"resolution": 0.1, "resolution_units": "m"},
    "geometry": {
        "type": "Polygon",
        "coordinates": [
            [[251100, 6271900], [251104, 6271900], [251104, 6271904], [251100, 6271904], [251100, 6271900]]
        ],
    },
}


@pytest.fixture
def model_with_fine_region(live_asgi):
    _, key = make_grant(level="launch")
    model = small_test_model(live_asgi.url, key)
    collection = {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": "EPSG:28356"}},
        "features": [FINE_SQUARE],
    }
    with api(live_asgi.url, key) as http:
        assert attach(http, model, "mesh_region", upload_geojson(http, "fine.geojson", collection)).status_code == 200
    return key, model


def hours_at(triangles: int, finest_resolution: float) -> float:
    return SECONDS_PER_TRIANGLE_STEP * triangles * DAY / finest_resolution / 3600


def scenario(http, model, **fields) -> dict:
    response = http.post(
        f"{PROJECTS}{model.project_id}/scenarios/",
        json={"name": f"s{len(fields)}", "resolution": 1000, "duration": DAY, **fields},
    )
    assert response.status_code == 201, response.text
    return response.json()


def test_a_1000_m_scenario_with_a_0_1_m_region_is_priced_at_the_time_step_of_the_region(
    live_asgi, model_with_fine_region
):
    key, model = model_with_fine_region
    with api(live_asgi.url, key) as http:
        coarse = scenario(http, model, mesh_region=None)
        refined = scenario(http, model)

    assert refined["mesh_region"] == model.rows["mesh_region"] and coarse["mesh_region"] is None
    assert refined["vcpu_hours_estimate"] == pytest.approx(
        hours_at(refined["mesh_triangle_count_estimate"], 0.1), rel=0.01
    )
    assert coarse["vcpu_hours_estimate"] == pytest.approx(
        hours_at(coarse["mesh_triangle_count_estimate"], 1000), abs=1e-4
    )
    assert Decimal(refined["compute_cost_estimate"]) > 100 * Decimal(coarse["compute_cost_estimate"])  # $0.01 floor


def test_the_price_charged_at_start_follows_the_finest_region_too(live_asgi, model_with_fine_region, settings):
    key, model = model_with_fine_region
    with api(live_asgi.url, key) as http:
        refined = scenario(http, model)
        assert http.post(f"{PROJECTS}{model.project_id}/scenarios/{refined['id']}/build/").status_code == 202
        from config.celery import app

        app.conf.task_always_eager = False  # the simulation is queued, never run
        started = http.post(f"/api/v2/anuga/scenarios/{refined['id']}/run/")

    assert started.status_code == 202, started.text
    charged = Decimal(started.json()["compute_cost"])
    expected = Decimal(str(hours_at(started.json()["mesh_triangle_count"], 0.1))) * Decimal(
        str(settings.HYDRATA_COMPUTE_USD_PER_VCPU_HOUR)
    )
    assert abs(charged - expected) <= Decimal("0.01"), (charged, expected)
    assert charged > Decimal("1.00")


def test_a_run_on_two_ranks_is_charged_the_serial_price_plus_the_overhead_of_its_extra_rank(
    live_asgi, model_with_fine_region, settings
):
    settings.HYDRATA_MAX_RANKS = 2
    key, model = model_with_fine_region
    with api(live_asgi.url, key) as http:
        refined = scenario(http, model)
        assert http.post(f"{PROJECTS}{model.project_id}/scenarios/{refined['id']}/build/").status_code == 202
        from config.celery import app

        app.conf.task_always_eager = False  # the simulation is queued, never run
        started = http.post(f"/api/v2/anuga/scenarios/{refined['id']}/run/", json={"ranks": 2})

    assert started.status_code == 202, started.text
    triangles = started.json()["mesh_triangle_count"]
    overhead = parallel_overhead(ranks=2, serial_step_seconds=SERIAL_SECONDS_PER_TRIANGLE_STEP * triangles)
    expected = Decimal(str(hours_at(triangles, 0.1) * overhead)) * Decimal(
        str(settings.HYDRATA_COMPUTE_USD_PER_VCPU_HOUR)
    )
    assert abs(Decimal(started.json()["compute_cost"]) - expected) <= Decimal("0.01")


@pytest.mark.parametrize("ranks", [2, 16, 256])
def test_the_vcpu_hours_of_a_run_over_ranks_follow_the_measured_model_of_imbalance_exchange_and_latency(ranks):
    triangles = 100_000
    serial = vcpu_hours_estimate(triangles=triangles, duration=1000, finest_resolution=2)
    serial_step = SERIAL_SECONDS_PER_TRIANGLE_STEP * triangles
    depth = math.log2(ranks)
    messages = MPI_EXCHANGE_SECONDS_PER_STEP + NETWORK_LATENCY_SECONDS * (1 + depth)

    hours = vcpu_hours_estimate(triangles=triangles, duration=1000, finest_resolution=2, ranks=ranks)

    assert hours == pytest.approx(
        serial * (1 + MPI_IMBALANCE * math.sqrt(depth) + ranks * messages / serial_step), 1e-3
    )


def test_one_rank_costs_the_serial_work_and_each_doubling_of_ranks_costs_more():
    overheads = [parallel_overhead(ranks=n, serial_step_seconds=0.04) for n in (1, 2, 4, 8, 16)]

    assert overheads[0] == 1.0
    assert overheads == sorted(overheads) and len(set(overheads)) == len(overheads)


def test_a_small_mesh_pays_more_for_its_ranks_than_a_large_one():
    small = vcpu_hours_estimate(triangles=5_000, duration=1000, finest_resolution=2, ranks=8)
    large = vcpu_hours_estimate(triangles=500_000, duration=1000, finest_resolution=2, ranks=8)

    assert small / vcpu_hours_estimate(triangles=5_000, duration=1000, finest_resolution=2) > (
        large / vcpu_hours_estimate(triangles=500_000, duration=1000, finest_resolution=2)
    )
