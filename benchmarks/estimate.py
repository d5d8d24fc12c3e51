"""mesh_estimate against the real mesh mesh_build makes, for small_test and merewether at 1-10 m.

Each data set at each resolution twice: plain, and with one synthetic mesh region (the middle quarter of the
domain's bounding box, at half the resolution). Prints a Markdown table and exits 1 if any estimate is more
than 10% off. With --calibrate, builds the calibration set instead and fits the estimate's constants by least
squares on the relative error (the values in hydrata/compute/costs/estimate.py come from this).

    .venv/bin/python benchmarks/estimate.py [--merewether PATH] [--calibrate]
"""

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import shapely
import shapely.affinity
from shapely.geometry import mapping

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hydrata.compute import estimate as estimate_module  # noqa: E402
from hydrata.compute import mesh as mesh_module  # noqa: E402
from hydrata.compute.simulation.mesh import mesh_build  # noqa: E402
from hydrata.compute.spatial.geometry import BoundaryRing, boundary_ring, features_in_crs, mesh_regions  # noqa: E402

SMALL_TEST = ROOT / "tests" / "data" / "small_test"
MEREWETHER = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "merewether"
RESOLUTIONS = range(1, 11)
TOLERANCE_PERCENT = 10.0
MIN_FIT_TRIANGLES = 100
TERMS = ("area", "boundary", "transition", "short_edge")
CONSTANTS = ("TRIANGLES_PER_MAX_AREA", "BOUNDARY_TRIANGLES", "TRANSITION_TRIANGLES", "SHORT_EDGE_TRIANGLES")


def load_ring(folder: Path) -> BoundaryRing:
    scenario = json.loads((folder / "scenario.json").read_text())
    collection = json.loads((folder / "inputs" / scenario["boundary"]).read_text())
    return boundary_ring(features_in_crs(collection, target_crs=scenario["epsg"]))


def region_feature(polygon: shapely.Polygon, resolution: float, name: str = "synthetic") -> dict:
    return {
        "type": "Feature",
        "id": name,
        "geometry": mapping(polygon),
        "properties": {"resolution": resolution, "resolution_units": "m"},
    }


def middle_quarter(ring: BoundaryRing, resolution: float) -> list:
    """A region over the middle quarter of the domain's bounding box, at half the resolution."""
    x0, y0, x1, y1 = ring.polygon().bounds
    w, h = x1 - x0, y1 - y0
    box = shapely.box(x0 + w / 4, y0 + h / 4, x1 - w / 4, y1 - h / 4)
    return mesh_regions([region_feature(box, resolution / 2)], within=ring.polygon())


def measure(ring: BoundaryRing, regions: list, resolution: float, folder: Path) -> tuple[int, int, float]:
    estimate = estimate_module.mesh_estimate(ring=ring, regions=regions, resolution=resolution)
    started = time.perf_counter()
    built = mesh_build(
        ring=ring, regions=regions, resolution=resolution, breaklines=[], destination=folder / "mesh.msh"
    )
    return estimate.triangles, built.triangle_count, time.perf_counter() - started


def benchmark(merewether: Path) -> int:
    data_sets = [("small_test", SMALL_TEST)]
    if (merewether / "inputs" / "boundary.geojson").exists():
        data_sets.append(("merewether", merewether))
    else:
        print(f"merewether not found at {merewether}; skipped", file=sys.stderr)
    print("| data set | resolution (m) | region? | estimate | real triangles | error % | mesh seconds |")
    print("|---|---:|---|---:|---:|---:|---:|")
    worst = 0.0
    mesh_module._anuga()  # import it before the clock starts: the first import takes about 2 s
    with tempfile.TemporaryDirectory() as scratch:
        for name, folder in data_sets:
            ring = load_ring(folder)
            for resolution in RESOLUTIONS:
                for with_region in (False, True):
                    regions = middle_quarter(ring, resolution) if with_region else []
                    estimate, real, seconds = measure(ring, regions, resolution, Path(scratch))
                    error = (estimate - real) / real * 100
                    worst = max(worst, abs(error))
                    print(
                        f"| {name} | {resolution} | {'yes' if with_region else 'no'} | {estimate} | {real} | "
                        f"{error:+.1f} | {seconds:.2f} |",
                        flush=True,
                    )
    print(f"\nworst error {worst:.1f}% (limit {TOLERANCE_PERCENT:.0f}%)")
    return 0 if worst <= TOLERANCE_PERCENT else 1


