"""`make mutants`: edits that break a promise of README.md or a docs/ page (docs/security-model.md above all), which the
tests must catch.

Each mutant in scripts/mutants.toml is applied to a fresh copy of the tree (the files git knows, as they are in
the working tree, and new files it does not ignore), and only the tests of its area run there, with -x. The
mutant is killed when they fail. First, the same tests run once on an unmutated copy: they must pass there, or
a kill would prove nothing. Run from anywhere:

    python scripts/mutants.py                 # every mutant
    python scripts/mutants.py NAME [NAME ...] # some of them
    python scripts/mutants.py --list          # names, promises, and whether each edit still applies
    python scripts/mutants.py --share 3/8     # every eighth mutant, starting from the fourth
    python scripts/mutants.py --share auto/8  # the eighth this commit's turn picks (CI rotates through all)
    python scripts/mutants.py --jobs 1        # one mutant at a time (default: as many as the machine has cores)

Exit status 0 only when every mutant chosen was killed.
"""

import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = Path(__file__).with_suffix(".toml")
TIMEOUT_SECONDS = 1800
PYTEST_FAILED = 1  # pytest's exit code when tests ran and some failed; any other non-zero is not a kill


@dataclass(frozen=True)
class Mutant:
    name: str
    promise: str
    file: str
    find: str
    replace: str
    tests: tuple[str, ...]


@dataclass(frozen=True)
class TestRun:
    code: int | None  # None: timed out
    seconds: float
    output: str


class StaleMutant(Exception):
    """The text a mutant edits is no longer in its file exactly once: the list needs updating."""


def load_mutants(path: Path = MUTANTS) -> list[Mutant]:
    entries = tomllib.loads(path.read_text())["mutant"]
    return [Mutant(**{**entry, "tests": tuple(entry["tests"])}) for entry in entries]


def tree_files(root: Path) -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=root,
        check=True,
        capture_output=True,
    ).stdout.decode()
    return [name for name in listed.split("\0") if name and (root / name).is_file()]


def copy_tree(root: Path, destination: Path) -> None:
    for name in tree_files(root):
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, target)


def apply(mutant: Mutant, tree: Path) -> None:
    path = tree / mutant.file
    text = path.read_text()
    found = text.count(mutant.find)
    if found != 1:
        raise StaleMutant(f"{mutant.file} holds the text to edit {found} times, not once")
    path.write_text(text.replace(mutant.find, mutant.replace))


def run_tests(tree: Path, tests: Iterable[str], *, stop_at_first_failure: bool, workers: int = 1) -> TestRun:
    # The copy comes first on the path, and keeps its state (secret key, queues) in its own var/.
    env = dict(os.environ, PYTHONPATH=str(tree), HYDRATA_VAR_DIR=str(tree / "var"))
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        *(["-x"] * stop_at_first_failure),
        *(["-n", str(workers), "--dist", "loadgroup"] if workers > 1 else []),
        *tests,
    ]
    started = time.monotonic()
    try:
        done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired as expired:
        output = expired.stdout.decode(errors="replace") if isinstance(expired.stdout, bytes) else ""
        return TestRun(code=None, seconds=time.monotonic() - started, output=output)
    return TestRun(code=done.returncode, seconds=time.monotonic() - started, output=done.stdout + done.stderr)


def verdict(run: TestRun) -> str:
    if run.code == PYTEST_FAILED:
        return "killed"
    if run.code == 0:
        return "SURVIVED"
    return "ERROR (timed out)" if run.code is None else f"ERROR (pytest exit {run.code})"


def tail(text: str, lines: int = 25) -> str:
    return "\n".join("    " + line for line in text.splitlines()[-lines:])


def baseline_tests(mutants: list[Mutant]) -> list[str]:
    """The union of the mutants' tests, sorted so each folder's are asked for together: pytest 9.1 loses a folder's
    conftest fixtures for a file asked for after another folder's (services/a.py, then anuga/b.py, then
    services/c.py)."""
    return sorted({test for mutant in mutants for test in mutant.tests})


