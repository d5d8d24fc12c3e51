"""The Client ID Metadata Document fetcher (CIMD_METADATA_FETCHER): the library's SSRF-hardened one, except for
hosts the operator lists in HYDRATA_CIMD_PRIVATE_HOSTS (an intranet, a test server), whose documents may come from
a private address. Everything else stays the library's: https only, no redirects, a deadline, a size cap, JSON
only, and the document's `client_id` bound to its URL. On top, a document is read as a registration is
(hydrata/oauth/metadata.py) and held to the same policy (client_metadata_problem in hydrata/oauth/policy.py);
a document refused for either says why on the authorize page."""

import hashlib
from typing import Any
from urllib.parse import urlsplit

import urllib3
from django.conf import settings
from django.core.cache import cache
from oauth2_provider import cimd
from oauth2_provider.settings import oauth2_settings

from hydrata.oauth.metadata import MetadataRefused, client_metadata
from hydrata.oauth.policy import client_metadata_problem

REFUSAL_CACHE_PREFIX = "hydrata:cimd:refused:"


class DocumentRefused(cimd.CIMDError):
    """A document this server read and will not use. The reason is written here and safe to show."""


class MetadataFetcher(cimd.SafeMetadataFetcher):
    def fetch(self, client_id: str) -> tuple[dict[str, Any], int]:
        try:
            metadata, max_age = self._fetched(client_id)
            problem = client_metadata_problem(metadata)
            if problem is not None:
                raise DocumentRefused(problem.description)
        except DocumentRefused as refused:
            _remember_refusal(client_id, str(refused))
            raise
        except cimd.CIMDError as failed:
            _remember_refusal(client_id, unfetched_document_reason(client_id, str(failed)))
            raise
        return metadata, max_age

    def _fetched(self, client_id: str) -> tuple[dict[str, Any], int]:
        if urlsplit(client_id).hostname not in settings.HYDRATA_CIMD_PRIVATE_HOSTS:
            return super().fetch(client_id)
        cimd._validate_client_id_url(client_id)
        pool = urllib3.PoolManager(
            timeout=urllib3.Timeout(total=oauth2_settings.CIMD_FETCH_TIMEOUT_SECONDS), retries=False
        )
        try:
            response = pool.request(
                "GET", client_id, headers={"Accept": "application/json"}, redirect=False, preload_content=False
            )
        except urllib3.exceptions.HTTPError as error:
            raise cimd.CIMDError(f"could not fetch client_id document: {error}") from error
        try:
            return self._read_document(response)
        finally:
            response.release_conn()
            pool.clear()

    def _read_document(self, response: Any) -> tuple[dict[str, Any], int]:
        """The library's checks (status 200, a JSON media type, CIMD_MAX_DOCUMENT_SIZE), then the body read by
        client_metadata instead of a bare json.loads, which recursed into a deeply nested document."""
        if response.status != 200:
            raise cimd.CIMDError(f"client_id document returned HTTP {response.status}")
        media_type = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if media_type != "application/json" and not (
            media_type.startswith("application/") and media_type.endswith("+json")
        ):
            raise cimd.CIMDError("client_id document is not JSON")
        max_size = oauth2_settings.CIMD_MAX_DOCUMENT_SIZE
        body = response.read(max_size + 1)
        try:
            metadata = client_metadata(body, max_bytes=max_size)
        except MetadataRefused as refused:
            raise DocumentRefused(str(refused)) from None
        return metadata, cimd._effective_max_age(response.headers.get("Cache-Control"))


def _remember_refusal(client_id: str, reason: str) -> None:
    """The library turns every failure into "unknown client" ("Invalid client_id parameter value") and backs the
    URL off for a while; the reason is kept as long, for the authorize page (ConnectValidator.validate_client_id)."""
    cache.set(_refusal_key(client_id), reason, oauth2_settings.CIMD_FAILURE_BACKOFF_SECONDS)


# The library's fetch failures, by how their messages begin, in words for the person on the authorize page (its
# own words carry connection internals).
FETCH_FAILURES = {
    "could not resolve": "its host name could not be resolved",
    "could not fetch": "no connection to it could be made",
    "client_id document returned HTTP": "it did not answer with the document",
    "client_id host resolves to a non-public address": "its host resolves to a private address, which this server "
    "fetches from only for the hosts in HYDRATA_CIMD_PRIVATE_HOSTS",
}


def unfetched_document_reason(client_id: str, failure: str) -> str:
    """Why the document could not be had, and the two ways out: let this server reach it, or let the app register
    itself instead (dynamic client registration, which needs no fetch)."""
    why = next((words for start, words in FETCH_FAILURES.items() if failure.startswith(start)), failure)
    return (
        f"This server could not fetch it from {client_id} ({why}), so it cannot tell which app is asking. A "
        "machine without internet access cannot reach it. To fix it, let this server reach that address over "
        "https (internet access or a proxy), or start the server with HYDRATA_CIMD_ALLOWED_HOSTS= (empty), which "
        "turns metadata documents off: the app then registers itself with this server (dynamic client "
        "registration) when you connect it again. An agent key from the Agents page works without signing in."
    )


def document_refusal(client_id: str) -> str | None:
    """Why this client's metadata document was refused lately, if it was."""
    reason = cache.get(_refusal_key(client_id))
    return reason if isinstance(reason, str) else None


def _refusal_key(client_id: str) -> str:
    return REFUSAL_CACHE_PREFIX + hashlib.sha256(client_id.encode("utf-8", "surrogatepass")).hexdigest()
