"""A run on a compute node that shares no disk with the platform (a Slurm job, an AWS Batch job): fetch the
package through signed links, run the simulation child there, and send its progress and results back through
signed links. It knows nothing of Django, the database or any credential but the links it is given.

    python -m hydrata.compute.processes.remote_run < spec.json
    HYDRATA_SPEC_URL=<signed GET link to spec.json> python -m hydrata.compute.processes.remote_run
    (AWS Batch: no stdin)

The spec (JSON, so that no link is ever on a command line a `ps` shows):
  inputs        {relative file name: signed GET link} of the scenario package
  outputs       {result file name: signed PUT link}; a file the run did not write is skipped
  progress      signed PUT link for progress.jsonl, sent again whenever it grows
  exit          signed PUT link for exit.json, sent last: {"returncode", "stderr_tail"}
  content_type  the content type the PUT links were signed for
  arguments     what follows `python -m hydrata.compute.simulation.simulate --package P --output O`
  launcher      what comes before the interpreter (e.g. ["mpiexec", "-n", "2"]); [] for one process
  limits        {"cpu_seconds", "address_space_bytes", "file_bytes"}: the child's resource limits (0: none)

Exits with the child's exit code (128 + N when a signal N ended it), or 1 when the package could not be fetched.
"""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any, BinaryIO

from hydrata.compute.processes.process_limits import child_preexec

PROGRESS_EVERY_SECONDS = 3.0
TRANSFER_TIMEOUT_SECONDS = 300
TERMINATE_GRACE_SECONDS = 5.0
STDERR_TAIL_BYTES = 4000
CHUNK_BYTES = 1 << 20


def web_link(url: str) -> str:
    """Only http(s): urllib would open a file: link just as readily, and the spec is not ours to trust blindly."""
    if not url.startswith(("https://", "http://")):
        raise ValueError("a transfer link must be http(s)")
    return url


def fetch(url: str, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with urllib.request.urlopen(web_link(url), timeout=TRANSFER_TIMEOUT_SECONDS) as response, target.open("wb") as out:  # noqa: S310
        shutil.copyfileobj(response, out, CHUNK_BYTES)


def send(url: str, body: bytes | BinaryIO, *, content_type: str, size: int) -> None:
    request = urllib.request.Request(  # noqa: S310 (web_link checked the scheme)
        web_link(url), data=body, method="PUT", headers={"Content-Type": content_type, "Content-Length": str(size)}
    )
    with urllib.request.urlopen(request, timeout=TRANSFER_TIMEOUT_SECONDS) as response:  # noqa: S310
        response.read()


def send_file(url: str, path: Path, *, content_type: str) -> None:
    with path.open("rb") as stream:
        send(url, stream, content_type=content_type, size=path.stat().st_size)


def child_limits(limits: dict[str, int]) -> Callable[[], None]:
    """What runs in the child between fork and exec: the resource limits the platform set for this run, set as a
    worker sets them for its own child (hydrata/compute/processes/process_limits.py)."""
    return child_preexec(
        cpu_seconds=int(limits.get("cpu_seconds") or 0),
        address_space_bytes=int(limits.get("address_space_bytes") or 0),
        file_bytes=int(limits.get("file_bytes") or 0),
    )


class Job:
    def __init__(self, spec: dict[str, Any], workdir: Path) -> None:
        self.spec, self.workdir = spec, workdir
        self.package, self.output = workdir / "package", workdir / "output"
        self.stderr_path = workdir / "child.stderr"
        self.child: subprocess.Popen | None = None
        self.sent_progress_bytes = -1
        self.stopping = False

    def run(self) -> int:
        self.output.mkdir(parents=True)
        for name, url in self.spec["inputs"].items():
            fetch(url, self.package / name)
        if self.stopping:
            return 128 + signal.SIGTERM
        self.child = self._spawn()
        while True:
            try:
                self.child.wait(timeout=PROGRESS_EVERY_SECONDS)
                break
            except subprocess.TimeoutExpired:
                self._send_progress()
        self._send_progress()
        self._send_results()
        return self._exit_code(self.child.returncode)

    def stop(self, signum: int, _frame: FrameType | None) -> None:
        """A cancel (scancel sends SIGTERM): stop the child; the loop then sends what it left."""
        self.stopping = True
        if self.child is not None and self.child.poll() is None:
            self.child.terminate()
            try:
                self.child.wait(timeout=TERMINATE_GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                self.child.kill()

    def _spawn(self) -> subprocess.Popen:
        command = [
            *self.spec.get("launcher", []),
            sys.executable,
            "-m",
            "hydrata.compute.simulation.simulate",
            "--package",
            str(self.package),
            "--output",
            str(self.output),
            *self.spec.get("arguments", []),
        ]
        with self.stderr_path.open("wb") as stderr:
            return subprocess.Popen(
                command,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                cwd=self.output,
                preexec_fn=child_limits(self.spec.get("limits", {})),
            )

    def _send_progress(self) -> None:
        path = self.output / "progress.jsonl"
        if path.exists() and path.stat().st_size != self.sent_progress_bytes:
            body = path.read_bytes()
            send(self.spec["progress"], body, content_type=self.spec["content_type"], size=len(body))
            self.sent_progress_bytes = len(body)

    def _send_results(self) -> None:
        content_type = self.spec["content_type"]
        for name, url in self.spec["outputs"].items():
            path = self.output / name
            if path.is_file():
                send_file(url, path, content_type=content_type)
        returncode = self.child.returncode if self.child is not None else 1
        stderr = self.stderr_path.read_bytes()[-STDERR_TAIL_BYTES:].decode(errors="replace")
        self.report_exit(returncode=returncode, stderr_tail=stderr)

    def report_exit(self, *, returncode: int, stderr_tail: str) -> None:
        report = json.dumps({"returncode": returncode, "stderr_tail": stderr_tail}).encode()
        send(self.spec["exit"], report, content_type=self.spec["content_type"], size=len(report))

    @staticmethod
    def _exit_code(returncode: int) -> int:
        return 128 - returncode if returncode < 0 else returncode


def read_spec() -> dict[str, Any]:
    url = os.environ.get("HYDRATA_SPEC_URL")
    if not url:
        return json.load(sys.stdin)
    with urllib.request.urlopen(web_link(url), timeout=TRANSFER_TIMEOUT_SECONDS) as response:  # noqa: S310
        return json.load(response)


def main() -> int:
    spec = read_spec()
    workdir = Path(tempfile.mkdtemp(prefix="hydrata-run-"))
    job = Job(spec, workdir)
    signal.signal(signal.SIGTERM, job.stop)
    signal.signal(signal.SIGINT, job.stop)
    try:
        return job.run()
    except (
        OSError,
        ValueError,
    ) as failure:  # a link that did not answer (urllib's messages name no link): tell the platform
        reason = f"The compute node could not transfer the run's files: {type(failure).__name__}: {failure}"
        print(reason, file=sys.stderr)
        with contextlib.suppress(OSError):
            job.report_exit(returncode=1, stderr_tail=reason)
        return 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
