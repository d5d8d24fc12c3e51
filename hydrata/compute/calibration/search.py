"""The optimiser: optuna's TPE sampler, asked and told (optuna's ask-and-tell interface), so that members are
proposed as workers come free and a member that is still computing counts as pending (the constant liar), never
waited for. The search keeps no state of its own: each proposal rebuilds an in-memory optuna study from the members
so far, with a seed derived from the study's and their count, so the same members always propose the same next."""

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import optuna

from hydrata_contract.requests.calibration import CalibrationParameter

# TPE models the objective once this many members have been told (at most half the budget); before, it samples.
STARTUP_MEMBERS = 8


@dataclass(frozen=True)
class Told:
    """A member that has ended: its values and objective (None when it failed, or had nothing to compare)."""

    values: tuple[float, ...]
    objective: float | None


def propose(
    *,
    parameters: Sequence[CalibrationParameter],
    told: Sequence[Told],
    pending: Sequence[Sequence[float]],
    count: int,
    seed: int,
    budget: int,
) -> list[tuple[float, ...]]:
    """`count` members' values (one per parameter, within its range), given those told and those still pending."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    distributions: dict[str, optuna.distributions.BaseDistribution] = {
        _key(index): optuna.distributions.FloatDistribution(parameter.low, parameter.high)
        for index, parameter in enumerate(parameters)
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        sampler = optuna.samplers.TPESampler(
            seed=seed + len(told) + len(pending),
            n_startup_trials=max(1, min(STARTUP_MEMBERS, budget // 2)),
            multivariate=True,
            constant_liar=True,
        )
        study = optuna.create_study(sampler=sampler, direction="minimize")
        for member in told:
            state = optuna.trial.TrialState.FAIL if member.objective is None else optuna.trial.TrialState.COMPLETE
            study.add_trial(
                optuna.trial.create_trial(
                    params=_params(member.values),
                    distributions=distributions,
                    value=member.objective,
                    state=state,
                )
            )
        for values in pending:
            study.add_trial(
                optuna.trial.create_trial(
                    params=_params(values), distributions=distributions, state=optuna.trial.TrialState.RUNNING
                )
            )
        proposed = []
        for _ in range(count):
            trial = study.ask(distributions)
            proposed.append(tuple(float(trial.params[_key(index)]) for index in range(len(parameters))))
    return proposed


def _key(index: int) -> str:
    return f"p{index}"


def _params(values: Sequence[float]) -> dict[str, float]:
    return {_key(index): float(value) for index, value in enumerate(values)}
