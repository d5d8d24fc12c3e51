"""Grant levels, enforced server-side: each view declares the level each HTTP method needs."""

from typing import TYPE_CHECKING

from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from hydrata.agents.models import LEVEL_RANK, AgentGrant
from hydrata.agents.selectors import account_is_paused
from hydrata.core.errors import AgentPaused, GrantLevelTooLow
from hydrata_contract.grants import GrantKind, GrantLevel

if TYPE_CHECKING:  # rest_framework.views reads this module's permission class at import time
    from rest_framework.views import APIView

SAFE_ALIASES = {"HEAD": "GET", "OPTIONS": "GET"}


def required_level(view: "APIView", method: str) -> str:
    levels: dict[str, str] = getattr(view, "grant_levels", {})
    method = SAFE_ALIASES.get(method, method)
    # A method the view never declared needs the highest level: fail closed.
    return levels.get(method, GrantLevel.LAUNCH)


class GrantLevelPermission(BasePermission):
    """Authenticated callers only. People signed in to the site act with their own full rights; agents act
    within their grant: refused while the account is paused, and refused below the level the method needs."""

    def has_permission(self, request: Request, view: "APIView") -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        grant = request.auth if isinstance(request.auth, AgentGrant) else None
        if grant is None:
            return True
        if account_is_paused(user=grant.user):
            raise AgentPaused()
        needed = required_level(view, request.method or "")
        if LEVEL_RANK[GrantLevel(grant.level)] < LEVEL_RANK[GrantLevel(needed)]:
            raise GrantLevelTooLow(level_refusal(grant, needed), required_level=needed, grant_level=grant.level)
        return True


def level_refusal(grant: AgentGrant, needed: str) -> str:
    if grant.kind == GrantKind.CONNECT:
        # Clients' automatic step-up is unreliable: say plainly what the person has to do.
        return (
            f"This action needs the {needed} level; this connection was granted {grant.level}. Disconnect and "
            f"connect again, choosing {needed} on the Hydrata consent page."
        )
    return (
        f"This action needs a {needed}-level agent grant; this grant is {grant.level}-level. "
        f"Ask the account owner for a {needed}-level key."
    )


def grant_of(request: Request) -> AgentGrant | None:
    return request.auth if isinstance(request.auth, AgentGrant) else None
