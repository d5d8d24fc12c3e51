"""Argument types shared by the tools: one short description per idea."""

from typing import Annotated

from pydantic import Field

ProjectId = Annotated[int, Field(ge=1, description="From list_projects.")]
Page = Annotated[int, Field(ge=1, description="Page number, from 1.")]
PageSize = Annotated[int, Field(ge=1, le=100, description="Items per page.")]
