"""The figures of a calibration study's report, as PNG bytes: each member's RMSE against the observations by its
index with the running best (how the search converged), and the Morris screen's mu* against sigma. No Django.

Drawn as compute/figures/report_figures.py draws a run report's charts (pyplot with math and TeX off, at its size and
resolution), and every string a person or an agent stored (a parameter's label names a polygon) goes through
`plain` before it is drawn."""

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hydrata.compute.figures.figure_text import plain, pyplot
from hydrata.compute.figures.report_figures import CHART_SIZE_INCHES, FIGURE_DPI

MORRIS_SIZE_INCHES = (6.0, 4.6)
LABELLED_POINTS = 12  # the most parameters named beside their point; the ranking table names them all


def _png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=FIGURE_DPI, bbox_inches="tight")
    pyplot().close(figure)
    return buffer.getvalue()


def running_best(objectives: Sequence[float | None]) -> list[float | None]:
    """The lowest objective up to and including each member (None until one gave an objective)."""
    best: float | None = None
    found: list[float | None] = []
    for value in objectives:
        if value is not None and (best is None or value < best):
            best = value
        found.append(best)
    return found


def convergence_chart(*, index: Sequence[int], objective: Sequence[float | None], best_line: bool) -> bytes:
    """Each member's RMSE (m) by its index (a member that gave none is left out) and, when `best_line`, the lowest
    RMSE found by then as a step."""
    plt = pyplot()
    from matplotlib.ticker import MaxNLocator

    figure, axes = plt.subplots(figsize=CHART_SIZE_INCHES)
    fitted = [(i, value) for i, value in zip(index, objective, strict=True) if value is not None]
    axes.plot(
        [i for i, _ in fitted], [value for _, value in fitted], "o", color="#1f77b4", markersize=4, label="member"
    )
    if best_line:
        steps = [(i, value) for i, value in zip(index, running_best(objective), strict=True) if value is not None]
        axes.step(
            [i for i, _ in steps],
            [value for _, value in steps],
            where="post",
            color="#d62728",
            linewidth=1.5,
            label="best so far",
        )
    axes.set_title("Each member's RMSE against the observations", fontsize=10)
    axes.set_xlabel("Member (in the order proposed)", fontsize=8)
    axes.set_ylabel("RMSE (m)", fontsize=8)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=7, loc="best")
    return _png(figure)


@dataclass(frozen=True)
class MorrisPoint:
    parameter: str
    mu_star: float
    sigma: float


def morris_chart(*, points: Sequence[MorrisPoint], x_label: str, y_label: str) -> bytes:
    """Each parameter's mu* against its sigma, named beside its point, with the sigma = mu* line: a parameter far
    right is influential, one above the line acts through interactions or non-linearly."""
    plt = pyplot()
    figure, axes = plt.subplots(figsize=MORRIS_SIZE_INCHES)
    axes.plot([p.mu_star for p in points], [p.sigma for p in points], "o", color="#1f77b4")
    for point in sorted(points, key=lambda p: -p.mu_star)[:LABELLED_POINTS]:
        axes.annotate(
            plain(point.parameter, limit=40),
            (point.mu_star, point.sigma),
            textcoords="offset points",
            xytext=(4, 4),
            fontsize=7,
        )
    top = max([p.mu_star for p in points] + [p.sigma for p in points] + [1e-9]) * 1.15
    axes.plot([0, top], [0, top], color="#555", linestyle="--", linewidth=1, label="σ = μ*")
    axes.set_xlim(0, top)
    axes.set_ylim(0, top)
    axes.set_title("Morris screen: μ* against σ", fontsize=10)
    axes.set_xlabel(plain(x_label, limit=120), fontsize=8)
    axes.set_ylabel(plain(y_label, limit=120), fontsize=8)
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=7, loc="upper left")
    return _png(figure)
