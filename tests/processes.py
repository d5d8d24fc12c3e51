"""Starting the product's own processes on loopback, shared by the production tests, the benchmarks and the
conformance runner: a free port, waiting for a listener, `manage.py` commands, and the Procfile's web command."""

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, *, name: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode} before it listened")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{name} did not listen on {port} within {seconds} s")


def procfile_command(process: str) -> str:
    """The shell command of one of the Procfile's processes, as a platform would run it."""
    for line in (ROOT / "Procfile").read_text().splitlines():
        name, _, command = line.partition(":")
        if name.strip() == process:
            return command.strip()
    raise AssertionError(f"the Procfile has no {process} process")


def celery_worker_command(hostname: str, *options: str, queues: str = "interactive,studies") -> list[str]:
    """One Celery worker process that takes one task at a time (solo pool) from `queues` (config/celery.py: both,
    as `make worker` and the Procfile's), under the given node name."""
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--pool=solo",
        "--concurrency=1",
        "--loglevel=INFO",
        "--without-gossip",
        "--without-mingle",
        "--hostname",
        hostname,
        f"--queues={queues}",
        *options,
    ]


def manage(env: dict[str, str], *args: str) -> str:
    """Run a manage.py command in env; its standard output."""
    command = [sys.executable, "manage.py", *args]
    return subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout.strip()


def agent_key(env: dict[str, str], *, username: str, level: str = "draft") -> str:
    """A new user's agent key, made by the command an operator would use."""
    return manage(env, "create_agent_key", "--username", username, "--level", level, "--create-user")


@contextlib.contextmanager
def web_command(env: dict[str, str], *, port: int, log: Path) -> Iterator[subprocess.Popen]:
    """The Procfile's web command (`python -m config.serve`) on 127.0.0.1:port, logging to log; stopped at the end."""
    with log.open("wb") as output:  # a file, not a pipe: a full pipe would stall the server
        web = subprocess.Popen(
            [sys.executable, "-m", "config.serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_port(port, web, name="the web command")
        yield web
    finally:
        web.terminate()
        try:
            web.wait(timeout=30)
        except subprocess.TimeoutExpired:
            web.kill()
            web.wait()
