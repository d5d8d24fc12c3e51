from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer


class Answer(BaseModel):
    """An answer names every field it may carry: another one is an error where answers are checked."""

    model_config = ConfigDict(extra="forbid")


class Sparse(Answer):
    """An answer whose fields with a default are sent only when they were given: the wire leaves such a field out
    rather than sending it null (a browser's terrain has no `s3_hillshade_url` key, a row without forcing no
    `forcing`). Built from a dict or a row, what the source did not hold is not sent."""

    # No return annotation: pydantic then describes the answer (its JSON schema) by its fields, not as any value.
    @model_serializer(mode="wrap")
    def _given_only(self, handler: SerializerFunctionWrapHandler):
        data = handler(self)
        return {key: value for key, value in data.items() if key in self.model_fields_set}


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
