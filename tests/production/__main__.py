"""`python -m tests.production [pytest arguments]`: the production profile's servers, and its tests against them.

With `--shell`, the servers run and the environment pointing at them is printed until Ctrl-C (for load tests
and poking by hand).
"""

import contextlib
import os
import subprocess
import sys
from pathlib import Path

from tests.production.stack import production_servers

ROOT = Path(__file__).resolve().parents[2]


def main(arguments: list[str]) -> int:
    with production_servers() as environment:
        if arguments[:1] == ["--shell"]:
            for name, value in environment.items():
                print(f"export {name}={value}")
            with contextlib.suppress(KeyboardInterrupt):
                subprocess.run(arguments[1:] or ["sleep", "infinity"], env=dict(os.environ, **environment), check=False)
            return 0
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *(arguments or ["tests/production"])]
        return subprocess.run(
            command, cwd=ROOT, env=dict(os.environ, **environment, HYDRATA_PRODUCTION_PROFILE="1"), check=False
        ).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
