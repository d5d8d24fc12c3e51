"""Storage refusals, in the platform's one error hierarchy."""

from hydrata.core.errors import Forbidden, NotFound, PlatformError, RequestTooLarge
from hydrata_contract.errors import ErrorCode


class StorageError(PlatformError):
    error_code = ErrorCode.STORAGE_ERROR
    default_detail = "The file store refused the request."


class InvalidStorageKey(StorageError):
    error_code = ErrorCode.INVALID_STORAGE_KEY
    default_detail = (
        "A storage key is a relative path of non-empty segments, without '.', '..', backslashes or control characters."
    )


class StorageObjectNotFound(StorageError, NotFound):
    error_code = ErrorCode.NOT_FOUND
    default_detail = "No file is stored under this key."


class SignatureInvalid(StorageError, Forbidden):
    error_code = ErrorCode.SIGNATURE_INVALID
    default_detail = "This link is not valid: it was changed after it was issued. Ask for a new link."


class UrlExpired(StorageError, Forbidden):
    error_code = ErrorCode.URL_EXPIRED
    default_detail = "This link has expired. Ask for a new link and use it before it expires."


class ContentTypeMismatch(StorageError, Forbidden):
    error_code = ErrorCode.CONTENT_TYPE_MISMATCH


class UploadTooLarge(StorageError, RequestTooLarge):
    error_code = ErrorCode.UPLOAD_TOO_LARGE


class UploadIncomplete(StorageError):
    error_code = ErrorCode.UPLOAD_INCOMPLETE
    default_detail = "The upload ended before all the bytes it announced arrived. Send the file again."
