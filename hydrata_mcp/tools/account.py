from datetime import datetime
from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from hydrata_contract import paths
from hydrata_contract.requests.agents import CapabilitySuggestionCreate
from hydrata_mcp.bodies import body
from hydrata_mcp.client import PlatformClient
from hydrata_mcp.tools.registry import tool


class AgentGrant(BaseModel):
    kind: str = Field(description="'key' (an agent key) or 'connect' (an app connected by signing in).")
    name: str = Field(description="The key's name, or the connected app's name.")
    level: str = Field(description="read < draft < launch: what this grant may do.")
    key_prefix: str = Field(description="The first characters of the key, for recognising it; empty when connected.")
    account: str = Field(description="The account the key acts for.")
    paused: bool = Field(description="True while the owner has paused all agent access.")
    spend_used_this_month: str = Field(description="Agent spend this calendar month, in USD.")
    spend_limit_monthly: str | None = Field(description="The monthly agent spend limit in USD; null = none.")
    expires_at: datetime | None
    last_used_at: datetime | None


class Suggestion(BaseModel):
    id: int = Field(description="The recorded suggestion's id.")
    summary: str


@tool(title="Describe this grant", read_only=True, idempotent=True)
async def get_agent_grant(ctx: Context) -> AgentGrant:
    """The grant in use (agent key or signed-in app): level, account, paused, spend and limit, expiry. Call it
    when unsure what you may do."""
    api = PlatformClient.for_context(ctx)
    response = await api.get(paths.AGENT_ME.url())
    return AgentGrant(**{name: response.data.get(name) for name in AgentGrant.model_fields})


@tool(title="Suggest a capability")
async def suggest_capability(
    ctx: Context,
    summary: Annotated[str, Field(min_length=1, max_length=300, description="What you needed, in one line.")],
    details: Annotated[str, Field(max_length=20000, description="Why, and what you tried instead.")] = "",
    workflow: Annotated[str, Field(max_length=20000, description="The task you were doing when you needed it.")] = "",
) -> Suggestion:
    """Tell the Hydrata team about something you needed that no tool does. It is recorded with its id."""
    api = PlatformClient.for_context(ctx)
    suggested = body(CapabilitySuggestionCreate, summary=summary, details=details, workflow=workflow)
    response = await api.post(paths.CAPABILITY_SUGGESTIONS.url(), json=suggested)
    return Suggestion(id=response.data["id"], summary=response.data["summary"])
