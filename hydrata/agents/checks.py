"""A system check: every API view guarded by grant levels declares the level of each method it serves."""

from collections.abc import Iterator
from typing import Any

from django.core.checks import Error, register
from django.urls import URLPattern, URLResolver, get_resolver

from hydrata.agents.models import GrantLevel
from hydrata.agents.permissions import GrantLevelPermission

IGNORED_METHODS = {"options", "head"}


def _view_classes(patterns: list[Any]) -> Iterator[type]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _view_classes(pattern.url_patterns)
        elif isinstance(pattern, URLPattern):
            view_class = getattr(pattern.callback, "cls", None)
            if view_class is not None:
                yield view_class


def _undeclared(view_class: type) -> list[str]:
    if not any(issubclass(p, GrantLevelPermission) for p in getattr(view_class, "permission_classes", [])):
        return []
    levels: dict[str, str] = getattr(view_class, "grant_levels", {})
    served = [
        m.upper()
        for m in getattr(view_class, "http_method_names", [])
        if m not in IGNORED_METHODS and hasattr(view_class, m)
    ]
    return [m for m in served if levels.get(m) not in GrantLevel.values]


@register()
def check_grant_levels_declared(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    errors = []
    for view_class in set(_view_classes(get_resolver().url_patterns)):
        missing = _undeclared(view_class)
        if missing:
            errors.append(
                Error(
                    f"{view_class.__module__}.{view_class.__qualname__} serves {', '.join(missing)} "
                    "without declaring the agent-grant level it needs.",
                    hint="Set grant_levels = {'GET': 'read', 'POST': 'draft', ...} on the view.",
                    obj=view_class,
                    id="hydrata.E001",
                )
            )
    return errors
