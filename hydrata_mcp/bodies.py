"""What a tool sends in a write's body, built with the platform's own request model (hydrata_contract/requests), so
a field the platform does not take is caught here. What the model refuses is refused as the platform would refuse
it (HTTP 400, the same code and detail), without the round trip."""

from typing import Any

from pydantic import ValidationError

from hydrata_contract.requests.base import Body
from hydrata_contract.requests.refusals import body_refusal
from hydrata_mcp.client import refusal_error

BAD_REQUEST = 400


def body(model: type[Body], **fields: Any) -> dict[str, Any]:
    """The fields given, as JSON, held to `model`: those left out are left out of the body too."""
    try:
        return model(**fields).model_dump(mode="json", exclude_unset=True)
    except ValidationError as error:
        refusal = body_refusal(model, error)
        raise refusal_error(BAD_REQUEST, {"code": refusal.code, "detail": refusal.detail}) from None
