"""Every parser of user files, timed on hostile input of the largest size its route accepts, as a ratio to an
honest input of the same size, in one run. A linear parser keeps every ratio near 1 (a hostile file may even be
cheaper: it is refused at its first rows); the backtracking losses pattern and the quadratic IFD duplicate check the
readers had before went over the 10 s CPU limit on their hostile files of this size.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/parsers.py [--scale 1.0] [--repeat 1] [--only GeoJSON]

Sizes: design inputs HYDRATA_ARR_FILE_MAX_BYTES (4 MiB), GeoJSON uploads HYDRATA_GEOJSON_MAX_BYTES (50 MB, read in
a Celery worker), a time series' body DATA_UPLOAD_MAX_MEMORY_SIZE (HYDRATA_TIME_SERIES_MAX_ROWS rows), an
observations import the features of HYDRATA_GEOJSON_MAX_FEATURES points. `--scale` shrinks them all for a quick
look; `--only` times just the parsers whose name contains it. The GeoJSON rows add the polygon whose edges GEOS
tests in the most pairs an upload may have (HYDRATA_GEOJSON_MAX_EDGE_TESTS, whatever the scale): the worst accepted.
The design inputs are timed in-process (the platform reads them in a child under limits, which adds a constant
quarter-second). Prints a Markdown table: milliseconds and the ratio to the honest input of that parser.
"""

import argparse
import contextlib
import json
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402
import numpy  # noqa: E402
import shapely  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402

from hydrata.compute.arr.reading import design_input_read  # noqa: E402
from hydrata.compute.errors import CodedError, GeoJSONRejected  # noqa: E402
from hydrata.compute.inputs.geojson import edge_tests_bound, geojson_inspect  # noqa: E402
from hydrata.compute.inputs.numbers import json_read  # noqa: E402
from hydrata.core.errors import ValidationFailed  # noqa: E402
from tests.hostile_files import DESIGN_INPUTS  # noqa: E402

Work = Callable[[], object]


