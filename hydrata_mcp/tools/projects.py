from datetime import datetime
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from hydrata_contract import paths
from hydrata_contract.requests.projects import ProjectCreate
from hydrata_mcp.bodies import body
from hydrata_mcp.client import PlatformClient
from hydrata_mcp.handback import HandBack
from hydrata_mcp.pagination import page_numbers
from hydrata_mcp.tools.arguments import Page, PageSize, ProjectId
from hydrata_mcp.tools.registry import tool


class Project(BaseModel):
    id: int
    name: str
    projection: str = Field(description="EPSG code of the project's CRS (projected, metres).")
    visibility: str = Field(description="public or private")
    role: str | None = Field(description="The caller's role: owner, editor, viewer, or public (read-only).")
    owner: str
    base_map: int = Field(description="The id of the project's map in the Hydrata catalogue.")
    created_at: datetime
    updated_at: datetime
    ui_url: str = Field(description="Opens the project's map in Hydrata.")


class ProjectPage(BaseModel):
    count: int = Field(description="How many projects the caller can see in all.")
    next_page: int | None = Field(description="The next page number, or null on the last page.")
    previous_page: int | None
    results: list[Project]


class CreatedProject(Project, HandBack):
    pass


def _project(record: dict[str, Any]) -> Project:
    return Project.model_validate({name: record.get(name) for name in Project.model_fields})


@tool(title="List projects", read_only=True, idempotent=True)
async def list_projects(ctx: Context, page: Page = 1, page_size: PageSize = 100) -> ProjectPage:
    """List the projects this account can see (own, shared and public), newest first."""
    api = PlatformClient.for_context(ctx)
    response = await api.get(paths.PROJECTS.url(), params={"page": page, "page_size": page_size})
    return ProjectPage(**page_numbers(response.data), results=[_project(r) for r in response.data["results"]])


@tool(title="Get a project", read_only=True, idempotent=True)
async def get_project(ctx: Context, project_id: ProjectId) -> Project:
    """Read a project: name, projection, visibility, the caller's role, base map and map link."""
    api = PlatformClient.for_context(ctx)
    response = await api.get(paths.PROJECT_DETAIL.url(project_id=project_id))
    return _project(response.data)


@tool(title="Create a project", relied_on=("id",))
async def create_project(
    ctx: Context,
    name: Annotated[str, Field(min_length=1, max_length=200, description="A name the engineer will recognise.")],
    projection: Annotated[
        str, Field(description="EPSG code of a projected CRS in metres, e.g. EPSG:28356; EPSG:4326 is refused.")
    ],
) -> CreatedProject:
    """Create a private project owned by the caller's account; terrain, inputs and scenarios live inside it."""
    api = PlatformClient.for_context(ctx)
    response = await api.post(paths.PROJECTS.url(), json=body(ProjectCreate, name=name, projection=projection))
    project = _project(response.data)
    return CreatedProject(
        **project.model_dump(),
        summary={"id": project.id, "name": project.name, "projection": project.projection},
        say_to_user=f"I created the project '{project.name}' in {project.projection}; you can open it here: "
        f"{project.ui_url}",
    )
