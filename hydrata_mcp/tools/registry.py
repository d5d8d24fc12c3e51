"""The one tool registry: names, titles, annotations, and installation on the server."""

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import ConfigDict

TOOL_MODULES = (
    "hydrata_mcp.tools.projects",
    "hydrata_mcp.tools.terrain",
    "hydrata_mcp.tools.inputs",
    "hydrata_mcp.tools.time_series",
    "hydrata_mcp.tools.scenarios",
    "hydrata_mcp.tools.runs",
    "hydrata_mcp.tools.observations",
    "hydrata_mcp.tools.comparisons",
    "hydrata_mcp.tools.account",
)


@dataclass(frozen=True)
class ToolSpec:
    fn: Callable[..., Any]
    title: str
    read_only: bool
    destructive: bool
    idempotent: bool

    @property
    def name(self) -> str:
        return self.fn.__name__

    def annotations(self) -> ToolAnnotations:
        return ToolAnnotations(
            title=self.title,
            readOnlyHint=self.read_only,
            destructiveHint=self.destructive,
            idempotentHint=self.idempotent,
            openWorldHint=False,
        )


REGISTRY: dict[str, ToolSpec] = {}


def tool(
    *, title: str, read_only: bool = False, destructive: bool = False, idempotent: bool = False
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a tool. Its name is the function's (verb_noun); its description is the docstring."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        if fn.__name__ in REGISTRY:
            raise ValueError(f"Tool {fn.__name__} is registered twice")
        if not inspect.getdoc(fn):
            raise ValueError(f"Tool {fn.__name__} needs a docstring: it is the tool's description")
        REGISTRY[fn.__name__] = ToolSpec(fn, title, read_only, destructive, idempotent)
        return fn

    return register


def install_tools(server: MCPServer) -> None:
    for module in TOOL_MODULES:
        importlib.import_module(module)
    for spec in REGISTRY.values():
        server.add_tool(
            spec.fn,
            name=spec.name,
            title=spec.title,
            description=inspect.getdoc(spec.fn),
            annotations=spec.annotations(),
            structured_output=True,
        )
        _forbid_unknown_arguments(server, spec.name)


def _forbid_unknown_arguments(server: MCPServer, name: str) -> None:
    """A misspelt argument is an error the model sees, not a silently ignored key."""
    registered = server._tool_manager.get_tool(name)  # the SDK offers no public hook for argument models
    base = registered.fn_metadata.arg_model
    strict = type(base.__name__, (base,), {"model_config": ConfigDict(**base.model_config, extra="forbid")})
    registered.fn_metadata.arg_model = strict
    registered.parameters["additionalProperties"] = False
