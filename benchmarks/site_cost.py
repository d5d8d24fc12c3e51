"""What the site as built costs the solver: 20 culverts (ANUGA's Boyd_box_operator, with the platform's recorder of
what each moves) and 10 weirs (riverwalls) on a mesh of about 100,000 triangles, against the same mesh without them.

    .venv/bin/python benchmarks/site_cost.py [--resolution 5] [--chunks 20] [--chunk-seconds 2] [--apart]
                                             [--anuga-leveling]

Builds one mesh with mesh_build (a 1000 m x 800 m plane sloping 1 % in x, the weir lines as breaklines, so both
domains have the very same triangles), two domains on it with water 0.5 m deep everywhere (so every culvert runs
and every weir is overtopped), then evolves them in turn, chunk by chunk (interleaved, so a busy machine slows
both alike), one OpenMP thread, counting the internal steps and the process CPU seconds of each. Prints the CPU
seconds per step of each and the extra the site costs, in one run. The issue's bar: at most 5 %.

With --apart, three more domains on the same mesh run interleaved with those two, to tell the costs apart: the
culverts alone, the culverts without the platform's recorder (so ANUGA's operators alone), and the weirs alone;
and, in the culverts-alone domain, the CPU seconds a step inside ANUGA's Boyd operators, inside the inlet leveling
within them (the platform's closed form, `hydrata.compute.simulation.inlet_level.level_by_volume`; with
--anuga-leveling, ANUGA's own bisection, `anuga.structures.inlet.level_stages_to_average`, as before the closed form)
and inside the platform's recorder, timed by wrappers around those calls (they change no result, and cost every domain
with culverts well under 0.1 ms a step).
"""

import argparse
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

X0, Y0 = 300_000.0, 6_200_000.0
LENGTH, WIDTH = 1000.0, 800.0
SLOPE, DEPTH = 0.01, 0.5


def ground(xy: np.ndarray) -> np.ndarray:
    return 10.0 + SLOPE * (LENGTH - (xy[:, 0] - X0))


def line(points: list[tuple[float, float]], **properties) -> dict:
    coordinates = [[X0 + x, Y0 + y] for x, y in points]
    return {"type": "Feature", "properties": properties, "geometry": {"type": "LineString", "coordinates": coordinates}}


