"""The hand-back: where the engineer sees what the agent changed (ui_url), numbers to check, and a sentence. The
link comes from the platform's answer (every object it describes carries its `ui_url`); a tool that shows
another view of the same map derives it with `hydrata_contract.links.relink`, never by asking for a project."""

from typing import Any

from pydantic import BaseModel, Field


class HandBack(BaseModel):
    ui_url: str = Field(description="Opens the project map on what changed; give this link to the user.")
    summary: dict[str, Any] = Field(description="Numbers the engineer can check.")
    say_to_user: str = Field(description="One sentence to relay to the user.")
