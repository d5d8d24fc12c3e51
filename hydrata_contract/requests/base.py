import re
from datetime import UTC, datetime
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from hydrata_contract.errors import ErrorCode

NAME_MAX_LENGTH = 200
# A NUL or a lone surrogate: one character class, so the search is linear and cannot backtrack.
UNSTORABLE_TEXT = re.compile("[\x00\ud800-\udfff]")
DESCRIPTION_MAX_LENGTH = 5000
# The largest id a database key holds (a 64-bit integer): a larger one names nothing.
MAX_ID = 2**63 - 1


def _no_null_defaults(schema: dict[str, Any]) -> None:
    """A field that takes no null but may be left out (a change's, or one the service defaults) keeps no
    `default: null`, which would read as 'send null'."""
    for field in schema.get("properties", {}).values():
        takes_null = field.get("type") == "null" or {"type": "null"} in field.get("anyOf", [])
        if "default" in field and field["default"] is None and not takes_null:
            del field["default"]


class Body(BaseModel):
    """A write's body: every field it takes, and no other; text is trimmed, and numbers are finite."""

    model_config = ConfigDict(
        extra="forbid", allow_inf_nan=False, str_strip_whitespace=True, json_schema_extra=_no_null_defaults
    )
    # The machine code a value out of a field's range or choices is refused with, where one more precise than
    # VALIDATION_ERROR was published before the model (a service's own check says the same with it); a value of
    # the wrong type is VALIDATION_ERROR (hydrata_contract/requests/refusals.py).
    refusal_codes: ClassVar[dict[str, ErrorCode]] = {}

    @field_validator("*", mode="after")
    @classmethod
    def _no_unstorable_text(cls, value: Any) -> Any:
        """A NUL or a lone surrogate in any text, at any depth: the JSON parser refuses them in a JSON body, but a
        form's fields reach the model unread, and neither UTF-8 nor PostgreSQL holds them."""
        if _has_unstorable_text(value):
            raise ValueError("holds a NUL or a lone surrogate, which text here cannot hold.")
        return value


def _has_unstorable_text(value: Any) -> bool:
    if isinstance(value, str):
        return UNSTORABLE_TEXT.search(value) is not None
    if isinstance(value, list | tuple):
        return any(_has_unstorable_text(item) for item in value)
    if isinstance(value, dict):
        return any(_has_unstorable_text(key) or _has_unstorable_text(item) for key, item in value.items())
    return False


class Changes(Body):
    """A PATCH body: each field optional, and only those sent are changed (`model_dump(exclude_unset=True)`)."""


def _in_utc(moment: datetime) -> datetime:
    """PostgreSQL refuses an offset beyond 15:59 (ISO 8601 allows any), so every time is stored as UTC; a time
    near year 1 or 9999 can leave the calendar on the way."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise ValueError("falls outside the years 1 to 9999 once moved to UTC; give a time within them.") from None


# An ISO 8601 time; one without an offset is read as UTC, the platform's time zone, and every one is kept in UTC.
Instant = Annotated[datetime, AfterValidator(_in_utc)]


def object_id(description: str) -> Any:
    return Field(ge=1, le=MAX_ID, description=description)


def name_field(what: str) -> Any:
    return Field(min_length=1, max_length=NAME_MAX_LENGTH, description=f"The {what}'s name, as people see it.")


def description_field() -> Any:
    return Field(default="", max_length=DESCRIPTION_MAX_LENGTH, description="Free text for people.")


def unchanged(description: str, **bounds: Any) -> Any:
    """A field of a change (`Changes`): left out, it stays as it is."""
    return Field(None, description=description, **bounds)
