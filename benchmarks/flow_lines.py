"""Flow lines: how close each reads to the water it should carry, against ANUGA's `Cross_section` (centroid momentum
times the length of line in each triangle, what the platform used before), and what reading the solver's edge
fluxes costs per step on a large mesh.

    .venv/bin/python benchmarks/flow_lines.py accuracy [--rain 200 --rain-duration 2400]
                                              # the cases of tests/hydrata/compute/simulation/test_flow_lines.py
    .venv/bin/python benchmarks/flow_lines.py cost [--cells 160] [--lines 3] [--steps 200]

`accuracy` builds each package with tests/hydrata/compute/channel.py and runs it in this process through
hydrata/compute/simulation/simulate.py's own build_model and evolve (the recorder the platform uses), reading
`domain.get_flow_through_cross_section` beside it at every yield. Errors are of the last yield's reading. Shallower
sheet flow shows the centroid method's error better: `--rain 20 --rain-duration 6000` (about 3 x longer).
`cost` times FlowLineVolumes.update on a wet rectangular_cross mesh of 4 x cells^2 triangles against the solver's
step (one OpenMP thread): within a run, then alone, best of several.
"""

import argparse
import sys
import tempfile
import time
import timeit
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def run_case(package_dir: Path, *, yield_seconds: float) -> tuple[dict, dict[str, float], float]:
    """The run's series, ANUGA's Cross_section reading of each line at the last yield, and the boundary outflow."""
    from hydrata.compute.scenario.package import load_package
    from hydrata.compute.simulation import simulate

    simulate.log = lambda message: None
    package = load_package(package_dir)
    output = package_dir.parent / "output"
    output.mkdir()
    model = simulate.build_model(package=package, output_dir=output, threads=1)
    lines = package.features("flow_line")
    centroid_method: dict[str, float] = {}
    record = model.series.record

    def record_both(domain, sim_time: float) -> None:
        record(domain, sim_time)
        for line in lines:
            try:
                reading = domain.get_flow_through_cross_section(line["geometry"]["coordinates"])
            except AssertionError:  # ANUGA finds no triangle under a line along the boundary
                reading = float("nan")
            centroid_method[line["properties"]["name"]] = float(reading)

    model.series.record = record_both  # type: ignore[method-assign]
    progress = simulate.Progress(path=output / "progress.jsonl", duration=package.duration)
    simulate.evolve(model, duration=package.duration, yield_seconds=yield_seconds, progress=progress)
    return model.series.as_json(), centroid_method, model.recorder.boundary.outflow_m3


def accuracy(*, rain_mm_per_hour: float, rain_duration: int) -> None:
    from tests.hydrata.compute import channel
    from tests.hydrata.compute import test_flow_lines as cases

    rain_rate = rain_mm_per_hour / 1000 / 3600
    with tempfile.TemporaryDirectory(prefix="flow-lines-") as workdir:
        rain_series, rain_old, _ = run_case(
            channel.make_channel_package(
                Path(workdir) / "rain" / "package",
                duration=rain_duration,
                flow=None,
                rain_mm_per_hour=rain_mm_per_hour,
                flow_lines=[
                    cases.across(cases.RAIN_LINE_X, "near the outlet"),
                    cases.across(channel.LENGTH, "along the outlet"),
                ],
            ),
            yield_seconds=60,
        )
        lines = [
            cases.across(200, "middle"),
            cases.across(200, "middle, drawn upstream", reverse=True),
            cases.across(channel.LENGTH, "along the outlet"),
            cases.across(cases.BESIDE_OUTLET_X, "beside the outlet"),
        ]
        channel_series, channel_old, boundary_out = run_case(
            channel.make_channel_package(Path(workdir) / "channel" / "package", flow_lines=lines), yield_seconds=20
        )

    def last(series: dict, name: str) -> float:
        return next(line for line in series["flow_lines"] if line["name"] == name)["discharge"][-1]

    outlet_rate = last(channel_series, "along the outlet")
    rows = [
        ("rain on a plane, line near the outlet vs i x A", rain_series, rain_old, "near the outlet",
         rain_rate * cases.RAIN_LINE_X * channel.WIDTH),
        ("rain on a plane, line along the outlet vs i x A", rain_series, rain_old, "along the outlet",
         rain_rate * channel.LENGTH * channel.WIDTH),
        ("channel, middle line vs the inflow", channel_series, channel_old, "middle", channel.FLOW),
        ("channel, line beside the outlet vs the boundary's outflow", channel_series, channel_old,
         "beside the outlet", outlet_rate),
        ("channel, middle drawn upstream vs minus the inflow", channel_series, channel_old,
         "middle, drawn upstream", -channel.FLOW),
    ]  # fmt: skip
    print(f"{'case':60} {'expected':>10} {'edge fluxes':>12} {'error':>8} {'centroids':>10} {'error':>8}")
    for label, series, old, name, expected in rows:
        new = last(series, name)
        print(
            f"{label:60} {expected:10.5f} {new:12.5f} {100 * (new / expected - 1):7.3f}% "
            f"{old[name]:10.5f} {100 * (old[name] / expected - 1):7.3f}%"
        )
    along = next(line for line in channel_series["flow_lines"] if line["name"] == "along the outlet")
    through_outlet = float(np.dot(along["discharge"][1:], np.diff(channel_series["t"])))
    print(
        f"channel, whole run: line along the outlet {through_outlet:.4f} m3, boundary outflow {boundary_out:.4f} m3 "
        f"(relative difference {abs(through_outlet / boundary_out - 1):.2e}); ANUGA's Cross_section along it "
        f"reads {channel_old['along the outlet']:.5f} m3/s at the end against {outlet_rate:.5f}"
    )


