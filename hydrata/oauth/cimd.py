"""The Client ID Metadata Document fetcher (CIMD_METADATA_FETCHER): the library's SSRF-hardened one, except for
hosts the operator lists in HYDRATA_CIMD_PRIVATE_HOSTS (an intranet, a test server), whose documents may come from
a private address. Everything else stays the library's: https only, no redirects, a deadline, a size cap, JSON
only, and the document's `client_id` bound to its URL."""

from typing import Any
from urllib.parse import urlsplit

import urllib3
from django.conf import settings
from oauth2_provider import cimd
from oauth2_provider.settings import oauth2_settings


class MetadataFetcher(cimd.SafeMetadataFetcher):
    def fetch(self, client_id: str) -> tuple[dict[str, Any], int]:
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
