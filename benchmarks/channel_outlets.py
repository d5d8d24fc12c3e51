"""A straight uniform channel (tests/hydrata/compute/channel.py: 400 m x 40 m, slope 0.002, Manning's n 0.03,
40 m3/s from a dry start) run by the simulation child with each outlet type in turn: how far the depth and speed
along the channel are from Manning's normal depth at the end of the run, what the flow line in the middle carries,
and where and when the headline peaks happened.

    .venv/bin/python benchmarks/channel_outlets.py [--outlets NormalDepth Transmissive Dirichlet] [--duration S]

A Dirichlet outlet is held at the outlet bed plus the normal depth (the best a fixed stage can do).
"""

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main() -> None:
    from tests.hydrata.compute import channel

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--outlets", nargs="+", default=["NormalDepth", "Transmissive", "Dirichlet"])
    parser.add_argument("--duration", type=int, default=900)
    options = parser.parse_args()
    print(
        f"normal depth {channel.NORMAL_DEPTH:.4f} m, normal speed {channel.NORMAL_SPEED:.4f} m/s, "
        f"inflow {channel.FLOW:g} m3/s\n"
    )
    for outlet in options.outlets:
        with tempfile.TemporaryDirectory(prefix=f"channel-{outlet}-") as workdir:
            package = channel.make_channel_package(Path(workdir) / "package", outlet=outlet, duration=options.duration)
            if outlet == "Dirichlet":
                held = channel.BED_AT_OUTLET + channel.NORMAL_DEPTH
                layer = package / "inputs" / "boundary.geojson"
                collection = json.loads(layer.read_text())
                collection["features"][1]["properties"]["stage"] = held
                layer.write_text(json.dumps(collection))
            run = channel.run_channel(package, Path(workdir) / "output")
        print(table(outlet, run, channel))


def table(outlet: str, run, channel) -> str:
    lines = [
        f"## {outlet} outlet",
        "",
        "| x (m) | depth (m) | vs normal | speed (m/s) | vs normal |",
        "|---|---|---|---|---|",
    ]
    for x in channel.GAUGE_X:
        gauge = run.gauge(x)
        depth, speed = gauge["depth"][-1], gauge["speed"][-1]
        lines.append(
            f"| {x:g} | {depth:.4f} | {depth / channel.NORMAL_DEPTH - 1:+.1%} | {speed:.4f} | "
            f"{speed / channel.NORMAL_SPEED - 1:+.1%} |"
        )
    statistics = run.statistics
    discharge = run.series["flow_lines"][0]["discharge"][-1]
    lines += [
        "",
        f"flow line at x = {channel.FLOW_LINE_X:g} m: {discharge:.3f} m3/s "
        f"({discharge / channel.FLOW - 1:+.2%} of the inflow); mass error "
        f"{statistics['mass_balance_error_pct']:.2g} %",
    ]
    for label, key in (("depth", "peak_depth_m"), ("speed", "peak_speed_m_s")):
        where = statistics[key.replace("_m_s", "").replace("_m", "") + "_at"]
        lines.append(
            f"peak {label} {statistics[key]:.3f} at x = {where['x'] - channel.X0:.1f} m, "
            f"y = {where['y'] - channel.Y0:.1f} m, t = {where['t']:.1f} s"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