def median_ms(work: Work, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        with contextlib.suppress(CodedError, GeoJSONRejected, ValidationFailed, ValueError):
            work()  # a refusal is an answer: what is timed is reaching it
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


# --- GeoJSON uploads ---------------------------------------------------------------------------------------------


def _collection(features: list[dict[str, Any]]) -> bytes:
    return json.dumps({"type": "FeatureCollection", "features": features}).encode()


def _points(count: int, note: int = 0) -> list[dict[str, Any]]:
    return [
        {
            "type": "Feature",
            "properties": {"level": 1.0 + i * 1e-4, "name": f"gauge {i}", "note": "n" * note},
            "geometry": {"type": "Point", "coordinates": [151.0 + (i % 1000) * 1e-4, -33.0 - (i // 1000) * 1e-4]},
        }
        for i in range(count)
    ]


def _polygon(ring: list[list[float]]) -> dict[str, Any]:
    return {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[*ring, ring[0]]]}}


def serpentine(strips: int) -> list[list[float]]:
    """A valid ring of parallel slanted strips: no edge crosses another, but every long edge's extent overlaps every
    other's, so GEOS tests them all in pairs."""
    ring = []
    for k in range(strips):
        low = -33.0 + 2 * k * 1e-7
        ring += [[151.0, low], [151.01, low + 0.01], [151.01, low + 0.01 + 1e-7], [151.0, low + 1e-7]]
    return [*ring, [150.999, ring[-1][1]], [150.999, -33.0]]


def serpentine_at_most(max_edge_tests: int) -> list[list[float]]:
    """The parallel strips with the most strips whose edge tests are within the limit (by bisection)."""
    fewest, most = 1, math.isqrt(max_edge_tests) + 1
    while fewest < most:
        strips = (fewest + most + 1) // 2
        if edge_tests_bound(numpy.asarray([shapely.Polygon(serpentine(strips))]))[0] <= max_edge_tests:
            fewest = strips
        else:
            most = strips - 1
    return serpentine(fewest)


def staircases(vertices: int, count: int = 1000) -> list[list[float]]:
    """Parallel staircases packed closely, each a run of edges heading one way: few pairs of runs, but each pair is
    searched edge by edge along its whole length."""
    steps = max(1, vertices // (2 * count))
    ring = []
    for k in range(count):
        stair = [
            [
                151.0 + 1e-4 * ((j + 1) // 2 + (j // 2) * 0.1 + k / (2 * count)),
                -33.0 + 1e-4 * (j // 2 + ((j + 1) // 2) * 0.1 - k / (2 * count)),
            ]
            for j in range(2 * steps + 1)
        ]
        ring += stair if k % 2 == 0 else stair[::-1]
    return [*ring, [ring[-1][0], -33.01]]


def _bands(vertices: int) -> dict[str, Any]:
    """A MultiPolygon of 25 annuli (50 rings) jittered at every vertex: its runs of edges share x ranges or y ranges
    with those of the rings around it, rarely both, so only an exact count tells it from a tangle."""
    per_ring = vertices // 50
    random = numpy.random.default_rng(45)
    turns = numpy.arange(per_ring) / per_ring * math.tau

    def ring(radius: float) -> list[list[float]]:
        scale = radius * 1e-4 * (1 + 3 * math.tau / per_ring * random.uniform(-1, 1, per_ring))
        points = numpy.column_stack([151.0 + scale * numpy.cos(turns), -33.0 + scale * numpy.sin(turns)]).tolist()
        return [*points, points[0]]

    return {"type": "MultiPolygon", "coordinates": [[ring(2 * k + 2), ring(2 * k + 1)] for k in range(25)]}


def geojson_shapes(size: int, max_features: int, max_edge_tests: int) -> dict[str, bytes]:
    per_point = len(_collection(_points(1000))) // 1000
    count = min(max_features, size // per_point)
    points = _points(count, note=max(0, size // count - per_point - 8))  # a note on each fills the file
    vertices = size // 45
    circle = [
        [151.0 + 0.01 * math.cos(i / vertices * math.tau), -33.0 + 0.01 * math.sin(i / vertices * math.tau)]
        for i in range(vertices)
    ]
    zigzag = [[151.0 + (i % 2) * 1e-3, -33.0 + (i // 2) * 1e-7 * (1 if i % 4 < 2 else -1)] for i in range(vertices)]
    return {
        "honest: points with three properties": _collection(points),
        "one polygon of every vertex (a circle)": _collection([_polygon(circle)]),
        "one polygon ring crossing itself at every vertex": _collection([_polygon(zigzag)]),
        "one polygon with the most edge tests accepted (parallel strips)": _collection(
            [_polygon(serpentine_at_most(max_edge_tests))]
        ),
        "one polygon of 1,000 parallel staircases": _collection([_polygon(staircases(vertices))]),
        "depth bands: 50 nested noisy rings in one feature, counted exactly": _collection(
            [{"type": "Feature", "properties": {}, "geometry": _bands(vertices)}]
        ),
        "points each with a distinct property name": _collection(
            [dict(point, properties={f"name {i}": i}) for i, point in enumerate(points)]
        ),
        "every feature bad": _collection([dict(point, type="Fature") for point in points]),
        "nesting 64 deep, then spaces": b'{"type": "FeatureCollection", "features": '
        + b"[" * 63
        + b"]" * 63
        + b" " * (size - 200)
        + b"}",
    }


# --- time series and observations ----------------------------------------------------------------------------------


def series_body(rows: list[dict[str, Any]]) -> str:
    return json.dumps({"name": "t", "series_type": "hyetograph", "units": "mm/hr", "data": {"rowData": rows}})


def time_series_shapes(max_rows: int) -> dict[str, str]:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    honest = [
        {"timestamp": (start + timedelta(minutes=i)).isoformat().replace("+00:00", "Z"), "value": 1.0}
        for i in range(max_rows)
    ]
    return {
        "honest: a row a minute": series_body(honest),
        "every row at one time": series_body([dict(honest[0])] * max_rows),
        "rows in reverse order": series_body(honest[::-1]),
        "100-character numbers as text": series_body([dict(row, value="1" * 100) for row in honest]),
    }


def time_series_read(body: str) -> object:
    from zoneinfo import ZoneInfo

    from hydrata.anuga.services.time_series import time_series_rows_parse

    return time_series_rows_parse(json_read(body)["data"], zone=ZoneInfo("UTC"))


def observation_shapes(count: int) -> dict[str, list[dict[str, Any]]]:
    points = _points(count)
    return {
        "honest: points with a level": points,
        "every level a 100-digit string": [dict(p, properties={"level": "9" * 100}) for p in points],
        "every feature a polygon": [dict(p, geometry={"type": "Polygon", "coordinates": []}) for p in points],
    }


def observations_read(features: list[dict[str, Any]]) -> object:
    from hydrata.observations.services.imports import _read

    return _read(features, value_property="level", tolerance_property=None)


def rows(scale: float, repeat: int, only: str) -> list[tuple[str, str, int, float]]:
    """(parser, input, bytes, ms)."""
    import hydrata.anuga.services.time_series
    import hydrata.observations.services.imports  # noqa: F401  # imported before the clock starts

    found = []
    arr_size = int(settings.HYDRATA_ARR_FILE_MAX_BYTES * scale)
    for kind, (honest, hostile) in DESIGN_INPUTS.items():
        if only.lower() not in f"design input: {kind}".lower():
            continue
        for name, build in {"honest": honest, **hostile}.items():
            text = build(arr_size)
            ms = median_ms(lambda text=text, kind=kind: design_input_read(kind=kind, text=text), repeat)
            found.append((f"design input: {kind}", name, len(text.encode()), ms))
    geojson_size = int(settings.HYDRATA_GEOJSON_MAX_BYTES * scale)
    max_features = int(settings.HYDRATA_GEOJSON_MAX_FEATURES * scale)
    max_edge_tests = settings.HYDRATA_GEOJSON_MAX_EDGE_TESTS
    if only.lower() in "geojson upload":
        for name, data in geojson_shapes(geojson_size, max_features, max_edge_tests).items():
            ms = median_ms(
                lambda data=data: geojson_inspect(data=data, max_features=max_features, max_edge_tests=max_edge_tests),
                repeat,
            )
            found.append(("GeoJSON upload", name, len(data), ms))
    if only.lower() in "time series body":
        for name, body in time_series_shapes(int(settings.HYDRATA_TIME_SERIES_MAX_ROWS * scale)).items():
            ms = median_ms(lambda body=body: time_series_read(body), repeat)
            found.append(("time series body", name, len(body.encode()), ms))
    if only.lower() in "observations import":
        for name, features in observation_shapes(max_features).items():
            ms = median_ms(lambda features=features: observations_read(features), repeat)
            found.append(("observations import", name, len(json.dumps(features)), ms))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="a fraction of each route's largest size")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", default="", help="time just the parsers whose name contains this, e.g. GeoJSON")
    options = parser.parse_args()
    measured = rows(options.scale, options.repeat, options.only)
    print("| parser | input | MB | ms | ratio to honest |")
    print("|---|---|---:|---:|---:|")
    honest: dict[str, float] = {}
    for parser_name, name, size, ms in measured:
        if name.startswith("honest"):
            honest[parser_name] = ms
        ratio = ms / honest[parser_name]
        print(f"| {parser_name} | {name} | {size / 1e6:.1f} | {ms:,.0f} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
