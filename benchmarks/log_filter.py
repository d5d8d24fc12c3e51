"""What the log filter costs on the lines that are hardest for it, as a ratio to an ordinary line of the same size.

The filter (hydrata/core/logging.py) reads a message up to LOG_MESSAGE_MAX_CHARS. Each shape is timed at the cap
and at 15 KB (cut to the cap, as a logged request line is), and the pattern itself, uncut, at 15 KB and 150 KB:
linear means a pathological line costs about what an ordinary one does, and ten times the size ten times the
time. The JWT pattern it replaced is timed beside it on 15 KB (its cost quadrupled when the size doubled).

    .venv/bin/python benchmarks/log_filter.py [--repeat 7]
"""

import argparse
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hydrata.core.logging import LOG_MESSAGE_MAX_CHARS, SECRETS_IN_TEXT, redact  # noqa: E402

OLD_SECRETS_IN_TEXT = re.compile(
    r"(?P<name>X-Hydrata-Signature|X-Amz-Signature|X-Amz-Security-Token|X-Amz-Credential)=[^&\s\"']+"
    r"|(?P<key>hk_[A-Za-z0-9_-]{8,})"
    r"|(?P<jwt>eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)",
    re.IGNORECASE,
)


def shapes(size: int) -> dict[str, str]:
    """name -> a line of `size` characters."""
    ordinary = "GET /api/v2/anuga/projects/12/scenarios/?page=2&ordering=name HTTP/1.1 200 "
    return {
        "ordinary request lines": (ordinary * (size // len(ordinary) + 1))[:size],
        '"eyJ" repeated': ("eyJ" * size)[:size],
        '"eyJa." repeated': ("eyJa." * size)[:size],
        '"hk_" repeated': ("hk_" * size)[:size],
        '"hk_1234567 " repeated': ("hk_1234567 " * size)[:size],
        '"X-Amz-Signature=" repeated': ("X-Amz-Signature=" * size)[:size],
        "a signed link repeated": ("?X-Hydrata-Signature=abc&" * size)[:size],
    }


def median_ms(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=7)
    repeat = parser.parse_args().repeat
    columns = {
        f"redact, {LOG_MESSAGE_MAX_CHARS:,} chars": (LOG_MESSAGE_MAX_CHARS, redact),
        "redact, 15,000 chars": (15_000, redact),
        "pattern uncut, 15,000": (15_000, lambda line: SECRETS_IN_TEXT.sub("", line)),
        "pattern uncut, 150,000": (150_000, lambda line: SECRETS_IN_TEXT.sub("", line)),
        "old pattern, 15,000": (15_000, lambda line: OLD_SECRETS_IN_TEXT.sub("", line)),
    }
    timings: dict[str, dict[str, float]] = {}
    for column, (size, work) in columns.items():
        for name, line in shapes(size).items():
            timings.setdefault(name, {})[column] = median_ms(lambda line=line, work=work: work(line), repeat)
    print("| line | " + " | ".join(f"{column} (ms)" for column in columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for name, row in timings.items():
        print(f"| {name} | " + " | ".join(f"{row[column]:.3f}" for column in columns) + " |")
    ordinary = timings["ordinary request lines"]
    worst = {column: max(row[column] for row in timings.values()) for column in columns}
    print()
    for column in columns:
        print(f"{column}: worst line / ordinary line = {worst[column] / ordinary[column]:.1f}")


if __name__ == "__main__":
    main()
