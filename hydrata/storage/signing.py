"""Signed URLs for the local backend: this server issues them and this server checks them.

A URL carries its expiry and an HMAC-SHA256 (keyed from SECRET_KEY) over the method, the key, the expiry
and either the Content-Type a PUT must send or the filename a GET is saved under. Changing any of them,
or the path, breaks the signature.
"""

import base64
import json
import time
from collections.abc import Mapping
from urllib.parse import urlencode

from django.conf import settings
from django.urls import reverse
from django.utils.crypto import constant_time_compare, salted_hmac

from hydrata.storage.errors import ContentTypeMismatch, SignatureInvalid, UrlExpired
from hydrata.storage.keys import validate_key

SIGNATURE_PARAM = "X-Hydrata-Signature"
SIGNING_PURPOSE = "hydrata.storage.signed-url"


def signed_upload_url(*, key: str, content_type: str, expires_in: int) -> str:
    validate_key(key)
    expires = _expiry(expires_in)
    signature = _signature(method="PUT", key=key, bound_value=content_type, expires=expires)
    query: dict[str, str | int] = {"expires": expires, "content_type": content_type, SIGNATURE_PARAM: signature}
    return _absolute_url("storage:upload", key=key, query=query)


def signed_download_url(*, key: str, expires_in: int, filename: str | None = None) -> str:
    validate_key(key)
    expires = _expiry(expires_in)
    signature = _signature(method="GET", key=key, bound_value=filename or "", expires=expires)
    query: dict[str, str | int] = {"expires": expires}
    if filename:
        query["filename"] = filename
    query[SIGNATURE_PARAM] = signature
    return _absolute_url("storage:download", key=key, query=query)


def verify_upload(*, key: str, query: Mapping[str, str], request_content_type: str) -> None:
    """Accept the PUT, or raise the refusal that says what is wrong with it."""
    signed_content_type = query.get("content_type")
    if signed_content_type is None:
        raise SignatureInvalid()
    _verify(method="PUT", key=key, bound_value=signed_content_type, query=query)
    if request_content_type != signed_content_type:
        raise ContentTypeMismatch(
            f"This link accepts Content-Type {signed_content_type!r} exactly, but the request sent "
            f"{request_content_type!r}. Send the file again with that Content-Type header."
        )


def verify_download(*, key: str, query: Mapping[str, str]) -> str | None:
    """Accept the GET and return the filename it was signed with, or raise the refusal."""
    filename = query.get("filename") or None
    _verify(method="GET", key=key, bound_value=filename or "", query=query)
    return filename


def _verify(*, method: str, key: str, bound_value: str, query: Mapping[str, str]) -> None:
    try:
        expires = int(query.get("expires", ""))
    except ValueError:
        raise SignatureInvalid() from None
    expected = _signature(method=method, key=key, bound_value=bound_value, expires=expires)
    # Checked before the expiry so that a link whose expiry was edited reads as tampered, not as expired.
    if not constant_time_compare(expected, query.get(SIGNATURE_PARAM, "")):
        raise SignatureInvalid()
    if time.time() > expires:
        raise UrlExpired()


def _signature(*, method: str, key: str, bound_value: str, expires: int) -> str:
    # JSON keeps the fields apart: no choice of content type or filename can imitate another field.
    message = json.dumps([method, key, bound_value, expires])
    digest = salted_hmac(SIGNING_PURPOSE, message, algorithm="sha256").digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _expiry(expires_in: int) -> int:
    return int(time.time()) + int(expires_in)


def _absolute_url(view_name: str, *, key: str, query: Mapping[str, str | int]) -> str:
    path = reverse(view_name, kwargs={"key": key})
    return f"{settings.HYDRATA_SITE_URL.rstrip('/')}{path}?{urlencode(query)}"
