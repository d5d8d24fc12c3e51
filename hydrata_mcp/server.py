"""The MCP server: its instructions and its tools."""

import functools
from typing import Any

from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from hydrata_contract import paths
from hydrata_mcp import __version__
from hydrata_mcp.tools.registry import registered_tools
from hydrata_mcp.ui.resource import app_only_tools_hidden, map_app

INSTRUCTIONS = f"""\
Hydrata builds and runs ANUGA flood models. You act for a flood engineer, within the level of the agent key
you were given (read < draft < launch); the platform enforces it and tells you the level a refusal needs.
Reading needs read; tools that change something need draft; start_simulation, cancel_run and retry_run need
launch.

How to work:
- Results that change something carry `ui_url`, `summary` and `say_to_user`. After each layer, terrain or
  scenario lands, give the user the `ui_url` link so they can check it in the map, and relay `say_to_user`.
- The numbers in `summary` are real readings of the data; quote them rather than guessing.
- Never call start_simulation until the user has looked at the model and said to run it: a run spends money.
- Ids come from the list_ and create_ tools (a project's from list_projects, a run's from start_simulation).
- No tool accepts file contents. Terrain: presign_terrain_upload, PUT the file to its upload_url with the
  returned Content-Type, then finalize_terrain_upload. A GeoJSON layer (inputs, observation points): POST it as
  multipart field `base_file` to {paths.UPLOAD.url()} with the same Authorization header; it answers
  {{"execution_id": ...}}, which attach_input_layer or import_observations takes. An ARR design input (the BoM
  IFD depths CSV, the Data Hub's *_Increments.csv or its .txt of losses): POST it as multipart fields `kind`
  (ifd, temporal_patterns or storm_losses) and `base_file` to
  {paths.DESIGN_INPUTS.shown()}; it answers {{"id": ...}}, which create_design_study takes
  as ifd, temporal_patterns or losses.
- Waiting tools (timeout_seconds) return outcome `timed_out` as a normal result: call them again with the
  same arguments. Paginated tools (page): ask for next_page while it is not null.
- A refusal carries a machine code (e.g. MESH_TOO_LARGE, BOUNDARY_NO_EXTERNAL); relay its detail.
- When you need something no tool does, call suggest_capability with what you needed and why.
"""


class HydrataMCPServer(MCPServer):
    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None, context: Any = None) -> Any:
        """An unknown prompt is the caller's mistake (-32602 "Unknown prompt"): the SDK's own ValueError reaches a
        2026-07-28 client as "Internal server error" (found by the conformance suite)."""
        if name not in {prompt.name for prompt in await self.list_prompts()}:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown prompt: {name}")
        return await super().get_prompt(name, arguments, context)


@functools.cache
def mcp_server() -> MCPServer:
    return HydrataMCPServer(
        name="hydrata",
        title="Hydrata",
        description="Build, run and check ANUGA flood models on Hydrata.",
        instructions=INSTRUCTIONS,
        version=__version__,
        tools=registered_tools(),
        extensions=[map_app()],
        middleware=[app_only_tools_hidden],
        # No `subscriptions/listen` (2026-07-28): nothing here ever changes while a process runs (the tools,
        # prompts and resources, the ui:// map among them, are fixed per deploy, and a deploy replaces the
        # process, which could not tell a client's stream anyway), so a stream would carry nothing. Without it
        # the SDK advertises no listChanged and no resources.subscribe in either era, and the method is
        # -32601 (404), as the specification asks of a method a server does not implement;
        # docs/mcp-conformance.md quotes the passages.
        subscriptions=False,
    )


@functools.cache
def lowlevel_server() -> Server:
    """The low-level server under `mcp_server()`, for the session manager the view builds per request.

    The SDK's public road to it is the session manager of `streamable_http_app()`. That manager itself is no
    use here: it runs once for the life of an app (Django runs no ASGI lifespan), and it answers JSON or SSE
    for good, while this view chooses per request. So the app is built only to read its server.
    """
    server = mcp_server()
    server.streamable_http_app(stateless_http=True)
    return server.session_manager.app
