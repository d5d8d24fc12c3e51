"""What redaction costs per megabyte of a tool result, for the shapes that reach it, and the old regex beside it.

Prints a Markdown table of medians (milliseconds per MB); the goal is under 50 ms per MB. The quadratic regex the
linear search replaced is timed on 10 KB and 20 KB only (its cost quadruples when the size doubles: about an hour
on a megabyte).

    .venv/bin/python benchmarks/redaction.py [--repeat 7]
"""

import argparse
import base64
import json
import os
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hydrata_mcp.redaction import _redact_event, redact_result, redact_string  # noqa: E402

MEGABYTE = 1_000_000
LINK = (
    "http://127.0.0.1:8000/storage/download/runs/1/max_depth.tif?expires=1767225600&filename=run-1.tif&"
    "X-Hydrata-Signature=3f9a0c55e1b7d2a4c6e8f0a1b3c5d7e9f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1"
)
OLD_SIGNED_TOKEN = re.compile(
    r"[^\s\"'<>]*(?:X-Amz-Signature|X-Amz-Security-Token|X-Hydrata-Signature)[^\s\"'<>]*", re.IGNORECASE
)


def median_ms(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def tool_result(value: str) -> dict:
    """A tools/call result as the SDK writes it: the structured value and its JSON text copy."""
    structured = {"id": 1, "description": value}
    return {
        "content": [{"type": "text", "text": json.dumps(structured, indent=2)}],
        "structuredContent": structured,
        "isError": False,
    }


def shapes() -> dict[str, tuple[int, Callable[[], object]]]:
    """name -> (bytes handled, the work)."""
    no_whitespace = "A" * MEGABYTE
    log = "\n".join(f"12:00:{i % 60:02d} wrote max_depth.tif to {LINK} (3 MB)" for i in range(MEGABYTE // 120))
    words = " ".join(["flood", "depth", "model", "terrain"] * (MEGABYTE // 24))
    image = base64.b64encode(os.urandom(MEGABYTE * 3 // 4)).decode()
    image_result = {
        "content": [{"type": "text", "text": "{}"}, {"type": "image", "data": image, "mimeType": "image/png"}]
    }
    text_result = tool_result(no_whitespace)
    event = b"event: message\r\ndata: " + json.dumps({"jsonrpc": "2.0", "id": 1, "result": tool_result(log)}).encode()
    return {
        "string: 1 MB without whitespace, no link": (len(no_whitespace), lambda: redact_string(no_whitespace)),
        "string: 1 MB of prose, no link": (len(words), lambda: redact_string(words)),
        "string: 1 MB of log lines, a signed link in each": (len(log), lambda: redact_string(log)),
        "result: 1 MB value, structured + JSON text copy": (
            len(json.dumps(text_result)),
            lambda: redact_result(text_result),
        ),
        "result: 1 MB base64 image block": (len(image), lambda: redact_result(image_result)),
        "SSE event: 1 MB log in a result, parsed and rewritten": (len(event), lambda: _redact_event(event, set())),
    }


def old_regex_rows(repeat: int) -> list[tuple[str, float]]:
    rows = []
    for size in (10_000, 20_000):
        text = "A" * size
        seconds = median_ms(lambda t=text: OLD_SIGNED_TOKEN.sub("", t), max(1, repeat // 3)) / 1000
        rows.append((f"old regex: {size // 1000} KB without whitespace", seconds))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    print("| shape | size (MB) | median ms | ms per MB |")
    print("|---|---|---|---|")
    for name, (size, work) in shapes().items():
        elapsed = median_ms(work, args.repeat)
        print(f"| {name} | {size / MEGABYTE:.2f} | {elapsed:.1f} | {elapsed / (size / MEGABYTE):.1f} |")
    old = old_regex_rows(args.repeat)
    for name, seconds in old:
        print(f"| {name} | | {seconds * 1000:.0f} | |")
    growth = old[1][1] / old[0][1]
    hours = old[1][1] * (MEGABYTE / 20_000) ** 2 / 3600
    print(
        f"\nOld regex: doubling the size multiplied its time by {growth:.1f}; at that rate a megabyte takes about "
        f"{hours:.1f} hours."
    )


if __name__ == "__main__":
    main()
