"""The one tool registry: names, titles, annotations, and the SDK tools built from them."""

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from mcp_types import ToolAnnotations
from pydantic import ConfigDict

from hydrata_mcp.ui import ui_meta

TOOL_MODULES = (
    "hydrata_mcp.tools.projects",
    "hydrata_mcp.tools.terrain",
    "hydrata_mcp.tools.inputs",
    "hydrata_mcp.tools.time_series",
    "hydrata_mcp.tools.scenarios",
    "hydrata_mcp.tools.runs",
    "hydrata_mcp.tools.results",
    "hydrata_mcp.tools.observations",
    "hydrata_mcp.tools.comparisons",
    "hydrata_mcp.tools.account",
    "hydrata_mcp.ui.tools",
)


@dataclass(frozen=True)
class ToolSpec:
    fn: Callable[..., Any]
    title: str
    read_only: bool
    destructive: bool
    idempotent: bool
    app_only: bool = False

    @property
    def name(self) -> str:
        return self.fn.__name__

    def annotations(self) -> ToolAnnotations:
        return ToolAnnotations(
            title=self.title,
            read_only_hint=self.read_only,
            destructive_hint=self.destructive,
            idempotent_hint=self.idempotent,
            open_world_hint=False,
        )

    def to_tool(self) -> Tool:
        return Tool.from_function(
            self.fn,
            name=self.name,
            title=self.title,
            description=inspect.getdoc(self.fn),
            annotations=self.annotations(),
            meta=ui_meta(name=self.name, app_only=self.app_only),
            structured_output=True,
        )


REGISTRY: dict[str, ToolSpec] = {}


def tool(
    *,
    title: str,
    read_only: bool = False,
    destructive: bool = False,
    idempotent: bool = False,
    app_only: bool = False,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a tool. Its name is the function's (verb_noun); its description is the docstring. An `app_only`
    tool serves the map view (hydrata_mcp.ui) and is kept out of the model's catalog."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        if fn.__name__ in REGISTRY:
            raise ValueError(f"Tool {fn.__name__} is registered twice")
        if not inspect.getdoc(fn):
            raise ValueError(f"Tool {fn.__name__} needs a docstring: it is the tool's description")
        REGISTRY[fn.__name__] = ToolSpec(fn, title, read_only, destructive, idempotent, app_only)
        return fn

    return register


def registered_tools() -> list[Tool]:
    """Every tool of TOOL_MODULES, ready for `MCPServer(tools=...)`."""
    for module in TOOL_MODULES:
        importlib.import_module(module)
    return [_forbidding_unknown_arguments(spec.to_tool()) for spec in REGISTRY.values()]


def _forbidding_unknown_arguments(built: Tool) -> Tool:
    """A misspelt argument is an error the model sees, not a silently ignored key.

    The SDK builds a tool's argument model from its signature with no say over the model's config, so the
    tool is copied with a subclass of that model that forbids extra keys, and the schema it publishes.
    """
    loose = built.fn_metadata.arg_model
    namespace = {"__module__": loose.__module__, "model_config": ConfigDict(extra="forbid")}
    strict = cast(type[ArgModelBase], type(loose.__name__, (loose,), namespace))
    metadata = built.fn_metadata.model_copy(update={"arg_model": strict})
    return built.model_copy(update={"fn_metadata": metadata, "parameters": strict.model_json_schema(by_alias=True)})
