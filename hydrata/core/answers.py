"""The platform answers through the contract (hydrata_contract/answers): each view names the model of its answer.
Where answers are checked (settings.HYDRATA_VALIDATE_ANSWERS: the tests, and DEBUG), every answer is held to its
model on the way out, so a field added to one but not the other fails there instead of in a client. In production
the answer goes out as built: a mismatch must not turn an answer into a 500."""

from typing import Any

from django.conf import settings
from pydantic import BaseModel


def answer(model: type[BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    """`data`, held to `model` where answers are checked."""
    if settings.HYDRATA_VALIDATE_ANSWERS:
        model.model_validate(data)
    return data
