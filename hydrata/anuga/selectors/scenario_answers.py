"""A scenario's answers as the contract's models (hydrata_contract/answers/scenarios.py), built from the row as a
run's are (core.rows.from_row): the row's own fields by attribute, and only what is worked out named here."""

from django.contrib.auth.models import User

from hydrata.anuga.models import Run, Scenario
from hydrata.anuga.selectors.approvals import approval_summary, build_state
from hydrata.anuga.selectors.links import scenario_link
from hydrata.anuga.selectors.run_answers import built_run, run_compact
from hydrata.anuga.selectors.scenarios import computed_status, latest_run, scenario_estimate, scenario_forcing
from hydrata.core.rows import from_row
from hydrata_contract.answers.runs import RunCompact
from hydrata_contract.answers.scenarios import ScenarioBuild, ScenarioDetail, ScenarioPublic, ScenarioSummary

REFERENCES = ("terrain", *Scenario.INPUT_FIELDS)


def scenario_detail(*, scenario: Scenario, user: User) -> ScenarioDetail:
    """A member's view: the scenario in full, its latest run, its estimate, its forcing and its approval."""
    run = latest_run(scenario=scenario)
    state = build_state(scenario=scenario)
    return from_row(
        ScenarioDetail,
        scenario,
        project=scenario.project_id,
        **{name: getattr(scenario, f"{name}_id") for name in REFERENCES},
        computed_status=computed_status(run=run),
        latest_run=None if run is None else run_compact(run=run),
        latest_run_is_valid=state.current is not None,
        changed_since_build=state.changes,
        **scenario_estimate(scenario=scenario),
        currency="USD",
        forcing=scenario_forcing(scenario=scenario),
        approval=approval_summary(scenario=scenario, user=user),
        ui_url=scenario_link(scenario),
    )


def scenario_public(*, scenario: Scenario) -> ScenarioPublic:
    """What a non-member reading a public project sees: no inputs, no runs, no prices."""
    return from_row(
        ScenarioPublic,
        scenario,
        project=scenario.project_id,
        computed_status=computed_status(run=latest_run(scenario=scenario)),
        ui_url=scenario_link(scenario),
        reduced=True,
    )


def scenario_summary(*, scenario: Scenario, run: Run | None, latest: RunCompact | None) -> ScenarioSummary:
    """One entry of a page of scenarios: `run` is its latest run, `latest` that run as the reader may read it."""
    return from_row(
        ScenarioSummary,
        scenario,
        computed_status=computed_status(run=run),
        latest_run=latest,
        ui_url=scenario_link(scenario),
    )


def scenario_build(*, scenario: Scenario, run: Run) -> ScenarioBuild:
    """The run a build request made or found."""
    return ScenarioBuild(run=built_run(run=run), scenario=scenario.pk)
