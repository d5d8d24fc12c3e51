"""Argument types shared by the tools: one short description per idea."""

from typing import Annotated

from pydantic import Field, WithJsonSchema

from hydrata_contract.compute import ComputeBackend
from hydrata_contract.states import RunStatus

ProjectId = Annotated[int, Field(ge=1, description="From list_projects.")]
Page = Annotated[int, Field(ge=1, description="Page number, from 1.")]
PageSize = Annotated[int, Field(ge=1, le=100, description="Items per page.")]

# The contract's enums written inline in a tool's schema: pydantic would put each under $defs and point at it, which
# costs every client ~60 bytes of the catalog per tool on every turn for the same list.
ComputeBackendChoice = Annotated[
    ComputeBackend, WithJsonSchema({"type": "string", "enum": ComputeBackend.values()}, mode="validation")
]
RunStatusChoice = Annotated[
    RunStatus, WithJsonSchema({"type": "string", "enum": RunStatus.values()}, mode="validation")
]