def baseline(mutants: list[Mutant], *, jobs: int) -> bool:
    """The union of the chosen tests passes on the tree as it is (over `jobs` pytest-xdist workers)."""
    tests = baseline_tests(mutants)
    with tempfile.TemporaryDirectory(prefix="mutants-baseline-") as scratch:
        tree = Path(scratch)
        copy_tree(ROOT, tree)
        run = run_tests(tree, tests, stop_at_first_failure=False, workers=jobs)
    print(
        f"{'baseline (no mutant)':<44} {'passed' if run.code == 0 else 'FAILED':<10} {run.seconds:6.1f}s  "
        f"{len(tests)} test selections",
        flush=True,
    )
    if run.code != 0:
        print(tail(run.output), flush=True)
    return run.code == 0


def try_mutant(mutant: Mutant) -> str:
    """Apply, test and report one mutant; its lines are printed in one piece (mutants run side by side)."""
    with tempfile.TemporaryDirectory(prefix=f"mutant-{mutant.name}-") as scratch:
        tree = Path(scratch)
        copy_tree(ROOT, tree)
        try:
            apply(mutant, tree)
        except StaleMutant as stale:
            print(f"{mutant.name:<44} {'STALE':<10} {0:6.1f}s  {stale}", flush=True)
            return "STALE"
        run = run_tests(tree, mutant.tests, stop_at_first_failure=True)
    outcome = verdict(run)
    detail = (
        f"by {first_failure(run.output)}"
        if outcome == "killed"
        else f"tests: {' '.join(mutant.tests)}\n{tail(run.output)}"
    )
    print(f"{mutant.name:<44} {outcome:<10} {run.seconds:6.1f}s  {mutant.promise}\n    {detail}", flush=True)
    return outcome


def share_of(mutants: list[Mutant], *, turn: int, shares: int) -> list[Mutant]:
    """Every `shares`-th mutant from the `turn`-th: the shares 0..shares-1 together hold each mutant once."""
    return mutants[turn % shares :: shares]


def parse_share(text: str, *, root: Path = ROOT) -> tuple[int, int]:
    """`K/N`, or `auto/N`, where the turn is the number of commits on HEAD, so successive commits rotate."""
    turn_text, _, shares_text = text.partition("/")
    shares = int(shares_text)
    if shares < 1:
        raise ValueError("the number of shares must be at least 1")
    if turn_text == "auto":
        count = subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=root, capture_output=True, text=True)
        return (int(count.stdout) if count.returncode == 0 else 0) % shares, shares
    turn = int(turn_text)
    if not 0 <= turn < shares:
        raise ValueError(f"the turn must be from 0 to {shares - 1}")
    return turn, shares


def first_failure(output: str) -> str:
    """The test that failed first, from pytest's short summary (FAILED or ERROR lines); a captured log line above
    it may start with ERROR too."""
    _, _, summary = output.partition("short test summary info")
    for line in summary.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            return line.split(" - ")[0]
    return "(no summary line)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="mutants to try (default: all)")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    parser.add_argument("--no-baseline", action="store_true", help="skip the unmutated run of the same tests")
    parser.add_argument("--share", help="K/N or auto/N: only every N-th mutant from the K-th (see the docstring)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="mutants tried at once")
    args = parser.parse_args(argv)
    mutants = load_mutants()
    if args.list:
        for mutant in mutants:
            found = (ROOT / mutant.file).read_text().count(mutant.find)
            print(f"{mutant.name:<44} {'ok' if found == 1 else 'STALE':<6} {mutant.promise}")
        return 0
    unknown = set(args.names) - {mutant.name for mutant in mutants}
    if unknown:
        parser.error(f"no such mutant: {', '.join(sorted(unknown))}")
    chosen = [mutant for mutant in mutants if not args.names or mutant.name in args.names]
    if args.share:
        try:
            turn, shares = parse_share(args.share)
        except ValueError as invalid:
            parser.error(f"--share {args.share}: {invalid}")
        chosen = share_of(chosen, turn=turn, shares=shares)
        print(f"share {turn} of {shares}: {len(chosen)} mutants", flush=True)
    started = time.monotonic()
    if not args.no_baseline and not baseline(chosen, jobs=args.jobs):
        print("The tests fail without any mutant; fix them first.")
        return 2
    # Each mutant has its own copy of the tree, database, media and broker folders, so they can run side by side.
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        outcomes = list(pool.map(try_mutant, chosen))
    killed = outcomes.count("killed")
    print(f"{killed} of {len(outcomes)} mutants killed in {time.monotonic() - started:.0f} s")
    return 0 if killed == len(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
