"""The hand-back: where the engineer sees what the agent changed (ui_url), numbers to check, and a sentence."""

from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from pydantic import BaseModel, Field


class HandBack(BaseModel):
    ui_url: str = Field(description="Opens the project map on what changed; give this link to the user.")
    summary: dict[str, Any] = Field(description="Numbers the engineer can check.")
    say_to_user: str = Field(description="One sentence to relay to the user.")


def ui_url(
    *,
    base_map: int,
    panel: str | None = None,
    layer: int | None = None,
    scenario: int | None = None,
    run: int | None = None,
    event: int | None = None,
    comparison: int | None = None,
    compare: int | None = None,
) -> str:
    keys = (
        ("panel", panel),
        ("layer", layer),
        ("scenario", scenario),
        ("run", run),
        ("event", event),
        ("comparison", comparison),
        ("compare", compare),
    )
    params = {key: value for key, value in keys if value is not None}
    query = f"?{urlencode(params)}" if params else ""
    return f"{settings.HYDRATA_SITE_URL}/catalogue/#/map/{base_map}{query}"
