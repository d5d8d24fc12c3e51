"""The Morris elementary-effects screen (SALib): its design, whole trajectories of (k + 1) members over k
parameters on a grid of levels, and each output's analysis, mu* (the mean absolute effect: influence) and sigma
(its spread: interaction or non-linearity). A trajectory holding a member that failed is left out whole."""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from SALib.analyze import morris as analyse
from SALib.sample import morris as sample

from hydrata_contract.requests.calibration import CalibrationParameter

LEVELS = 4


def _problem(parameters: Sequence[CalibrationParameter]) -> dict:
    return {
        "num_vars": len(parameters),
        "names": [parameter.label for parameter in parameters],
        "bounds": [[parameter.low, parameter.high] for parameter in parameters],
    }


def trajectories_in(*, budget: int, parameters: int) -> int:
    return budget // (parameters + 1)


def design(*, parameters: Sequence[CalibrationParameter], trajectories: int, seed: int) -> list[tuple[float, ...]]:
    """Every member's values, trajectory after trajectory."""
    values = sample.sample(_problem(parameters), N=trajectories, num_levels=LEVELS, seed=seed)
    return [tuple(float(value) for value in row) for row in values]


@dataclass(frozen=True)
class Effect:
    parameter: str
    mu_star: float
    sigma: float
    mu_star_conf: float


def effects(
    *,
    parameters: Sequence[CalibrationParameter],
    values: Sequence[Sequence[float]],
    outputs: Sequence[float | None],
    seed: int,
) -> tuple[list[Effect], int] | None:
    """Each parameter's effect on one output (one value per member, None where the member gave none), ranked by mu*
    (highest first), and the trajectories used; None when fewer than two trajectories are whole."""
    k = len(parameters)
    x, y = np.asarray(values, dtype=float), np.asarray([np.nan if v is None else v for v in outputs], dtype=float)
    whole = [t for t in range(len(y) // (k + 1)) if np.isfinite(y[t * (k + 1) : (t + 1) * (k + 1)]).all()]
    if len(whole) < 2:
        return None
    rows = np.concatenate([np.arange(t * (k + 1), (t + 1) * (k + 1)) for t in whole])
    found = analyse.analyze(_problem(parameters), x[rows], y[rows], num_levels=LEVELS, seed=seed)
    ranked = [
        Effect(
            parameter=parameter.label,
            mu_star=float(found["mu_star"][index]),
            sigma=float(np.nan_to_num(found["sigma"][index])),
            mu_star_conf=float(np.nan_to_num(found["mu_star_conf"][index])),
        )
        for index, parameter in enumerate(parameters)
    ]
    return sorted(ranked, key=lambda effect: -effect.mu_star), len(whole)
