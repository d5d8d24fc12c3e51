"""A design-input file is read off the web process, under a time limit, on a real server (config.asgi under
uvicorn on a loopback socket): while one upload's file is being read, the same process answers other requests,
and a read that does not end in time is stopped, answered and leaves nothing behind."""

import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from hydrata.studies.models import DesignInput
from tests.factories import make_grant, make_project
from tests.hostile_files import ifd_honest, patterns_honest
from tests.hydrata.compute.processes.test_bounded import children_of

pytestmark = pytest.mark.django_db(transaction=True)
LARGEST = 4 * 1024 * 1024  # HYDRATA_ARR_FILE_MAX_BYTES's default: an honest file of it takes about a second to read


def the_reader(*, seconds: float = 60) -> int:
    """The child process reading a file (hydrata/compute/processes/bounded.py): this process serves the live server."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for pid in children_of(os.getpid()):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                    if b"hydrata.compute.processes.bounded" in cmdline.read():
                        return pid
            except OSError:
                continue
        time.sleep(0.002)
    raise AssertionError("no child process read the file")


def start_upload(pool: ThreadPoolExecutor, live_asgi, key: str, project, *, kind: str = "ifd") -> object:
    content = FILES[kind](LARGEST).encode()
    assert len(content) >= 2_000_000
    return pool.submit(
        httpx.post,
        f"{live_asgi.url}/api/v2/anuga/projects/{project.pk}/design-inputs/",
        headers={"Authorization": f"Bearer {key}"},
        data={"kind": kind},
        files={"base_file": (f"{kind}.csv", content, "text/csv")},
        timeout=300,
    )


# Honest files in the real layouts: the BoM's IFD depths table, and the ARR Data Hub's increments file
# (EventID,Duration,TimeStep,Region,AEP,Increments), each blown up to the largest a file may be.
FILES = {"ifd": ifd_honest, "temporal_patterns": patterns_honest}


@pytest.mark.parametrize("kind", sorted(FILES))
def test_while_a_file_is_being_read_the_web_process_answers_other_requests(live_asgi, kind):
    grant, key = make_grant(level="draft")
    project = make_project(grant.user)

    with ThreadPoolExecutor(1) as pool:
        upload = start_upload(pool, live_asgi, key, project, kind=kind)
        reader = the_reader()
        os.kill(reader, signal.SIGSTOP)  # the read now takes as long as the test wants
        try:
            other = httpx.get(
                f"{live_asgi.url}/api/v2/anuga/projects/{project.pk}/",
                headers={"Authorization": f"Bearer {key}"},
                timeout=60,
            )
            still_reading = reader in children_of(os.getpid())
        finally:
            os.kill(reader, signal.SIGCONT)
        created = upload.result()

    assert other.status_code == 200 and other.json()["id"] == project.pk
    assert still_reading  # answered while the file was being read, not after
    assert created.status_code == 201, created.text[:300]
    if kind == "ifd":
        assert len(created.json()["summary"]["durations_min"]) > 2000
    else:
        assert created.json()["summary"]["pattern_count"] > 10_000


def test_a_read_that_does_not_end_in_time_is_stopped_answered_503_and_stores_nothing(live_asgi, settings):
    settings.HYDRATA_FILE_READ_WALL_SECONDS = 3
    grant, key = make_grant(level="draft")
    project = make_project(grant.user)

    with ThreadPoolExecutor(1) as pool:
        upload = start_upload(pool, live_asgi, key, project)
        reader = the_reader()
        os.kill(reader, signal.SIGSTOP)  # never continued: only the wall clock ends it
        refused = upload.result()

    assert refused.status_code == 503, refused.text[:300]
    assert refused.json()["code"] == "SERVICE_UNAVAILABLE" and refused.headers["Retry-After"] == "5"
    assert "Send it again shortly" in refused.json()["detail"]
    assert reader not in children_of(os.getpid())  # killed and waited for, no zombie
    assert not DesignInput.objects.exists()
