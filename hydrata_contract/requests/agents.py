from pydantic import Field

from hydrata_contract.requests.base import Body

LONG_TEXT = 20000


class CapabilitySuggestionCreate(Body):
    summary: str = Field(min_length=1, max_length=300, description="What the agent could not do, in one line.")
    details: str = Field("", max_length=LONG_TEXT, description="What was tried and what was missing.")
    workflow: str = Field("", max_length=LONG_TEXT, description="The work the capability would have served.")
