"""The volume balance and the headline peaks of real runs through the simulation child, for small_test (from
tests/data) and merewether (from the shared data folder; no open licence, read in place and never copied here).

For each data set: a package is built in a temporary folder the way the platform builds one (the boundary ring
meshed at the data set's resolution, the DEM and layers in the project CRS), `python -m
hydrata.compute.simulation.simulate` runs it, and its statistics.json is read back. Prints, per data set, the triangles,
the wall time, every volume of the balance and the mass error as a percentage of what came in, where and when each
headline peak happened, and the model's health (verdict, time steps, limiting triangles, peak Courant number, spikes,
mass error).

    .venv/bin/python benchmarks/volume_balance.py [--only small_test|merewether] [--merewether PATH]
                                                  [--threads N] [--json] [--duration S]
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
SMALL_TEST = ROOT / "tests" / "data" / "small_test"
DEFAULT_MEREWETHER = ROOT.parent / "shared" / "data" / "merewether"
LAYER_KINDS = ("boundary", "friction", "inflow", "rainfall")


def build_package(source: Path, package: Path, duration: float | None = None) -> dict:
    """The package of the data set at `source` (its scenario.json and inputs/), written into `package`."""
    from hydrata.compute.simulation.mesh import mesh_build
    from hydrata.compute.spatial.geometry import boundary_ring, features_in_crs

    manifest = json.loads((source / "scenario.json").read_text())
    crs = str(manifest["epsg"])
    (package / "inputs").mkdir(parents=True)
    shutil.copy(source / "inputs" / str(manifest.get("elevation") or "dem.tif"), package / "inputs" / "dem.tif")
    files = {}
    for kind in LAYER_KINDS:
        relative = manifest.get(kind)
        if not relative or not (source / "inputs" / relative).is_file():
            files[kind] = None
            continue
        features = features_in_crs(json.loads((source / "inputs" / relative).read_text()), target_crs=crs)
        files[kind] = f"inputs/{kind}.geojson" if features else None
        if features:
            (package / files[kind]).write_text(
                json.dumps(
                    {
                        "type": "FeatureCollection",
                        "crs": {"type": "name", "properties": {"name": crs}},
                        "features": features,
                    }
                )
            )
    boundary = json.loads((package / files["boundary"]).read_text())["features"]
    ring = boundary_ring(boundary)
    mesh = mesh_build(
        ring=ring, regions=[], resolution=float(manifest["resolution"]), breaklines=[], destination=package / "mesh.msh"
    )
    (package / "scenario.json").write_text(
        json.dumps(
            {
                "format_version": "1.0",
                "run_id": 0,
                "scenario_id": 0,
                "project": 0,
                "epsg": crs,
                "name": manifest.get("name"),
                "description": "",
                "elevation": "inputs/dem.tif",
                **files,
                "structure": None,
                "mesh_region": None,
                "gauge": None,
                "flow_line": None,
                "time_series": {},
                "mesh": "mesh.msh",
                "mesh_triangle_count": mesh.triangle_count,
                "mesh_triangle_count_estimate": mesh.triangle_count,
                "boundary_tags": ring.boundary_tags(),
                "resolution": float(manifest["resolution"]),
                "duration": duration or manifest["duration"],
                "model_start": manifest.get("model_start"),
            },
            indent=2,
        )
    )
    return {"triangles": mesh.triangle_count, "duration": duration or manifest["duration"]}


def run_child(package: Path, output: Path, threads: int) -> tuple[dict, float]:
    started = time.perf_counter()
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "hydrata.compute.simulation.simulate",
            "--package",
            str(package),
            "--output",
            str(output),
            "--threads",
            str(threads),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(f"the simulation of {package} failed ({process.returncode}):\n{process.stderr[-3000:]}")
    return json.loads((output / "statistics.json").read_text()), wall


def report(name: str, statistics: dict, wall: float) -> str:
    balance = statistics["volume_balance"]
    lines = [
        f"## {name}: {statistics['triangles']} triangles, {statistics['sim_seconds']:g} s simulated, {wall:.1f} s wall",
        "",
        "| volume | m³ |",
        "|---|---|",
    ]
    for key in (
        "initial_m3",
        "rainfall_m3",
        "inflow_m3",
        "boundary_in_m3",
        "boundary_out_m3",
        "final_m3",
        "came_in_m3",
        "error_m3",
    ):
        lines.append(f"| {key.removesuffix('_m3')} | {balance[key]:.6g} |")
    lines += [
        "",
        f"mass error: {statistics['mass_balance_error_pct']:.3g} % of what came in "
        f"(warnings: {statistics['warnings'] or 'none'})",
        "",
        "| peak | value | x | y | t (s) |",
        "|---|---|---|---|---|",
    ]
    for label, key, units in (
        ("depth", "peak_depth", "m"),
        ("speed", "peak_speed", "m/s"),
        ("stage", "peak_stage", "m"),
    ):
        value = statistics[f"{key}_m" if key != "peak_speed" else "peak_speed_m_s"]
        where = statistics[f"{key}_at"] or {}
        lines.append(
            f"| {label} | {value:.3f} {units} | {where.get('x', 0):.1f} | {where.get('y', 0):.1f} | "
            f"{where.get('t') or 0:.1f} |"
        )
    lines += [
        "",
        "hazard area (m²): "
        + ", ".join(f"{cls} {area:,.0f}" for cls, area in statistics["hazard_area_m2_by_class"].items()),
        "",
        *health_lines(statistics.get("health")),
    ]
    return "\n".join(lines)


def health_lines(health: dict | None) -> list[str]:
    """The model's health (compute/simulation/health.py) as an engineer reads it."""
    if not health:
        return []
    step, limited, courant = health["timestep_s"], health["steps_limited_by"], health["peak_courant"] or {}
    mass, spikes = health["mass_error"], health["spikes"]
    return [
        f"health: {health['verdict']}" + "".join(f"\n  - {reason}" for reason in health["reasons"]),
        f"time step min / median / max: {step['min']:.4g} / {step['median']:.4g} / {step['max']:.4g} s over "
        f"{step['steps']} steps (Courant-limited {limited['courant']}, largest step {limited['maximum_step']}, "
        f"cut to a recording {limited['recording_time']})",
        f"peak Courant number {courant.get('value', 0):.3g} (CFL {health['cfl']:g}) at triangle "
        f"{courant.get('triangle')} ({courant.get('x', 0):.1f}, {courant.get('y', 0):.1f}), t {courant.get('t')} s",
        "limiting triangles: "
        + "; ".join(
            f"#{t['triangle']} ({t['x']:.1f}, {t['y']:.1f}) r {t['radius_m']:.3g} m, {100 * t['share']:.1f}% of steps"
            for t in health["limiting_triangles"]
        ),
        f"mass error: final {mass['final_pct']} %, largest |{mass['largest_abs_pct']}| % at t {mass['largest_at_t']} s",
        f"spikes: {spikes['speed_cells']} speed (> {spikes['speed_jump_threshold_m_s']:g} m/s, largest "
        f"{spikes['largest_speed_jump_m_s']:.3g}), {spikes['depth_cells']} depth "
        f"(> {spikes['depth_jump_threshold_m']:g} m, largest {spikes['largest_depth_jump_m']:.3g})",
        "",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("small_test", "merewether"))
    parser.add_argument("--merewether", type=Path, default=DEFAULT_MEREWETHER)
    parser.add_argument("--threads", type=int, default=1, help="OpenMP threads for the child (default 1)")
    parser.add_argument("--json", action="store_true", help="print the statistics as JSON instead")
    parser.add_argument("--duration", type=float, help="model seconds to simulate (default: the data set's)")
    options = parser.parse_args()
    sets = {"small_test": SMALL_TEST, "merewether": options.merewether}
    results = {}
    for name, source in sets.items():
        if options.only and name != options.only:
            continue
        with tempfile.TemporaryDirectory(prefix=f"balance-{name}-") as workdir:
            build_package(source, Path(workdir) / "package", options.duration)
            statistics, wall = run_child(Path(workdir) / "package", Path(workdir) / "output", options.threads)
        results[name] = statistics
        if not options.json:
            print(report(name, statistics, wall), flush=True)
    if options.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