# --- calibration -----------------------------------------------------------------------------------------------


def ring_of(points: list[tuple[float, float]], tags: tuple[str, ...] = ("Reflective", "Transmissive")) -> BoundaryRing:
    features = [
        {
            "type": "Feature",
            "geometry": {"type": "LineString", "coordinates": [points[i], points[(i + 1) % len(points)]]},
            "properties": {"boundary": tags[i % len(tags)], "location": "External"},
        }
        for i in range(len(points))
    ]
    return boundary_ring(features)


def densified(points: list[tuple[float, float]], spacing: float) -> list[tuple[float, float]]:
    out = []
    for i, a in enumerate(points):
        b = points[(i + 1) % len(points)]
        steps = max(1, round(math.dist(a, b) / spacing))
        out += [(a[0] + (b[0] - a[0]) * k / steps, a[1] + (b[1] - a[1]) * k / steps) for k in range(steps)]
    return out


def rectangle(width: float, height: float) -> list[tuple[float, float]]:
    return [(0.0, 0.0), (width, 0.0), (width, height), (0.0, height)]


def circle(radius: float, vertices: int) -> list[tuple[float, float]]:
    return [
        (radius * math.cos(2 * math.pi * k / vertices), radius * math.sin(2 * math.pi * k / vertices))
        for k in range(vertices)
    ]


