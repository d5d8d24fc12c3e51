"""Enums whose members carry a label for people (the admin, the map) beside the value sent on the wire."""

from enum import StrEnum


class Labelled(StrEnum):
    """A wire value with a label: `Member = "value", "Label"`, or only the value (the label is derived)."""

    label: str

    def __new__(cls, value: str, label: str | None = None) -> "Labelled":
        member = str.__new__(cls, value)
        member._value_ = value
        member.label = label or value.replace("_", " ").replace("-", " ").capitalize()
        return member

    @classmethod
    def choices(cls) -> list[tuple[str, str]]:
        """(value, label) pairs in declaration order, as a Django field's `choices` wants them."""
        return [(member.value, member.label) for member in cls]

    @classmethod
    def values(cls) -> list[str]:
        return [member.value for member in cls]
