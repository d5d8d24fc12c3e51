"""merewether on MPI ranks against OpenMP threads: the simulation child at 1 rank x 1 thread, 1 rank x 2 threads and
2 ranks x 1 thread, interleaved, then a projection to 16-256 ranks from the measured communication cost per step.

merewether is read in place from the shared data folder (no open licence: never copied into the repository). Its
package is built once, in a temporary folder, the way the platform builds one (benchmarks/volume_balance.py), and
each configuration runs `python -m hydrata.compute.simulation.simulate` on it, under the mpich wheel's `mpiexec -n 2`
for two ranks, as the worker starts it. The order is 1x1, 1x2, 2x1, 1x1, 1x2, 2x1, ... so that the machine's noise falls
on every configuration alike. Run it on an idle machine: each configuration needs its cores to itself.

    .venv/bin/python benchmarks/mpi_ranks.py [--merewether PATH] [--repeats N] [--duration S] [--json]
    .venv/bin/python benchmarks/mpi_ranks.py --equality [--duration S]

The evolve time of a run is read from its progress.jsonl: the wall seconds from its first "computing" line to its
last (the mesh, forcing set-up and distribution, and the post-processing are not in it; the whole process's wall
time is shown beside it).

--equality runs 1 rank and 2 ranks once each and holds the 2-rank results to the issue's promise: max depth within
1 mm at every wet cell, every volume within 1e-6 relative, the hazard and inundation rasters equal (merewether has
no gauges or flow lines of its own; small_test's are compared in tests/hydrata/compute/simulation/test_ranks.py).

The projection's model rests on ANUGA's own clocks: a parallel run logs, per rank, the wall seconds of its ghost
exchange and of its wait in each step's global reduction of the time step (`load_balance_statistics`,
hydrata/compute/simulation/simulate.py's "Parallel balance" line in run.log). At 2 ranks, per step:
    x2 = the ranks' median exchange time / S   (the halo messages to the neighbouring part)
    w2 = the ranks' mean reduction wait / their mean compute time   (imbalance: every step waits for the slowest
         rank; a shared-memory reduction itself takes about a microsecond, so the wait is the ranks' spread)
and at N ranks (hydrata/compute/costs/pricing.py's parallel_overhead, which prices a run with these figures)
    T(N) = T1 / N x (1 + w2 x sqrt(log2 N)) + S x x2 + S x L x (1 + log2 N)
T1 is the 1 x 1 evolve time and S the number of steps (ANUGA's step is global: S does not change with N). The
slowest of N ranks' step times exceeds their mean by a spread that grows like sqrt(log N) (the maximum of N
similar draws), hence the imbalance term. A part's halo shrinks with its perimeter while its neighbours stay about
as many, so x2 is held constant: pessimistic. L is a network's latency per message, paid by the exchange and by
each level of the reduction's tree, which one machine cannot measure: the table shows L = 0 (shared memory, as
here) and L = 20 us (a typical MPI latency over TCP Ethernet; InfiniBand and EFA are 1-5 us). Caches favour
smaller parts (2 ranks can run faster than half of 1 rank), which the model ignores: also pessimistic.

    .venv/bin/python benchmarks/mpi_ranks.py --rounds FILE   # the tables again from a run's --json rounds
"""

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.volume_balance import DEFAULT_MEREWETHER, build_package  # noqa: E402
from hydrata.compute.costs.pricing import parallel_overhead  # noqa: E402
from hydrata.compute.simulation.simulate import PARALLEL_BALANCE  # noqa: E402

MPIEXEC = Path(sys.executable).parent / "mpiexec"
CONFIGURATIONS = ((1, 1), (1, 2), (2, 1))  # (ranks, threads per rank)
PROJECTED_RANKS = (16, 32, 64, 128, 256)
NETWORK_LATENCIES_S = (0.0, 20e-6)
WET_M = 0.01


@dataclass(frozen=True)
class Timing:
    ranks: int
    threads: int
    evolve_s: float
    process_s: float
    steps: int
    triangles: int
    exchange_s: tuple[float, ...] = ()  # per rank, ANUGA's own clocks (parallel runs only)
    reduce_wait_s: tuple[float, ...] = ()


