"""What a run will cost, shown before anything is spent.

ANUGA's work grows with triangles x time steps. It advances every triangle with one global time step, which
the smallest triangles set (the step shrinks with the triangle size), so CPU time is modelled as
SECONDS_PER_TRIANGLE_STEP x triangles x duration / the finest resolution of the mesh: a small fine region
makes every triangle of the mesh step at its rate. The constant is the slower of two measured runs on this
hardware (merewether: ~100k triangles, 1000 s at 2 m, ~9 min on 2 threads), so the price errs high rather
than low.

A run over N MPI ranks holds N x threads cores for its wall-clock time: vCPU-hours = ranks x threads x wall time.
Split perfectly, the wall time would shrink N-fold and the vCPU-hours stay the serial figure; each rank also
steps its ghost triangles and waits on the halo exchange and the global time-step reduction every step, which
the price counts as RANK_OVERHEAD of the serial work per extra rank (an allowance that errs high; TODO: replace
with the overhead measured on merewether, benchmarks/mpi_ranks.py, on an idle machine).
"""

from decimal import ROUND_UP, Decimal

SECONDS_PER_TRIANGLE_STEP = 2.2e-5
RANK_OVERHEAD = 0.1


def triangle_steps_estimate(*, triangles: int, duration: float, finest_resolution: float) -> float:
    """The work the price models: triangles x simulated seconds / the finest resolution (the step count grows
    with duration and shrinks with the smallest triangle)."""
    return triangles * duration / max(finest_resolution, 0.1)


def vcpu_hours_estimate(*, triangles: int, duration: float, finest_resolution: float, ranks: int = 1) -> float:
    steps = triangle_steps_estimate(triangles=triangles, duration=duration, finest_resolution=finest_resolution)
    return round(SECONDS_PER_TRIANGLE_STEP * steps * parallel_overhead(ranks=ranks) / 3600, 4)


def parallel_overhead(*, ranks: int) -> float:
    """The CPU time of a run over `ranks` MPI ranks, as a multiple of the serial run's."""
    return 1.0 + RANK_OVERHEAD * (max(ranks, 1) - 1)


def compute_cost_estimate(*, vcpu_hours: float, usd_per_vcpu_hour: float) -> Decimal:
    """The price in USD, rounded up to the cent and never below one cent."""
    rate = Decimal(str(usd_per_vcpu_hour))
    return max(Decimal("0.01"), (Decimal(str(vcpu_hours)) * rate).quantize(Decimal("0.01"), rounding=ROUND_UP))
