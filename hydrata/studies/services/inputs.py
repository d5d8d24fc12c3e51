"""Design-input files: read whole by their parser (hydrata/compute/arr) and stored as what was read, or refused
with every bad row named and nothing stored.

The file is read in a child process under the HYDRATA_FILE_READ_* limits (hydrata/compute/bounded.py), never in
the web process: however a file is made, the process that serves requests only waits on a pipe meanwhile."""

from typing import Any

from django.conf import settings
from django.contrib.auth.models import User

from hydrata.anuga.models import Project
from hydrata.compute.bounded import Limits, OverLimit, call_bounded
from hydrata.compute.errors import CodedError
from hydrata.core.errors import ServiceUnavailable, ValidationFailed
from hydrata.studies.models import DesignInput
from hydrata_contract.errors import ErrorCode
from hydrata_contract.studies import DesignInputKind

READER = "hydrata.compute.arr.reading:design_input_read_json"


def design_input_create(*, project: Project, user: User, kind: DesignInputKind, name: str, text: str) -> DesignInput:
    content, summary = design_input_read(kind=kind, text=text)
    return DesignInput.objects.create(
        project=project, kind=kind, name=name[:255], content=content, summary=summary, created_by=user
    )


def design_input_read(*, kind: DesignInputKind, text: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """What the file holds and its summary, read in a child process under the limits; a refusal otherwise."""
    limits = Limits(
        cpu_seconds=settings.HYDRATA_FILE_READ_CPU_SECONDS,
        wall_seconds=settings.HYDRATA_FILE_READ_WALL_SECONDS,
        memory_bytes=settings.HYDRATA_FILE_READ_MEMORY_BYTES,
    )
    try:
        read = call_bounded(READER, {"kind": kind.value, "text": text}, limits=limits)
    except CodedError as refused:
        raise ValidationFailed(refused.message, code=refused.code, kind=kind.value, **refused.extra) from None
    except OverLimit as over:
        raise _over_limit(over, kind=kind, limits=limits) from None
    return read["content"], read["summary"]


def _over_limit(over: OverLimit, *, kind: DesignInputKind, limits: Limits) -> ValidationFailed | ServiceUnavailable:
    if over.limit == "wall":
        return ServiceUnavailable(
            f"The server is too busy to read the file now (it was not read within {limits.wall_seconds:g} s); "
            "nothing was stored. Send it again shortly.",
        )
    spent = f"{limits.cpu_seconds} s of CPU time" if over.limit == "cpu" else f"{limits.memory_bytes // 1024**2:,} MB"
    return ValidationFailed(
        f"Reading the file took more than {spent}, the most a design input may take (an honest file of the largest "
        "size takes about a second); nothing was stored. Check it is the file the Bureau or the Data Hub gives.",
        code=ErrorCode.FILE_TOO_COSTLY,
        kind=kind.value,
        limit=over.limit,
    )
