"""Who this authorization server is and what it protects, read from django-oauth-toolkit's settings so that what
the metadata advertises and what the tokens are checked against can never differ."""

from django.conf import settings
from oauth2_provider.settings import oauth2_settings

from hydrata_contract.grants import GrantLevel

LEVEL_SCOPES = tuple(GrantLevel.values())


def connect_flow_on() -> bool:
    return bool(settings.HYDRATA_CONNECT_FLOW)


def issuer() -> str:
    """The tokens' `iss` and the metadata's `issuer`: the site itself."""
    return str(oauth2_settings.OIDC_ISS_ENDPOINT)


def mcp_resource() -> str:
    """The canonical MCP URL: the only accepted RFC 8707 `resource`, and the tokens' `aud`."""
    return str(oauth2_settings.OAUTH2_PROTECTED_RESOURCE_IDENTIFIER)
