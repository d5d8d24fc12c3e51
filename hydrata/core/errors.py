"""The platform's one error hierarchy. A refusal carries a machine code, a sentence and what else the caller can
act on, and says what kind of refusal it is by its class: nothing here knows HTTP. The one exception handler
(hydrata/core/exception_handler.py, `http_status`) answers each kind with its status."""

from typing import Any

from rest_framework import status
from rest_framework.exceptions import AuthenticationFailed

from hydrata_contract.errors import ErrorCode


class PlatformError(Exception):
    """A refusal the caller can act on: rendered as {"code", "detail", **extra} by the one handler."""

    error_code: ErrorCode = ErrorCode.BAD_REQUEST
    default_detail = "The request could not be processed."
    # When set, the same request may succeed this many seconds later: sent as Retry-After and in the body.
    retry_after_seconds: int | None = None

    def __init__(self, detail: str | None = None, *, code: ErrorCode | None = None, **extra: Any) -> None:
        self.detail = detail or self.default_detail
        super().__init__(self.detail)
        if code:
            self.error_code = code
        self.extra = extra


class ValidationFailed(PlatformError):
    error_code = ErrorCode.VALIDATION_ERROR
    default_detail = "Some fields are invalid."


class NotFound(PlatformError):
    error_code = ErrorCode.NOT_FOUND
    default_detail = "Not found, or not visible to this caller."


class Conflict(PlatformError):
    error_code = ErrorCode.CONFLICT


class Unprocessable(PlatformError):
    error_code = ErrorCode.UNPROCESSABLE


class RequestTooLarge(PlatformError):
    error_code = ErrorCode.REQUEST_TOO_LARGE


class Forbidden(PlatformError):
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


class AuthenticationError(PlatformError, AuthenticationFailed):  # type: ignore[misc]  # `detail`: str or DRF's
    """Raised by the authentication classes, where DRF itself speaks HTTP: it adds WWW-Authenticate to an
    AuthenticationFailed, or makes it a 403 when the request offered no credential a scheme could challenge, by
    setting `status_code`; the handler answers with that."""

    status_code: int = status.HTTP_401_UNAUTHORIZED

    error_code = ErrorCode.AUTHENTICATION_FAILED
    default_detail = "The credential was not accepted."


class PaymentRequired(PlatformError):
    error_code = ErrorCode.PAYMENT_REQUIRED


class SpendLimitExceeded(PaymentRequired):
    error_code = ErrorCode.SPEND_LIMIT_EXCEEDED


class ServiceUnavailable(PlatformError):
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
