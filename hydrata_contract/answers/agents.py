"""The agents API's answers: the calling grant, and a capability an agent asked for."""

from datetime import datetime

from pydantic import Field

from hydrata_contract.answers.base import Answer
from hydrata_contract.grants import GrantKind, GrantLevel


class AgentMe(Answer):
    """AgentMeView: the calling grant."""

    id: int
    kind: GrantKind
    name: str
    level: GrantLevel
    key_prefix: str = Field(description="Empty for a connected app.")
    client_host: str = Field(description="Empty for an agent key.")
    account: str
    paused: bool
    spend_used_this_month: str = Field(description="A decimal amount in `currency`.")
    spend_limit_monthly: str | None = Field(description="A decimal amount; null for no limit.")
    currency: str
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None


class CapabilitySuggestion(Answer):
    id: int
    summary: str
    created_at: datetime
