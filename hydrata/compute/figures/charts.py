"""A PNG chart of a run's time series: depth (and discharge, when flow lines are asked for) against time, one line
per gauge, point or flow line, with axes, units and a legend. No Django."""

import io
from typing import Any

from hydrata.compute.figures.figure_text import plain, pyplot


def series_chart(series: list[dict[str, Any]], *, title: str) -> bytes:
    """`series` as the API returns them: gauges and points carry `depth`, flow lines `discharge`; each its `t`."""
    plt = pyplot()
    levels = [item for item in series if item.get("depth") is not None]
    flows = [item for item in series if item.get("discharge") is not None]
    panels = [(levels, "depth", "Depth (m)"), (flows, "discharge", "Discharge (m³/s)")]
    panels = [panel for panel in panels if panel[0]] or [([], "depth", "Depth (m)")]
    figure, axes_list = plt.subplots(len(panels), 1, figsize=(9, 3.6 * len(panels)), sharex=True, squeeze=False)
    for axes, (items, key, label) in zip(axes_list[:, 0], panels, strict=True):
        for item in items:
            axes.plot(item["t"], item[key], label=plain(f"{item['name']} ({item['kind'].replace('_', ' ')})"))
        axes.set_ylabel(label)
        axes.grid(True, alpha=0.3)
        if items:
            axes.legend(loc="best", fontsize="small")
        else:
            axes.text(0.5, 0.5, "no series", transform=axes.transAxes, ha="center", va="center")
    axes_list[-1, 0].set_xlabel("Time from the run's start (s)")
    axes_list[0, 0].set_title(plain(title))
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(figure)
    return buffer.getvalue()