def simulate(package: Path, output: Path, *, ranks: int, threads: int) -> float:
    command = [
        sys.executable,
        "-m",
        "hydrata.compute.simulation.simulate",
        "--package",
        str(package),
        "--output",
        str(output),
    ]
    command += ["--threads", str(threads)]
    if ranks > 1:
        command = [str(MPIEXEC), "-n", str(ranks), *command]
    started = time.perf_counter()
    finished = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if finished.returncode != 0:
        raise SystemExit(
            f"{ranks} x {threads} failed ({finished.returncode}):\n{(finished.stdout + finished.stderr)[-3000:]}"
        )
    return wall


def evolve_seconds(output: Path) -> float:
    lines = [json.loads(line) for line in (output / "progress.jsonl").read_text().splitlines()]
    computing = [line["wall_seconds"] for line in lines if line.get("phase") == "computing"]
    return computing[-1] - computing[0]


def timed(package: Path, scratch: Path, *, ranks: int, threads: int) -> Timing:
    output = scratch / f"out-{ranks}x{threads}"
    shutil.rmtree(output, ignore_errors=True)
    process_s = simulate(package, output, ranks=ranks, threads=threads)
    figures = json.loads((output / "statistics.json").read_text())
    return Timing(
        ranks=ranks,
        threads=threads,
        evolve_s=evolve_seconds(output),
        process_s=process_s,
        steps=int(figures["health"]["timestep_s"]["steps"]),
        triangles=int(figures["triangles"]),
        **parallel_balance(output),
    )


def parallel_balance(output: Path) -> dict[str, tuple[float, ...]]:
    """The ranks' exchange and reduction-wait seconds from run.log's "Parallel balance" line (none when serial)."""
    for line in (output / "run.log").read_text(errors="replace").splitlines():
        _, found, figures = line.partition(PARALLEL_BALANCE)
        if found:
            balance = json.loads(figures)
            return {
                "exchange_s": tuple(balance["comm_time"]),
                "reduce_wait_s": tuple(balance["reduce_wait_time"]),
            }
    return {}


def speed_table(rounds: list[Timing]) -> list[str]:
    baseline = statistics.median(t.evolve_s for t in rounds if (t.ranks, t.threads) == (1, 1))
    lines = [
        "| ranks x threads | evolve s (median) | range | process s (median) | speed-up on 1 x 1 | every round |",
        "|---|---|---|---|---|---|",
    ]
    for ranks, threads in CONFIGURATIONS:
        mine = [t for t in rounds if (t.ranks, t.threads) == (ranks, threads)]
        evolve = [t.evolve_s for t in mine]
        median = statistics.median(evolve)
        lines.append(
            f"| {ranks} x {threads} | {median:.1f} | {min(evolve):.1f}-{max(evolve):.1f} | "
            f"{statistics.median(t.process_s for t in mine):.1f} | {baseline / median:.2f} | "
            f"{', '.join(f'{value:.1f}' for value in evolve)} |"
        )
    return lines


