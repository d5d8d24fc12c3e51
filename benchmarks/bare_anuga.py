"""The least ANUGA can do with a built scenario package: the yardstick the platform's overhead is measured against.

Loads the package's mesh (with its boundary tags), sets elevation, friction, rainfall, inflows and boundaries with
the very functions the simulation child uses (hydrata.compute.scenario.package and hydrata.compute.simulation.forcing,
so the physics are identical), then evolves to the package's duration with the child's default yield step and nothing
else: no .sww file, no recorder of peaks, no gauges, no progress file, no guard, no post-processing.

    .venv/bin/python benchmarks/bare_anuga.py PACKAGE_DIR [--threads N] [--yield-seconds S] [--json]
                                              [--add recorder] [--add sww] [--add series]

Prints the wall and CPU seconds of the evolve loop, the internal steps it took (triangle-steps per second) and the
wall seconds of the whole script (from its first line, so the interpreter's own start-up is not in it); with
--json, one JSON object instead (what benchmarks/run_overhead.py reads).

--add puts back one of the simulation child's own costs, each exactly as the child sets it up: `recorder` the
per-step operator of peaks, hazard, inundation and boundary volumes; `sww` the .sww frames at the child's output
step (into a temporary folder); `series` the gauges and flow lines read at every yield. Comparing runs with and
without one (interleaved, --threads 1 for CPU seconds that contention does not inflate) is what that cost is.
"""

import time

SCRIPT_STARTED = time.perf_counter()

import argparse  # noqa: E402  (the clock starts before any import)
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere: hydrata is importable from the checkout
    sys.path.insert(0, str(ROOT))


COMPONENTS = ("recorder", "sww", "series")
THREAD_ENV_NAMES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")


def quiet(_message: str) -> None:
    """The forcing functions report what they set up; the bare run says nothing."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", type=Path, help="a built package directory (holds scenario.json and mesh.msh)")
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="OpenMP threads (default: OMP_NUM_THREADS, else 1, as the simulation child)",
    )
    parser.add_argument(
        "--yield-seconds",
        type=float,
        default=None,
        help="model seconds per evolve yield (default: the simulation child's default)",
    )
    parser.add_argument(
        "--duration", type=float, default=None, help="model seconds to run (default: the package's duration)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument(
        "--add", action="append", choices=COMPONENTS, default=[], help="one of the child's costs to put back"
    )
    options = parser.parse_args()
    threads = options.threads or int(os.environ.get("OMP_NUM_THREADS") or 1)
    # OpenMP (and the BLAS numpy may call) read these when their runtimes start, so they are set before anuga's
    # extensions load, as the worker sets them for the child.
    for name in THREAD_ENV_NAMES:
        os.environ[name] = str(threads)

    from hydrata.compute.scenario.package import load_package, sample_dem
    from hydrata.compute.simulation import forcing
    from hydrata.compute.simulation.simulate import add_recorders, default_yield_seconds, sww_output_step

    package = load_package(options.package.resolve())
    duration = options.duration or package.duration
    yield_seconds = options.yield_seconds or default_yield_seconds(package.duration)

    anuga = forcing.import_anuga()
    anuga.set_omp_num_threads(threads, verbose=False)
    domain = anuga.Domain(str(package.mesh_path))
    sww_dir = tempfile.TemporaryDirectory(prefix="bare-sww-")
    if "sww" in options.add:
        domain.set_datadir(sww_dir.name)
        domain.set_name("bare")
    else:
        domain.set_store(False)  # no .sww: store_timestep is never called and no file is opened
    xy = domain.get_centroid_coordinates(absolute=True)
    domain.set_quantity("elevation", sample_dem(package.dem_path, xy), location="centroids")
    domain.set_quantity("friction", forcing.friction_values(xy, package.features("friction")), location="centroids")
    domain.set_quantity("stage", expression="elevation", location="centroids")
    series, start = package.time_series(), package.model_start()
    forcing.add_rainfall(domain, package.features("rainfall"), xy=xy, series=series, start=start, log=quiet)
    inflows = forcing.add_inflows(domain, package.features("inflow"), series=series, start=start, log=quiet)
    ceiling = forcing.inlet_timestep_ceiling(inflows)  # the child's bound on the early time step, same physics
    if ceiling is not None:
        domain.set_evolve_max_timestep(ceiling)
    domain.set_boundary(
        forcing.boundary_map(
            domain, boundary_features=package.features("boundary"), log=quiet, series=series, start=start
        )
    )

    recorder = series = None
    if "recorder" in options.add or "series" in options.add:
        recorder, series = add_recorders(domain, package, log=quiet)
        if "recorder" not in options.add:  # the gauges and flow lines alone
            domain.fractional_step_operators.remove(recorder)
    output_step = sww_output_step(duration=duration, yield_seconds=yield_seconds)

    steps = 0
    evolve_started, cpu_started = time.perf_counter(), time.process_time()
    for _ in domain.evolve(yieldstep=yield_seconds, outputstep=output_step, finaltime=duration):
        steps += domain.number_of_steps  # ANUGA counts the internal steps of each yield, from 0 again after it
        if series is not None and "series" in options.add:
            series.record(domain, float(domain.get_relative_time()))
    evolve_seconds = time.perf_counter() - evolve_started
    cpu_seconds = time.process_time() - cpu_started
    sww_dir.cleanup()
    sim_seconds = float(domain.get_relative_time())
    script_seconds = time.perf_counter() - SCRIPT_STARTED

    report = {
        "triangles": int(domain.number_of_triangles),
        "threads": threads,
        "sim_seconds": sim_seconds,
        "yield_seconds": yield_seconds,
        "setup_seconds": round(evolve_started - SCRIPT_STARTED, 3),
        "evolve_wall_seconds": round(evolve_seconds, 3),
        "evolve_cpu_seconds": round(cpu_seconds, 3),
        "steps": steps,
        "triangle_steps_per_second": round(domain.number_of_triangles * steps / evolve_seconds),
        "script_wall_seconds": round(script_seconds, 3),
        "added": sorted(options.add),
    }
    if options.json:
        print(json.dumps(report), flush=True)
        return
    print(f"package:                 {options.package}")
    print(f"triangles:               {report['triangles']}  (OpenMP threads {threads})")
    print(f"simulated:               {sim_seconds:g} s, yield every {yield_seconds:g} s")
    print(f"setup (imports, mesh, forcing): {report['setup_seconds']:8.2f} s")
    print(f"with the child's:        {', '.join(report['added']) or 'nothing'}")
    print(f"evolve wall:             {evolve_seconds:8.2f} s  ({sim_seconds / evolve_seconds:.2f} sim-s per wall-s)")
    print(f"evolve CPU:              {cpu_seconds:8.2f} s")
    print(f"internal steps:          {steps}  ({report['triangle_steps_per_second']:,} triangle-steps per wall-s)")
    print(f"script wall:             {script_seconds:8.2f} s")


if __name__ == "__main__":
    main()
