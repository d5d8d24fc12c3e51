"""A system check: every DRF view the URLconf reaches declares the agent-grant level of each method it serves.

It looks at every DRF view, whatever its permission_classes or get_permissions() say: a view that dropped
GrantLevelPermission is the one most in need of the check. A view that must not declare levels is listed in
GRANT_LEVEL_EXEMPT with the reason, and each exemption is reported (hydrata.I001) so that none goes unseen.
"""

from collections.abc import Iterator
from typing import Any

from django.core.checks import CheckMessage, Error, Info, register
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.views import APIView

from hydrata_contract.grants import GrantLevel

IGNORED_METHODS = {"options", "head"}

# "module.QualifiedName" of a DRF view -> why it declares no grant levels.
GRANT_LEVEL_EXEMPT: dict[str, str] = {}


def _drf_views(patterns: list[Any], prefix: str = "") -> Iterator[tuple[str, type[APIView], dict[str, str] | None]]:
    """(route, view class, viewset actions or None) for every DRF view under the patterns."""
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from _drf_views(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            view_class = getattr(pattern.callback, "cls", None)
            if isinstance(view_class, type) and issubclass(view_class, APIView):
                yield route, view_class, getattr(pattern.callback, "actions", None)


def _served(view_class: type[APIView], actions: dict[str, str] | None) -> list[str]:
    methods = actions.keys() if actions else [m for m in view_class.http_method_names if hasattr(view_class, m)]
    return [m.upper() for m in methods if m not in IGNORED_METHODS]


def _undeclared(view_class: type[APIView], actions: dict[str, str] | None = None) -> list[str]:
    levels: dict[str, str] = getattr(view_class, "grant_levels", {})
    return [m for m in _served(view_class, actions) if levels.get(m) not in GrantLevel.values()]


def _name(view_class: type) -> str:
    return f"{view_class.__module__}.{view_class.__qualname__}"


@register()
def check_grant_levels_declared(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    messages: list[CheckMessage] = []
    seen: set[type] = set()
    for route, view_class, actions in _drf_views(get_resolver().url_patterns):
        if view_class in seen:
            continue
        seen.add(view_class)
        if _name(view_class) in GRANT_LEVEL_EXEMPT:
            messages.append(
                Info(
                    f"{_name(view_class)} (/{route}) is exempt from grant levels: "
                    f"{GRANT_LEVEL_EXEMPT[_name(view_class)]}",
                    obj=view_class,
                    id="hydrata.I001",
                )
            )
            continue
        missing = _undeclared(view_class, actions)
        if missing:
            messages.append(
                Error(
                    f"{_name(view_class)} (/{route}) serves {', '.join(missing)} without declaring the "
                    "agent-grant level it needs.",
                    hint="Set grant_levels = {'GET': 'read', 'POST': 'draft', ...} on the view, or list it with a "
                    "reason in hydrata.agents.checks.GRANT_LEVEL_EXEMPT.",
                    obj=view_class,
                    id="hydrata.E001",
                )
            )
    return messages
