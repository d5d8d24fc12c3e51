"""Client registration limited per client address: HYDRATA_OAUTH_REGISTER_RATE_LIMIT registrations an hour,
counted in the cache with DRF's throttle (as the agent rate limit is, hydrata/agents/throttles.py), though the
registration view is the library's plain Django view."""

import math
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from rest_framework.throttling import SimpleRateThrottle


class RegistrationRateThrottle(SimpleRateThrottle):
    scope = "oauth_register"

    def get_rate(self) -> str | None:
        limit = settings.HYDRATA_OAUTH_REGISTER_RATE_LIMIT
        return f"{limit}/hour" if limit > 0 else None

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": client_address(request)}


def client_address(request: HttpRequest) -> str:
    """REMOTE_ADDR, never X-Forwarded-For, which any client can write. Behind a proxy, the ASGI server puts the
    forwarded address there for the proxies it trusts (uvicorn: FORWARDED_ALLOW_IPS, by default 127.0.0.1)."""
    return str(request.META.get("REMOTE_ADDR", ""))


def registration_retry_after(request: HttpRequest) -> int | None:
    """Seconds until this address may register again, or None when it may now (the attempt is counted)."""
    throttle = RegistrationRateThrottle()
    if throttle.allow_request(request, None):  # type: ignore[arg-type]
        return None
    return max(1, math.ceil(throttle.wait() or 1))
