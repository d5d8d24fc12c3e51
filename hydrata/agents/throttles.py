"""A request-rate limit per agent grant, counted in the cache: HYDRATA_AGENT_RATE_LIMIT requests a minute."""

from typing import TYPE_CHECKING

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from hydrata.agents.permissions import grant_of

if TYPE_CHECKING:  # rest_framework.views reads this module's throttle class at import time
    from rest_framework.views import APIView


class GrantRateThrottle(SimpleRateThrottle):
    scope = "agent_grant"

    def get_rate(self) -> str | None:
        limit = settings.HYDRATA_AGENT_RATE_LIMIT
        return f"{limit}/min" if limit > 0 else None

    def get_cache_key(self, request: Request, view: "APIView") -> str | None:
        grant = grant_of(request)
        if grant is None:
            return None  # people signed in on the site act with their own rights and are not throttled here
        # The prefix as well as the id: a test database may hand a deleted grant's id to a new grant.
        return self.cache_format % {"scope": self.scope, "ident": f"{grant.pk}-{grant.key_prefix}"}
