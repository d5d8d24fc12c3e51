"""The one tool registry: names, titles, annotations, the names in results clients rely on, and the SDK tools
built from them, publishing lean schemas (hydrata_mcp.tools.schemas)."""

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from mcp_types import ToolAnnotations
from pydantic import ConfigDict, ValidationError

from hydrata_mcp.handback import HandBack
from hydrata_mcp.tools.argument_errors import argument_problem
from hydrata_mcp.tools.schemas import published_input_schema, published_output_schema
from hydrata_mcp.ui import ui_meta

TOOL_MODULES = (
    "hydrata_mcp.tools.projects",
    "hydrata_mcp.tools.terrain",
    "hydrata_mcp.tools.inputs",
    "hydrata_mcp.tools.time_series",
    "hydrata_mcp.tools.scenarios",
    "hydrata_mcp.tools.runs",
    "hydrata_mcp.tools.results",
    "hydrata_mcp.tools.reports",
    "hydrata_mcp.tools.observations",
    "hydrata_mcp.tools.comparisons",
    "hydrata_mcp.tools.studies",
    "hydrata_mcp.tools.calibration",
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
    relied_on: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.fn.__name__

    def annotations(self) -> ToolAnnotations:
        """The title and the hints. A hint whose value is the spec's default for an absent one (readOnlyHint and
        idempotentHint false) is left out: a client reads the same, and the catalog is a line shorter per tool.
        destructiveHint and openWorldHint default to true, so their false is always said."""
        return ToolAnnotations(
            title=self.title,
            read_only_hint=self.read_only or None,
            destructive_hint=self.destructive,
            idempotent_hint=self.idempotent or None,
            open_world_hint=False,
        )

    def to_tool(self) -> Tool:
        # The title twice, as each reader looks for it: the top-level `title` clients show first (the 2025-06-18
        # spec on), and the `annotations.title` TOOLS.md names and older clients read.
        built = Tool.from_function(
            self.fn,
            name=self.name,
            title=self.title,
            description=inspect.getdoc(self.fn),
            annotations=self.annotations(),
            meta=ui_meta(name=self.name, app_only=self.app_only),
            structured_output=True,
        )
        return _publishing_lean_output(built, relied_on=self.relied_on)


REGISTRY: dict[str, ToolSpec] = {}


def tool(
    *,
    title: str,
    read_only: bool = False,
    destructive: bool = False,
    idempotent: bool = False,
    app_only: bool = False,
    relied_on: tuple[str, ...] = (),
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a tool. Its name is the function's (verb_noun); its description is the docstring. An `app_only`
    tool serves the map view (hydrata_mcp.ui) and is kept out of the model's catalog. `relied_on` names the keys
    of its result clients rely on (TOOLS.md "Names in results"; dotted for a nested key, e.g. "points.x"): its
    output schema publishes those, typed and required; without it, every top-level key of the result. A
    hand-back result relies on the hand-back keys without saying so."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        if fn.__name__ in REGISTRY:
            raise ValueError(f"Tool {fn.__name__} is registered twice")
        if not inspect.getdoc(fn):
            raise ValueError(f"Tool {fn.__name__} needs a docstring: it is the tool's description")
        REGISTRY[fn.__name__] = ToolSpec(fn, title, read_only, destructive, idempotent, app_only, relied_on)
        return fn

    return register


def registered_tools() -> list[Tool]:
    """Every tool of TOOL_MODULES, ready for `MCPServer(tools=...)`."""
    for module in TOOL_MODULES:
        importlib.import_module(module)
    return [_forbidding_unknown_arguments(spec.to_tool()) for spec in in_catalog_order()]


def in_catalog_order() -> list[ToolSpec]:
    """The registry in TOOL_MODULES' order, each module's tools as written: REGISTRY fills in import order, which a
    process that imported one tools module early (a test, a script) would change."""
    position = {module: index for index, module in enumerate(TOOL_MODULES)}
    return sorted(
        REGISTRY.values(),
        key=lambda spec: (position.get(spec.fn.__module__, len(position)), spec.fn.__code__.co_firstlineno),
    )


class RegisteredTool(Tool):
    """The SDK's tool, telling a call whose arguments fail validation what to put right, in sentences (pydantic's
    own report, with its type tags and links, never reaches the model)."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        try:
            return await super().run(arguments, context, convert_result)
        except ToolError as error:
            cause, arguments_model = error.__cause__, self.fn_metadata.arg_model
            if not (isinstance(cause, ValidationError) and cause.title == arguments_model.__name__):
                raise  # the tool's own refusal, already told as the tool chose
            schema = arguments_model.model_json_schema(by_alias=True)
            problem = argument_problem(tool=self.name, error=cause, schema=schema)
            raise ToolError(f"Error executing tool {self.name}: {problem}") from None


def _forbidding_unknown_arguments(built: Tool) -> Tool:
    """A misspelt argument is an error the model sees, not a silently ignored key.

    The SDK builds a tool's argument model from its signature with no say over the model's config, so the
    tool is copied with a subclass of that model that forbids extra keys, and the schema it publishes.
    """
    loose = built.fn_metadata.arg_model
    namespace = {"__module__": loose.__module__, "model_config": ConfigDict(extra="forbid")}
    strict = cast(type[ArgModelBase], type(loose.__name__, (loose,), namespace))
    metadata = built.fn_metadata.model_copy(update={"arg_model": strict})
    parameters = published_input_schema(strict.model_json_schema(by_alias=True))
    fields = {name: getattr(built, name) for name in Tool.model_fields}
    return RegisteredTool.model_construct(**{**fields, "fn_metadata": metadata, "parameters": parameters})


def _publishing_lean_output(built: Tool, *, relied_on: tuple[str, ...]) -> Tool:
    """The SDK reads `output_schema` live for what it publishes and `output_model` for what it validates, so
    only the published schema slims: results are still checked against, and keep, every field of the model."""
    metadata = built.fn_metadata
    if metadata.output_schema is None:
        return built
    model = metadata.output_model
    hand_back = tuple(HandBack.model_fields) if isinstance(model, type) and issubclass(model, HandBack) else ()
    lean = published_output_schema(metadata.output_schema, relied_on=(*hand_back, *relied_on), every_key=not relied_on)
    return built.model_copy(update={"fn_metadata": metadata.model_copy(update={"output_schema": lean})})
