"""A design storm: the burst's depth spread over its pattern, less the losses (ARR 2019 Book 2, Chapter 5)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class DesignStorm:
    time_step_min: int
    rain_mm: tuple[float, ...]  # per time step, before losses
    excess_mm: tuple[float, ...]  # per time step, what the losses leave

    @property
    def rain_depth_mm(self) -> float:
        return sum(self.rain_mm)

    @property
    def excess_depth_mm(self) -> float:
        return sum(self.excess_mm)

    @property
    def peak_excess_mm_per_h(self) -> float:
        return max(self.excess_mm, default=0.0) * 60.0 / self.time_step_min

    def series_mm_per_interval(self) -> tuple[list[float], list[float]]:
        """The excess as the platform's rain series take it (compute/scenario/series_units.py, `mm/interval`): seconds
        from the burst's start, and the depth that fell in the step ending at each; the first row, 0, marks the
        start."""
        step_s = self.time_step_min * 60.0
        return [k * step_s for k in range(len(self.excess_mm) + 1)], [0.0, *self.excess_mm]


def burst_initial_loss(*, storm_initial_loss_mm: float, preburst_mm: float) -> float:
    """The storm's initial loss less the rain that fell before the burst, never below zero."""
    return max(0.0, storm_initial_loss_mm - preburst_mm)


def design_storm(
    *,
    depth_mm: float,
    areal_reduction_factor: float,
    climate_factor: float,
    increments_pct: tuple[float, ...],
    time_step_min: int,
    initial_loss_mm: float,
    continuing_loss_mm_h: float,
) -> DesignStorm:
    """The burst depth (IFD depth x ARF x climate factor) spread by the pattern's increments, then the initial loss
    taken from the first rain until it is used up, then the continuing loss from every step's rest, never below
    zero. Increments are scaled to sum to exactly 100 %, so the storm's total is the burst depth to rounding: the
    Data Hub publishes them to two decimals."""
    burst_mm = depth_mm * areal_reduction_factor * climate_factor
    scale = sum(increments_pct)
    rain = tuple(burst_mm * share / scale for share in increments_pct)
    continuing_per_step = continuing_loss_mm_h * time_step_min / 60.0
    initial_left = initial_loss_mm
    excess = []
    for step_rain in rain:
        taken = min(step_rain, initial_left)
        initial_left -= taken
        excess.append(max(0.0, step_rain - taken - continuing_per_step))
    return DesignStorm(time_step_min=time_step_min, rain_mm=rain, excess_mm=tuple(excess))
