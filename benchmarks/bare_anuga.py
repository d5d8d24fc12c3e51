"""The least ANUGA can do with a built scenario package: the yardstick the platform's overhead is measured against.

Loads the package's mesh (with its boundary tags), sets elevation, friction, rainfall, inflows and boundaries with
the very functions the simulation child uses (hydrata.compute.package and hydrata.compute.forcing, so the physics
are identical), then evolves to the package's duration with the child's default yield step and nothing else: no
.sww file, no maxima operator, no progress file, no guard, no post-processing.

    .venv/bin/python benchmarks/bare_anuga.py PACKAGE_DIR [--threads N] [--yield-seconds S] [--json]

Prints the wall seconds of the evolve loop and of the whole script (from its first line, so the interpreter's own
start-up is not in it); with --json, one JSON object instead (what benchmarks/run_overhead.py reads).
"""

import time

SCRIPT_STARTED = time.perf_counter()

import argparse  # noqa: E402  (the clock starts before any import)
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere: hydrata is importable from the checkout
    sys.path.insert(0, str(ROOT))


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
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    options = parser.parse_args()
    threads = options.threads or int(os.environ.get("OMP_NUM_THREADS") or 1)
    # OpenMP reads this when its runtime starts, so it is set before anuga's extensions load (as the child does).
    os.environ["OMP_NUM_THREADS"] = str(threads)

    from hydrata.compute import forcing
    from hydrata.compute.package import load_package, sample_dem
    from hydrata.compute.simulate import default_yield_seconds

    package = load_package(options.package.resolve())
    duration = package.duration
    yield_seconds = options.yield_seconds or default_yield_seconds(duration)

    anuga = forcing.import_anuga()
    anuga.set_omp_num_threads(threads, verbose=False)
    domain = anuga.Domain(str(package.mesh_path))
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

    evolve_started = time.perf_counter()
    for _ in domain.evolve(yieldstep=yield_seconds, finaltime=duration):
        pass
    evolve_seconds = time.perf_counter() - evolve_started
    sim_seconds = float(domain.get_relative_time())
    script_seconds = time.perf_counter() - SCRIPT_STARTED

    report = {
        "triangles": int(domain.number_of_triangles),
        "threads": threads,
        "sim_seconds": sim_seconds,
        "yield_seconds": yield_seconds,
        "setup_seconds": round(evolve_started - SCRIPT_STARTED, 3),
        "evolve_wall_seconds": round(evolve_seconds, 3),
        "script_wall_seconds": round(script_seconds, 3),
        "sww_written": bool(domain.get_store()),
    }
    if options.json:
        print(json.dumps(report), flush=True)
        return
    print(f"package:                 {options.package}")
    print(f"triangles:               {report['triangles']}  (OpenMP threads {threads})")
    print(f"simulated:               {sim_seconds:g} s, yield every {yield_seconds:g} s")
    print(f"setup (imports, mesh, forcing): {report['setup_seconds']:8.2f} s")
    print(f"evolve wall:             {evolve_seconds:8.2f} s  ({sim_seconds / evolve_seconds:.2f} sim-s per wall-s)")
    print(f"script wall:             {script_seconds:8.2f} s")


if __name__ == "__main__":
    main()