def projection(rounds: list[Timing]) -> list[str]:
    serial = statistics.median(t.evolve_s for t in rounds if (t.ranks, t.threads) == (1, 1))
    two = [t for t in rounds if (t.ranks, t.threads) == (2, 1) and t.exchange_s]
    if not two:
        return ["No 2-rank round logged ANUGA's balance: no projection."]
    steps = rounds[0].steps
    exchange = statistics.median(statistics.median(t.exchange_s) for t in two) / steps
    imbalance = statistics.median(_imbalance(t) for t in two)
    lines = [
        f"At 2 ranks ({steps} steps), from ANUGA's clocks: exchange x2 = {exchange * 1e6:.0f} us a step, "
        f"imbalance w2 = {imbalance:.1%} of compute; serial compute T1 / S = {serial / steps * 1e3:.2f} ms a step.",
        "",
        "| ranks | triangles per rank | evolve s, L = 0 | speed-up | efficiency "
        "| evolve s, L = 20 us | speed-up | efficiency |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for ranks in PROJECTED_RANKS:
        row = [f"{ranks}", f"{rounds[0].triangles // ranks:,}"]
        for latency in NETWORK_LATENCIES_S:
            projected = projected_evolve(
                serial=serial, steps=steps, ranks=ranks, exchange=exchange, imbalance=imbalance, latency=latency
            )
            row += [f"{projected:.2f}", f"{serial / projected:.1f}", f"{serial / projected / ranks:.0%}"]
        lines.append(f"| {' | '.join(row)} |")
    return lines


def _imbalance(timing: Timing) -> float:
    """The ranks' mean wait in the step's reduction over their mean time computing."""
    waits = statistics.mean(timing.reduce_wait_s)
    computing = timing.evolve_s - statistics.mean(timing.exchange_s) - waits
    return waits / computing


def projected_evolve(
    *, serial: float, steps: int, ranks: int, exchange: float, imbalance: float, latency: float
) -> float:
    overhead = parallel_overhead(
        ranks=ranks,
        serial_step_seconds=serial / steps,
        exchange_seconds=exchange,
        imbalance=imbalance,
        latency_seconds=latency,
    )
    return serial / ranks * overhead


def equality(package: Path, scratch: Path) -> int:
    outputs = {}
    for ranks in (1, 2):
        outputs[ranks] = scratch / f"equality-{ranks}"
        simulate(package, outputs[ranks], ranks=ranks, threads=1)
    failures = []
    serial, parallel = raster(outputs[1], "max_depth.tif"), raster(outputs[2], "max_depth.tif")
    wet = (serial >= WET_M) | (parallel >= WET_M)
    worst = float(np.abs(serial[wet] - parallel[wet]).max()) if wet.any() else 0.0
    print(f"max depth: {int(wet.sum())} wet cells, largest difference {worst * 1000:.4f} mm")
    if worst > 1e-3:
        failures.append("max depth")
    for name in ("max_hazard.tif", "time_of_inundation.tif", "duration_of_inundation.tif"):
        same = np.array_equal(raster(outputs[1], name), raster(outputs[2], name), equal_nan=True)
        print(f"{name}: {'equal' if same else 'DIFFERENT'}")
        if not same:
            failures.append(name)
    one, two = (json.loads((outputs[n] / "statistics.json").read_text())["volume_balance"] for n in (1, 2))
    for key, value in one.items():
        if key.endswith("_m3") and key != "error_m3":
            relative = abs(two[key] - value) / max(abs(value), 1e-9)
            print(f"{key}: {value:.9g} and {two[key]:.9g}, relative difference {relative:.2e}")
            if relative > 1e-6 and abs(two[key] - value) > 1e-9:
                failures.append(key)
    print("equal within the issue's tolerances" if not failures else f"NOT equal: {', '.join(failures)}")
    return 1 if failures else 0


def raster(output: Path, name: str) -> np.ndarray:
    import rasterio

    with rasterio.open(output / name) as source:
        return source.read(1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--merewether", type=Path, default=DEFAULT_MEREWETHER)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--duration", type=float, default=None, help="simulated seconds (default: the data set's)")
    parser.add_argument("--equality", action="store_true", help="compare 2 ranks with 1 instead of timing")
    parser.add_argument("--json", action="store_true", help="print every round as JSON too")
    parser.add_argument("--rounds", type=Path, help="print the tables from a run's --json rounds instead")
    args = parser.parse_args()
    if args.rounds:
        saved = [
            Timing(
                **{
                    **row,
                    "exchange_s": tuple(row.get("exchange_s", ())),
                    "reduce_wait_s": tuple(row.get("reduce_wait_s", ())),
                }
            )
            for row in json.loads(args.rounds.read_text())
        ]
        print("\n".join([*speed_table(saved), "", *projection(saved)]))
        return 0
    if not (args.merewether / "scenario.json").exists():
        raise SystemExit(f"merewether not found at {args.merewether}")
    with tempfile.TemporaryDirectory(prefix="mpi-ranks-") as folder:
        scratch = Path(folder)
        built = build_package(args.merewether, scratch / "package", duration=args.duration)
        print(f"merewether: {built['triangles']:,} triangles, {built['duration']:g} s simulated")
        if args.equality:
            return equality(scratch / "package", scratch)
        rounds = [
            timed(scratch / "package", scratch, ranks=ranks, threads=threads)
            for _ in range(args.repeats)
            for ranks, threads in CONFIGURATIONS
        ]
    print("\n".join(["", *speed_table(rounds), "", *projection(rounds)]))
    if args.json:
        print(json.dumps([t.__dict__ for t in rounds], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
