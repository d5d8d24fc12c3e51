"""Pages from the platform carry links; the model gets page numbers instead."""

from typing import Any
from urllib.parse import parse_qs, urlsplit


def page_number(link: str | None) -> int | None:
    if not link:
        return None
    values = parse_qs(urlsplit(link).query).get("page")
    return int(values[0]) if values and values[0].isdigit() else 1


def page_numbers(payload: dict[str, Any]) -> dict[str, Any]:
    return {
        "count": payload.get("count", 0),
        "next_page": page_number(payload.get("next")),
        "previous_page": page_number(payload.get("previous")),
    }