def central(ring: BoundaryRing, fraction: float, resolution: float) -> list:
    x0, y0, x1, y1 = ring.polygon().bounds
    side = math.sqrt(fraction) / 2
    cx, cy, w, h = (x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0
    box = shapely.box(cx - side * w, cy - side * h, cx + side * w, cy + side * h)
    return mesh_regions([region_feature(box, resolution)], within=ring.polygon())


def calibration_cases(merewether: Path):
    """(label, ring, regions, resolution) for every mesh of the calibration set."""
    shapes = {
        f"rect {w}x{h}": ring_of(rectangle(w, h)) for w, h in ((20, 20), (50, 50), (100, 20), (200, 200), (400, 100))
    }
    shapes["circle r60 n64"] = ring_of(circle(60, 64))
    shapes["L 100"] = ring_of([(0, 0), (100, 0), (100, 40), (40, 40), (40, 100), (0, 100)])
    shapes["small_test"] = load_ring(SMALL_TEST)
    if (merewether / "inputs" / "boundary.geojson").exists():
        shapes["merewether"] = load_ring(merewether)
    for label, ring in shapes.items():
        for resolution in (1, 2, 3, 5, 7, 10):
            if 1.54 * ring.area / (resolution**2 / 2) <= 250_000:
                yield f"{label} plain", ring, [], resolution
    for label in ("rect 200x200", "small_test", "merewether"):
        if label not in shapes:
            continue
        ring = shapes[label]
        for fraction in (0.25, 1 / 16):
            for ratio in (2, 4, 10):
                for resolution in (2, 5, 10):
                    regions = central(ring, fraction, resolution / ratio)
                    count = 1.54 * (
                        ring.area / (resolution**2 / 2) + regions[0].polygon.area / regions[0].max_triangle_area
                    )
                    if count <= 400_000:
                        yield f"{label} region 1/{round(1 / fraction)} ratio {ratio}", ring, regions, resolution
    square = shapes["rect 200x200"]
    for resolution in (2, 5, 10):
        strip = shapely.box(120, -50, 300, 250)
        regions = mesh_regions([region_feature(strip, resolution / 2)], within=square.polygon())
        yield "rect 200x200 region clipped by the boundary", square, regions, resolution
        disc = shapely.affinity.translate(shapely.Polygon(circle(40, 64)), 100, 100)
        regions = mesh_regions([region_feature(disc, resolution / 2)], within=square.polygon())
        yield "rect 200x200 circular region n64", square, regions, resolution
        regions = central(square, 0.25, resolution / 2) + central(square, 1 / 16, resolution / 4)
        yield "rect 200x200 nested regions 1/2 and 1/4", square, regions, resolution
        yield "rect 200x200 coarser region 1/4 at 2x", square, central(square, 0.25, resolution * 2), resolution
        crossing = [
            region_feature(shapely.box(40, 40, 120, 120), resolution / 2, "a"),
            region_feature(shapely.box(90, 90, 170, 170), resolution / 3, "b"),
        ]
        yield "rect 200x200 crossing regions", square, mesh_regions(crossing, within=square.polygon()), resolution
    for resolution in (5, 8, 10):
        yield "circle r50 n100 (3.1 m spacing)", ring_of(circle(50, 100)), [], resolution
        for spacing in (1, 3):
            yield f"rect 100x100 {spacing} m vertices", ring_of(densified(rectangle(100, 100), spacing)), [], resolution


def calibrate(merewether: Path) -> int:
    rows, reals, labels = [], [], []
    with tempfile.TemporaryDirectory() as scratch:
        for label, ring, regions, resolution in calibration_cases(merewether):
            built = mesh_build(
                ring=ring, regions=regions, resolution=resolution, breaklines=[], destination=Path(scratch) / "mesh.msh"
            )
            terms = estimate_module.estimate_terms(ring=ring, regions=regions, resolution=resolution)
            rows.append([sum(zone[name] for zone in terms.values()) for name in TERMS])
            reals.append(built.triangle_count)
            labels.append(f"{label} @ {resolution} m")
    x, real = np.array(rows), np.array(reals, dtype=float)
    # Stage 1: triangles per maximum area from the big plain meshes, where the edge terms are below 0.5%.
    plain = [i for i, label in enumerate(labels) if "plain" in label and real[i] >= 100_000]
    per_area = float((real[plain] / x[plain, 0]).mean())
    # Stage 2: the three edge constants by least squares on the relative error of what the area term leaves,
    # over the meshes of 100 triangles or more (below that a mesh is a handful of triangles either way).
    fit = real >= MIN_FIT_TRIANGLES
    edges, *_ = np.linalg.lstsq(x[fit, 1:] / real[fit, None], 1 - per_area * x[fit, 0] / real[fit], rcond=None)
    fitted = np.array([per_area, *edges])
    current = np.array([getattr(estimate_module, name) for name in CONSTANTS])
    print(
        f"{len(real)} meshes; {len(plain)} plain ones of 100k+ triangles give the area constant; "
        f"{int(fit.sum())} of {MIN_FIT_TRIANGLES}+ triangles the edge constants"
    )
    for name, value, now in zip(CONSTANTS, fitted, current, strict=True):
        print(f"{name} = {value:.3f}   (in use: {now})")
    print("\n| mesh | real | error % (fitted) | error % (in use) |\n|---|---:|---:|---:|")
    for label, row, count in zip(labels, x, real, strict=True):
        print(
            f"| {label} | {int(count)} | {(row @ fitted - count) / count * 100:+.1f} | "
            f"{(row @ current - count) / count * 100:+.1f} |"
        )
    for label, errors in (("fitted", x @ fitted), ("in use", x @ current)):
        worst = np.abs((errors[fit] - real[fit]) / real[fit]).max() * 100
        print(f"worst error, constants {label}, meshes of {MIN_FIT_TRIANGLES}+ triangles: {worst:.1f}%")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--merewether", type=Path, default=MEREWETHER, help="the merewether data folder")
    parser.add_argument("--calibrate", action="store_true", help="fit the estimate's constants instead")
    args = parser.parse_args()
    return calibrate(args.merewether) if args.calibrate else benchmark(args.merewether)


if __name__ == "__main__":
    sys.exit(main())
