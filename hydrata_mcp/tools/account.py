from typing import Annotated

from mcp.server.mcpserver import Context

from hydrata_contract import paths
from hydrata_contract.answers.agents import AgentMe, CapabilitySuggestion
from hydrata_contract.requests.agents import CapabilitySuggestionCreate
from hydrata_mcp.bodies import body
from hydrata_mcp.client import PlatformClient
from hydrata_mcp.tools.projections import Projection, argument
from hydrata_mcp.tools.registry import tool


class AgentGrant(
    Projection,
    of=AgentMe,
    fields=(
        *("kind", "name", "level", "key_prefix", "account", "paused"),
        *("spend_used_this_month", "spend_limit_monthly", "expires_at", "last_used_at"),
    ),
):
    """The calling grant (the contract's AgentMe) without its ids and host."""


class Suggestion(Projection, of=CapabilitySuggestion, fields=("id", "summary")):
    """The recorded suggestion."""


@tool(title="Describe this grant", read_only=True, idempotent=True)
async def get_agent_grant(ctx: Context) -> AgentGrant:
    """The grant in use (agent key or signed-in app): level, account, paused, spend and limit, expiry. Call it
    when unsure what you may do."""
    api = PlatformClient.for_context(ctx)
    response = await api.get(paths.AGENT_ME.url())
    grant = AgentMe.model_validate(response.data)
    return AgentGrant.from_answer(grant)


@tool(title="Suggest a capability")
async def suggest_capability(
    ctx: Context,
    summary: Annotated[str, argument(CapabilitySuggestionCreate, "summary", "What you needed, in one line.")],
    details: Annotated[str, argument(CapabilitySuggestionCreate, "details", "Why, and what you tried instead.")] = "",
    workflow: Annotated[
        str, argument(CapabilitySuggestionCreate, "workflow", "The task you were doing when you needed it.")
    ] = "",
) -> Suggestion:
    """Tell the Hydrata team about something you needed that no tool does. It is recorded with its id."""
    api = PlatformClient.for_context(ctx)
    suggested = body(CapabilitySuggestionCreate, summary=summary, details=details, workflow=workflow)
    response = await api.post(paths.CAPABILITY_SUGGESTIONS.url(), json=suggested)
    suggestion = CapabilitySuggestion.model_validate(response.data)
    return Suggestion.from_answer(suggestion)
