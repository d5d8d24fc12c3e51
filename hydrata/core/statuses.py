"""The HTTP status of each kind of the platform's refusals: the errors themselves know no HTTP
(hydrata/core/errors.py); the one exception handler, and the few views outside DRF, answer with these."""

from rest_framework import exceptions, status

from hydrata.core.errors import (
    Conflict,
    Forbidden,
    NotFound,
    PaymentRequired,
    PlatformError,
    RequestTooLarge,
    ServiceUnavailable,
    Unprocessable,
)

# The status of each kind of refusal; a refusal of no kind below is a 400.
HTTP_STATUS: dict[type[PlatformError], int] = {
    NotFound: status.HTTP_404_NOT_FOUND,
    Conflict: status.HTTP_409_CONFLICT,
    Unprocessable: status.HTTP_422_UNPROCESSABLE_ENTITY,
    RequestTooLarge: status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
    Forbidden: status.HTTP_403_FORBIDDEN,
    PaymentRequired: status.HTTP_402_PAYMENT_REQUIRED,
    ServiceUnavailable: status.HTTP_503_SERVICE_UNAVAILABLE,
}


def http_status(error: PlatformError) -> int:
    """The HTTP status that answers `error`: its kind's (the nearest in its class's ancestry), else 400. An error
    raised where DRF speaks HTTP itself (authentication) keeps the status DRF gave it."""
    if isinstance(error, exceptions.APIException):
        return error.status_code
    for kind in type(error).__mro__:
        if kind in HTTP_STATUS:
            return HTTP_STATUS[kind]
    return status.HTTP_400_BAD_REQUEST
