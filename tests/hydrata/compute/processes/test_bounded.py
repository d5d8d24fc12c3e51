"""Work on a user's file in a child process under limits (hydrata/compute/processes/bounded.py), on real processes: over
the CPU time, the memory or the wall clock it is stopped and says which, a refusal comes back as it was raised, and no
child outlives its call."""

import os
import time

import pytest

from hydrata.compute.errors import CodedError
from hydrata.compute.processes.bounded import Limits, OverLimit, call_bounded
from hydrata_contract.errors import ErrorCode

HERE = "tests.hydrata.compute.processes.test_bounded"
LIMITS = Limits(cpu_seconds=1, wall_seconds=120, memory_bytes=1024**3)


def spin(_argument):
    """Work that never ends: only a limit stops it."""
    while True:
        pass


def hoard(_argument):
    kept = []
    while True:
        kept.append(bytearray(64 * 1024**2))


def sleep_then_answer(seconds):
    time.sleep(seconds)
    return "woke"


def refuse(argument):
    raise CodedError(ErrorCode.ARR_FILE_INVALID, f"line 2: {argument}", rows=[{"line": 2}], bad_row_count=1)


def echo(argument):
    return {"got": argument, "pid": os.getpid()}


def test_a_result_comes_back_from_another_process_as_json():
    answer = call_bounded(f"{HERE}:echo", {"text": "été 😀", "n": [1, 2.5]}, limits=LIMITS)
    assert answer["got"] == {"text": "été 😀", "n": [1, 2.5]} and answer["pid"] != os.getpid()


def test_a_refusal_comes_back_raised_with_its_code_message_and_extra():
    with pytest.raises(CodedError) as refused:
        call_bounded(f"{HERE}:refuse", "bad", limits=LIMITS)
    assert refused.value.code == ErrorCode.ARR_FILE_INVALID and refused.value.message == "line 2: bad"
    assert refused.value.extra == {"rows": [{"line": 2}], "bad_row_count": 1}


def test_work_over_its_cpu_time_is_stopped_and_said_to_be():
    with pytest.raises(OverLimit) as over:
        call_bounded(f"{HERE}:spin", None, limits=LIMITS)
    assert over.value.limit == "cpu"


def test_work_over_its_memory_is_stopped_and_said_to_be():
    with pytest.raises(OverLimit) as over:
        call_bounded(f"{HERE}:hoard", None, limits=Limits(cpu_seconds=30, wall_seconds=120, memory_bytes=512 * 1024**2))
    assert over.value.limit == "memory"


def test_work_past_the_wall_clock_is_killed_though_it_used_no_cpu():
    # Children this test process had before (a simulation fork server an earlier test started, say) are not the
    # call's: the promise is that the call leaves none of its own behind.
    before = set(children_of(os.getpid()))
    with pytest.raises(OverLimit) as over:
        call_bounded(
            f"{HERE}:sleep_then_answer", 60, limits=Limits(cpu_seconds=10, wall_seconds=2, memory_bytes=1024**3)
        )
    assert over.value.limit == "wall"
    assert not set(children_of(os.getpid())) - before


def children_of(pid: int) -> list[int]:
    """The processes whose parent is pid, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found
