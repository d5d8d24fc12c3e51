"""The platform's one error hierarchy. Every refusal carries an HTTP status and a machine code."""

from typing import Any

from rest_framework import status
from rest_framework.exceptions import APIException, AuthenticationFailed

from hydrata_contract.errors import ErrorCode


class PlatformError(APIException):
    """A refusal the caller can act on: rendered as {"code", "detail", **extra} by the one handler."""

    status_code: int = status.HTTP_400_BAD_REQUEST
    error_code: ErrorCode = ErrorCode.BAD_REQUEST
    default_detail = "The request could not be processed."
    # When set, the same request may succeed this many seconds later: sent as Retry-After and in the body.
    retry_after_seconds: int | None = None

    def __init__(self, detail: str | None = None, *, code: ErrorCode | None = None, **extra: Any) -> None:
        super().__init__(detail or self.default_detail)
        if code:
            self.error_code = code
        self.extra = extra


class ValidationFailed(PlatformError):
    error_code = ErrorCode.VALIDATION_ERROR
    default_detail = "Some fields are invalid."


class NotFound(PlatformError):
    status_code: int = status.HTTP_404_NOT_FOUND
    error_code = ErrorCode.NOT_FOUND
    default_detail = "Not found, or not visible to this caller."


class Conflict(PlatformError):
    status_code: int = status.HTTP_409_CONFLICT
    error_code = ErrorCode.CONFLICT


class Unprocessable(PlatformError):
    status_code: int = status.HTTP_422_UNPROCESSABLE_ENTITY
    error_code = ErrorCode.UNPROCESSABLE


class RequestTooLarge(PlatformError):
    status_code: int = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    error_code = ErrorCode.REQUEST_TOO_LARGE


class Forbidden(PlatformError):
    status_code: int = status.HTTP_403_FORBIDDEN
    error_code = ErrorCode.PERMISSION_DENIED
    default_detail = "You do not have permission to perform this action."


class GrantLevelTooLow(Forbidden):
    error_code = ErrorCode.GRANT_LEVEL_TOO_LOW


class AgentPaused(Forbidden):
    error_code = ErrorCode.AGENT_PAUSED
    default_detail = "Agent access to this account is paused. The account owner can resume it on the /agents/ page."


class PasswordRequired(Forbidden):
    """Sudo mode: the action widens what agents may do and the person has not entered the password recently."""

    error_code = ErrorCode.PASSWORD_REQUIRED


class AuthenticationError(PlatformError, AuthenticationFailed):
    """DRF adds WWW-Authenticate to AuthenticationFailed and its subclasses."""

    status_code: int = status.HTTP_401_UNAUTHORIZED
    error_code = ErrorCode.AUTHENTICATION_FAILED
    default_detail = "The credential was not accepted."


class PaymentRequired(PlatformError):
    status_code: int = status.HTTP_402_PAYMENT_REQUIRED
    error_code = ErrorCode.PAYMENT_REQUIRED


class SpendLimitExceeded(PaymentRequired):
    error_code = ErrorCode.SPEND_LIMIT_EXCEEDED


class ServiceUnavailable(PlatformError):
    status_code: int = status.HTTP_503_SERVICE_UNAVAILABLE
    error_code = ErrorCode.SERVICE_UNAVAILABLE
    default_detail = "The platform cannot answer now. Try again shortly."
    retry_after_seconds: int | None = 5


class DatabaseUnavailable(ServiceUnavailable):
    """The database did not answer: its connection pool stayed empty, it refused or dropped the connection
    (restart, failover), or another writer held its lock (SQLite) for longer than the wait allowed."""

    error_code = ErrorCode.DATABASE_UNAVAILABLE
    default_detail = (
        "The platform's database is busy or restarting, so this request may not have completed. Send it again "
        "shortly; after a change, read first to see whether it was made."
    )
