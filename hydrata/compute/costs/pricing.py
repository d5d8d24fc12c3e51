"""What a run will cost, shown before anything is spent.

ANUGA's work grows with triangles x time steps. It advances every triangle with one global time step, which
the smallest triangles set (the step shrinks with the triangle size), so CPU time is modelled as
SECONDS_PER_TRIANGLE_STEP x triangles x duration / the finest resolution of the mesh: a small fine region
makes every triangle of the mesh step at its rate. The constant is the slower of two measured runs on this
hardware (merewether: ~100k triangles, 1000 s at 2 m, ~9 min on 2 threads), so the price errs high rather
than low.

A run over N MPI ranks holds N x threads cores for its wall-clock time: vCPU-hours = ranks x threads x wall time.
Split perfectly, the wall time would shrink N-fold and the vCPU-hours stay the serial figure; each rank also
exchanges its halo with its neighbours and waits for the slowest rank in the global time-step reduction every
step. `parallel_overhead` prices that with benchmarks/mpi_ranks.py's model and the figures it measured on merewether
with ANUGA's own clocks, plus a network's latency that one machine cannot measure (TCP Ethernet's, which errs high
on InfiniBand or EFA). A small mesh over many ranks pays most: its compute per step is small beside the messages.
"""

import math
from decimal import ROUND_UP, Decimal

SECONDS_PER_TRIANGLE_STEP = 2.2e-5
# Measured on merewether (100,445 triangles) at 1 and 2 ranks, benchmarks/mpi_ranks.py, 2026-12-02:
SERIAL_SECONDS_PER_TRIANGLE_STEP = 0.414e-6  # one rank's compute, per triangle per ANUGA step (T1 / S / triangles)
MPI_EXCHANGE_SECONDS_PER_STEP = 131e-6  # a rank's halo exchange each step
MPI_IMBALANCE = 0.059  # the ranks' wait for the slowest each step, as a share of their compute, at 2 ranks
NETWORK_LATENCY_SECONDS = 20e-6  # per message over TCP Ethernet (an assumption; InfiniBand and EFA: 1-5 us)


def triangle_steps_estimate(*, triangles: int, duration: float, finest_resolution: float) -> float:
    """The work the price models: triangles x simulated seconds / the finest resolution (the step count grows
    with duration and shrinks with the smallest triangle)."""
    return triangles * duration / max(finest_resolution, 0.1)


def vcpu_hours_estimate(*, triangles: int, duration: float, finest_resolution: float, ranks: int = 1) -> float:
    steps = triangle_steps_estimate(triangles=triangles, duration=duration, finest_resolution=finest_resolution)
    overhead = parallel_overhead(ranks=ranks, serial_step_seconds=SERIAL_SECONDS_PER_TRIANGLE_STEP * max(triangles, 1))
    return round(SECONDS_PER_TRIANGLE_STEP * steps * overhead / 3600, 4)


def parallel_overhead(
    *,
    ranks: int,
    serial_step_seconds: float,
    exchange_seconds: float = MPI_EXCHANGE_SECONDS_PER_STEP,
    imbalance: float = MPI_IMBALANCE,
    latency_seconds: float = NETWORK_LATENCY_SECONDS,
) -> float:
    """N x T(N) / T1: the CPU time of a run over N ranks as a multiple of the serial run's, whose compute takes
    `serial_step_seconds` a step. Each rank computes T1 / N, stretched by waiting for the slowest rank (a spread
    that grows like sqrt(log2 N), the maximum of N similar draws), and every step pays its halo exchange and a
    network latency per message: one for the exchange, one per level of the reduction's tree."""
    if ranks <= 1:
        return 1.0
    depth = math.log2(ranks)
    communication = exchange_seconds + latency_seconds * (1 + depth)
    return 1.0 + imbalance * math.sqrt(depth) + ranks * communication / serial_step_seconds


def compute_cost_estimate(*, vcpu_hours: float, usd_per_vcpu_hour: float) -> Decimal:
    """The price in USD, rounded up to the cent and never below one cent."""
    rate = Decimal(str(usd_per_vcpu_hour))
    return max(Decimal("0.01"), (Decimal(str(vcpu_hours)) * rate).quantize(Decimal("0.01"), rounding=ROUND_UP))