def site() -> tuple[list[dict], list[dict]]:
    culverts = [
        line(
            [(100 + 200 * (k % 5), 100 + 150 * (k // 5)), (120 + 200 * (k % 5), 100 + 150 * (k // 5))],
            name=f"c{k}",
            shape="box",
            width=1.0,
            height=0.6,
        )
        for k in range(20)
    ]
    weirs = [line([(50 + 100 * k, 650), (50 + 100 * k, 750)], height=0.3) for k in range(10)]
    return culverts, weirs


def domain_on(
    mesh: Path, anuga, *, culverts: list[dict], weirs: list[dict], recorder: bool = True, anuga_leveling: bool = False
):
    from hydrata.compute.simulation.culverts import CulvertVolumes, add_culverts, culvert_recorder
    from hydrata.compute.simulation.weirs import add_weirs

    domain = anuga.Domain(str(mesh))
    domain.set_store(False)
    xy = domain.get_centroid_coordinates(absolute=True)
    domain.set_quantity("elevation", ground(xy), location="centroids")
    domain.set_quantity("friction", 0.03, location="centroids")
    domain.set_quantity("stage", ground(xy) + DEPTH, location="centroids")
    domain.set_boundary({tag: anuga.Reflective_boundary(domain) for tag in domain.get_boundary_tags()})
    add_weirs(domain, weirs, ground=ground, log=lambda _: None)
    built = add_culverts(domain, culverts, anuga=anuga, log=lambda _: None)
    if anuga_leveling:  # ANUGA's Inlet.set_average_depth again, with its bisection
        for _, operator in built:
            for inlet in operator.inlets:
                del inlet.set_average_depth
    if built and recorder:
        culvert_recorder(domain, CulvertVolumes(built), anuga=anuga)
    return domain


def time_the_parts(spent: dict[str, dict[str, float]], current: list[str], operator_classes: set[type]) -> None:
    """Wrap ANUGA's inlet leveling and the Boyd operators' and the recorder's calls so that each adds its CPU
    seconds to spent[the domain evolving now][its part]."""
    import anuga.structures.inlet as inlet

    import hydrata.compute.simulation.culverts as culverts

    def timed(call, part: str):
        def wrapper(*args, **kwargs):
            started = time.process_time()
            try:
                return call(*args, **kwargs)
            finally:
                spent[current[0]][part] += time.process_time() - started

        return wrapper

    inlet.level_stages_to_average = timed(inlet.level_stages_to_average, "leveling")
    culverts.level_by_volume = timed(culverts.level_by_volume, "leveling")
    for cls in operator_classes:
        part = "recorder" if cls.__name__ == "CulvertRecorder" else "operators" if "Boyd" in cls.__name__ else None
        if part:
            cls.__call__ = timed(cls.__call__, part)  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--resolution", type=float, default=5.0)
    parser.add_argument("--chunks", type=int, default=20)
    parser.add_argument("--chunk-seconds", type=float, default=2.0)
    parser.add_argument("--apart", action="store_true", help="also the culverts and the weirs alone")
    parser.add_argument(
        "--anuga-leveling", action="store_true", help="the culverts level their inlets by ANUGA's bisection"
    )
    options = parser.parse_args()

    from hydrata.compute.simulation.forcing import import_anuga
    from hydrata.compute.simulation.mesh import mesh_build
    from hydrata.compute.simulation.structures import site_breaklines
    from hydrata.compute.spatial.geometry import boundary_ring

    anuga = import_anuga()
    anuga.set_omp_num_threads(1, verbose=False)
    corners = [(0, 0), (LENGTH, 0), (LENGTH, WIDTH), (0, WIDTH)]
    ring = boundary_ring(
        [line([corners[k], corners[(k + 1) % 4]], boundary="Reflective", location="External") for k in range(4)]
    )
    culverts, weirs = site()
    bisect = options.anuga_leveling
    with tempfile.TemporaryDirectory() as directory:
        started = time.perf_counter()
        mesh = mesh_build(
            ring=ring,
            regions=[],
            resolution=options.resolution,
            breaklines=site_breaklines(breaklines=[], weirs=weirs),
            destination=Path(directory) / "mesh.msh",
        )
        with contextlib.redirect_stdout(io.StringIO()):
            domains = {
                "plain": domain_on(mesh.path, anuga, culverts=[], weirs=[]),
                "site": domain_on(mesh.path, anuga, culverts=culverts, weirs=weirs, anuga_leveling=bisect),
            }
            if options.apart:
                domains["culverts"] = domain_on(mesh.path, anuga, culverts=culverts, weirs=[], anuga_leveling=bisect)
                domains["boyd"] = domain_on(
                    mesh.path, anuga, culverts=culverts, weirs=[], recorder=False, anuga_leveling=bisect
                )
                domains["weirs"] = domain_on(mesh.path, anuga, culverts=[], weirs=weirs)
        print(f"mesh {mesh.triangle_count} triangles, set up in {time.perf_counter() - started:.1f} s")
    cpu = dict.fromkeys(domains, 0.0)
    steps = dict.fromkeys(domains, 0)
    spent = {name: {"operators": 0.0, "leveling": 0.0, "recorder": 0.0} for name in domains}
    current = ["plain"]
    if options.apart:
        classes = {type(op) for domain in domains.values() for op in domain.fractional_step_operators}
        time_the_parts(spent, current, classes)
    for chunk in range(1, options.chunks + 1):
        for name, domain in domains.items():
            current[0] = name
            before = time.process_time()
            with contextlib.redirect_stdout(io.StringIO()):
                for _ in domain.evolve(yieldstep=options.chunk_seconds, finaltime=chunk * options.chunk_seconds):
                    steps[name] += domain.number_of_steps
            cpu[name] += time.process_time() - before
    per_step = {name: cpu[name] / steps[name] for name in domains}
    for name in domains:
        print(f"{name:8s} {steps[name]:5d} steps, {cpu[name]:7.2f} CPU s, {1000 * per_step[name]:.2f} ms a step")
    extra = per_step["site"] / per_step["plain"] - 1
    print(f"20 culverts and 10 weirs add {100 * extra:+.2f} % to a step (bar: at most 5 %)")
    apart = {
        "culverts": "the 20 culverts with the recorder",
        "boyd": "the 20 culverts, ANUGA's operators alone",
        "weirs": "the 10 weirs",
    }
    for name, what in apart.items():
        if name in per_step:
            print(f"{what} add {100 * (per_step[name] / per_step['plain'] - 1):+.2f} % to a step")
    if options.apart:
        parts = {part: 1000 * seconds / steps["culverts"] for part, seconds in spent["culverts"].items()}
        plain = 1000 * per_step["plain"]
        print(
            f"a step of the culverts alone: ANUGA's Boyd operators {parts['operators']:.3f} ms "
            f"({100 * parts['operators'] / plain:.2f} % of a plain step), of which the inlet leveling "
            f"{parts['leveling']:.3f} ms ({100 * parts['leveling'] / plain:.2f} %); the platform's recorder "
            f"{parts['recorder']:.4f} ms ({100 * parts['recorder'] / plain:.3f} %)"
        )


if __name__ == "__main__":
    main()
