"""merewether on MPI ranks against OpenMP threads: the simulation child at 1 rank x 1 thread, 1 rank x 2 threads and
2 ranks x 1 thread, interleaved, then a projection to 16-256 ranks from the measured communication cost per step.

merewether is read in place from the shared data folder (no open licence: never copied into the repository). Its
package is built once, in a temporary folder, the way the platform builds one (benchmarks/volume_balance.py), and
each configuration runs `python -m hydrata.compute.simulate` on it, under the mpich wheel's `mpiexec -n 2` for two
ranks, as the worker starts it. The order is 1x1, 1x2, 2x1, 1x1, 1x2, 2x1, ... so that the machine's noise falls
on every configuration alike. Run it on an idle machine: each configuration needs its cores to itself.

    .venv/bin/python benchmarks/mpi_ranks.py [--merewether PATH] [--repeats N] [--duration S] [--json]
    .venv/bin/python benchmarks/mpi_ranks.py --equality [--duration S]

The evolve time of a run is read from its progress.jsonl: the wall seconds from its first "computing" line to its
last (the mesh, forcing set-up and distribution, and the post-processing are not in it; the whole process's wall
time is shown beside it).

--equality runs 1 rank and 2 ranks once each and holds the 2-rank results to the issue's promise: max depth within
1 mm at every wet cell, every volume within 1e-6 relative, the hazard and inundation rasters equal (merewether has
no gauges or flow lines of its own; small_test's are compared in tests/hydrata/compute/test_ranks.py).

The projection's model (the lead fills in the measured figures from an idle run):
    T(N) = T1 / N + S x c(N),   c(N) = c2 x (1 + log2(N / 2))
where T1 is the 1 x 1 evolve time, S the number of internal steps, and c2 = (T(2) - T1 / 2) / S the communication
cost per step measured at 2 ranks: the time two ranks take beyond a perfect split, per step. Each step every rank
exchanges its ghost layer with its neighbours (a message whose size shrinks with the part's perimeter, roughly
constant per neighbour) and joins one global reduction of the time step, whose latency grows with log2 N. The
model takes the whole measured cost as that latency, which errs pessimistic for the halo's share.
"""

import argparse
import json
import math
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

MPIEXEC = Path(sys.executable).parent / "mpiexec"
CONFIGURATIONS = ((1, 1), (1, 2), (2, 1))  # (ranks, threads per rank)
PROJECTED_RANKS = (16, 32, 64, 128, 256)
WET_M = 0.01


@dataclass(frozen=True)
class Timing:
    ranks: int
    threads: int
    evolve_s: float
    process_s: float
    steps: int
    triangles: int


def simulate(package: Path, output: Path, *, ranks: int, threads: int) -> float:
    command = [sys.executable, "-m", "hydrata.compute.simulate", "--package", str(package), "--output", str(output)]
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
    )


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
    two = statistics.median(t.evolve_s for t in rounds if (t.ranks, t.threads) == (2, 1))
    steps = rounds[0].steps
    per_step = max(two - serial / 2, 0.0) / steps
    lines = [
        f"Communication cost per step at 2 ranks: c2 = ({two:.2f} - {serial:.2f} / 2) / {steps} steps = "
        f"{per_step * 1e3:.3f} ms.",
        "",
        "| ranks | triangles per rank | projected evolve s | speed-up on 1 x 1 | efficiency |",
        "|---|---|---|---|---|",
    ]
    for ranks in PROJECTED_RANKS:
        projected = serial / ranks + steps * per_step * (1 + math.log2(ranks / 2))
        lines.append(
            f"| {ranks} | {rounds[0].triangles // ranks:,} | {projected:.2f} | {serial / projected:.1f} | "
            f"{serial / projected / ranks:.0%} |"
        )
    return lines


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
    args = parser.parse_args()
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
