"""Argument types shared by the tools: one description per idea."""

from typing import Annotated

from pydantic import Field

ProjectId = Annotated[int, Field(ge=1, description="The project's id, from list_projects or create_project.")]
Page = Annotated[int, Field(ge=1, description="Page number, from 1.")]
PageSize = Annotated[int, Field(ge=1, le=100, description="Items per page, at most 100.")]
