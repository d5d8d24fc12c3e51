from pydantic import BaseModel, ConfigDict, Field


class Answer(BaseModel):
    """An answer names every field it may carry: another one is an error where answers are checked."""

    model_config = ConfigDict(extra="forbid")


def map_link() -> str:
    return Field(description="Opens the project's map on this object; give it to the person.")


class Withheld(Answer):
    """What an answer adds for a caller who sees the project only because it is public: the withheld fields keep
    their keys, empty."""

    reduced: bool | None = None
    withheld: list[str] | None = None


class Picture(Answer):
    mime_type: str = Field(description="image/png")
    data: str = Field(description="Base64.")


class Page(Answer):
    """A page of results as the platform's paginator writes it; each page model adds its `results` (and, for a
    project's things, the `ui_url` of the panel that shows them)."""

    count: int
    next: str | None
    previous: str | None