def cost(*, cells: int, lines: int, steps: int) -> None:
    from hydrata.compute.simulation.forcing import import_anuga
    from hydrata.compute.simulation.recording import FlowLineVolumes, cross_sections

    anuga = import_anuga()
    anuga.set_omp_num_threads(1, verbose=False)
    size = 10.0 * cells
    domain = anuga.rectangular_cross_domain(cells, cells, len1=size, len2=size)
    domain.set_quantity("elevation", lambda x, y: -0.002 * x)
    domain.set_quantity("stage", lambda x, y: -0.002 * x + 0.3 + 0.2 * (x < size / 2))
    domain.set_quantity("friction", 0.03)
    domain.set_store(False)  # no domain.sww in the working directory
    reflective = anuga.Reflective_boundary(domain)
    domain.set_boundary(dict.fromkeys(domain.get_boundary_tags(), reflective))
    started = time.perf_counter()
    features = [
        {
            "properties": {"name": f"x{index}"},
            "geometry": {"type": "LineString", "coordinates": [[x, 0.0], [x + 0.37 * size, size]]},
        }
        for index, x in enumerate(np.linspace(0.15, 0.55, lines) * size)
    ]
    flow_lines = cross_sections(domain, features)
    setup = time.perf_counter() - started
    volumes = FlowLineVolumes(domain, flow_lines)
    spent: list[float] = []

    class Timed(anuga.Operator):
        def __call__(self) -> None:
            before = time.perf_counter()
            volumes.update(domain, float(domain.timestep))
            spent.append(time.perf_counter() - before)

    Timed(domain)
    domain.set_evolve_max_timestep(0.5)
    started = time.perf_counter()
    for _ in domain.evolve(yieldstep=0.5 * steps, finaltime=0.5 * steps):
        pass
    wall = time.perf_counter() - started
    taken = len(spent)
    per_step, flow_per_step = 1000 * wall / taken, 1000 * float(np.sum(spent)) / taken
    edges = sum(len(line.slots) for line in flow_lines)
    print(
        f"{domain.number_of_triangles} triangles, {lines} flow lines over {edges} edges (chosen in {setup:.2f} s); "
        f"{taken} steps: {per_step:.1f} ms a step in all, of which the flow lines {flow_per_step:.3f} ms "
        f"({100 * flow_per_step / per_step:.2f} %, {1000 * flow_per_step / max(edges, 1):.2f} us an edge)"
    )
    # the same, timed alone and best of several (less at the mercy of other processes on the machine)
    update = min(timeit.repeat(lambda: volumes.update(domain, 0.1), number=50, repeat=5)) / 50
    step = min(timeit.repeat(lambda: domain.evolve_one_euler_step(1.0, 1e9), number=3, repeat=3)) / 3
    print(
        f"best of: the flow lines {1000 * update:.3f} ms, a solver Euler step {1000 * step:.1f} ms "
        f"({100 * update / step:.2f} %)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=["accuracy", "cost"])
    parser.add_argument("--cells", type=int, default=160, help="cost: cells a side (4 triangles each)")
    parser.add_argument("--lines", type=int, default=3)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rain", type=float, default=200.0, help="accuracy: mm/h on the plane")
    parser.add_argument("--rain-duration", type=int, default=2400, help="accuracy: seconds of rain (to equilibrium)")
    options = parser.parse_args()
    if options.what == "accuracy":
        accuracy(rain_mm_per_hour=options.rain, rain_duration=options.rain_duration)
    else:
        cost(cells=options.cells, lines=options.lines, steps=options.steps)


if __name__ == "__main__":
    main()
