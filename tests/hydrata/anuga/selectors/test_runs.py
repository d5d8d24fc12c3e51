"""A run's statistics column is read through its contract model, by one reader."""

import pytest

from hydrata.anuga.models import Run
from hydrata.anuga.selectors.runs import run_statistics
from tests.factories import make_finished_run, make_project, make_user


@pytest.mark.django_db
def test_a_runs_statistics_are_read_by_attribute_and_a_run_without_them_has_none():
    run = make_finished_run(make_project(make_user()))
    Run.objects.filter(pk=run.pk).update(statistics={"wet_area_m2": 300.0, "volume_balance": {"losses_m3": 0.5}})
    unfinished = Run.objects.create(scenario=run.scenario, resolution=10, duration=60)

    statistics = run_statistics(run=Run.objects.get(pk=run.pk))

    assert statistics is not None and statistics.wet_area_m2 == 300.0
    assert statistics.volume_balance is not None and statistics.volume_balance.losses_m3 == 0.5
    assert run_statistics(run=unfinished) is None
