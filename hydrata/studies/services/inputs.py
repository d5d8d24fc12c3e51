"""Design-input files: read whole by their parser (hydrata/compute/arr) and stored as what was read, or refused
with every bad row named and nothing stored.

The file is read in a child process under the HYDRATA_FILE_READ_* limits (hydrata/compute/processes/bounded.py), never
in the web process: however a file is made, the process that serves requests only waits on a pipe meanwhile."""

import hashlib
import json
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q

from hydrata.anuga.models import Project
from hydrata.compute.errors import CodedError
from hydrata.compute.processes.bounded import Limits, OverLimit, call_bounded
from hydrata.core.errors import Conflict, ServiceUnavailable, ValidationFailed
from hydrata.studies.models import DesignInput, DesignStudy
from hydrata_contract.errors import ErrorCode
from hydrata_contract.studies import DesignInputKind

STUDIES_NAMED = 20  # the studies a refusal to delete an input names (its `studies`), at most
READER = "hydrata.compute.arr.reading:design_input_read_json"


def design_input_create(*, project: Project, user: User, kind: DesignInputKind, name: str, text: str) -> DesignInput:
    content, summary = design_input_read(kind=kind, text=text)
    return DesignInput.objects.create(
        project=project,
        kind=kind,
        name=name[:255],
        content=content,
        summary=summary,
        digest=content_digest(content),
        created_by=user,
    )


def content_digest(content: dict[str, Any]) -> str:
    """SHA-256 of what a file was read as, computed once when it is stored: a study's fingerprint names it."""
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


def design_input_delete(*, design_input: DesignInput) -> None:
    """Delete a design input no study uses; one in use is 409 DESIGN_INPUT_IN_USE naming the studies (delete them
    first), since their members' storms are derived from it."""
    with transaction.atomic():
        locked = DesignInput.objects.select_for_update().get(pk=design_input.pk)
        using = list(
            DesignStudy.objects.filter(
                Q(ifd=locked) | Q(temporal_patterns=locked) | Q(storm_losses=locked)
            ).values_list("pk", "name")[:STUDIES_NAMED]
        )
        if using:
            named = ", ".join(f"{pk} ('{name}')" for pk, name in using)
            raise Conflict(
                f"Design input {locked.pk} is used by design study {named}; its members' storms are derived from "
                "it. Delete those studies first, then the input.",
                code=ErrorCode.DESIGN_INPUT_IN_USE,
                studies=[pk for pk, _ in using],
            )
        locked.delete()


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
