"""Platform records arranged directly, for MCP tests that need a finished run without computing one."""

import io
import json
from typing import Any

import numpy as np
from django.contrib.auth.models import User
from PIL import Image

from hydrata.anuga.models import Run, Scenario
from hydrata.storage import get_storage
from hydrata_contract.states import RunStatus
from tests.factories import make_project

SIGNATURES = ("X-Amz-Signature", "X-Amz-Security-Token", "X-Hydrata-Signature")


def noise_png(side: int = 8) -> bytes:
    """A real PNG of random pixels: noise does not compress, so side 600 is about a megabyte."""
    image = Image.fromarray(np.random.default_rng(1).integers(0, 256, (side, side, 3), dtype=np.uint8))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def signed_link(key: str = "runs/1/run.log") -> str:
    """A real signed download link of the platform's storage."""
    return get_storage().presign_download(key=key, expires_in=3600)


def complete_run(
    owner: User, *, log: str = "", statistics: dict[str, Any] | None = None, preview: bytes | None = None
) -> Run:
    """A complete run of a new project of `owner`, with its log, statistics and preview image in storage."""
    scenario = Scenario.objects.create(project=make_project(owner), name="done", resolution=5, duration=600)
    run = Run.objects.create(
        scenario=scenario,
        status=RunStatus.COMPLETE,
        resolution=5,
        duration=600,
        log=log,
        statistics=statistics if statistics is not None else {"peak_depth_m": 1.25},
    )
    run.results_prefix = f"runs/{run.pk}"
    run.save(update_fields=["results_prefix"])
    get_storage().save(key=f"{run.results_prefix}/preview.png", data=preview or noise_png(), content_type="image/png")
    return run


def assert_no_signature(result: Any) -> None:
    """Neither the structured result nor any text block of a CallToolResult carries a signature."""
    dumped = json.dumps(result.model_dump(mode="json"))
    for signature in SIGNATURES:
        assert signature.lower() not in dumped.lower(), dumped[:2000]
