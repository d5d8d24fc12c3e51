"""Links into the site's map for people: the same shape the MCP hand-back builds (hydrata_mcp/handback.py)."""

from urllib.parse import urlencode

from django.conf import settings


def map_url(*, base_map: int, panel: str | None = None, scenario: int | None = None, run: int | None = None) -> str:
    named = (("panel", panel), ("scenario", scenario), ("run", run))
    params = {key: value for key, value in named if value is not None}
    return f"{settings.HYDRATA_SITE_URL}/catalogue/#/map/{base_map}" + (f"?{urlencode(params)}" if params else "")
