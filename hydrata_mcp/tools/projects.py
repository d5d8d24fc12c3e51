from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field

from hydrata_contract import paths
from hydrata_contract.answers.projects import Project
from hydrata_contract.answers.projects import ProjectPage as ProjectPageAnswer
from hydrata_contract.requests.projects import ProjectCreate
from hydrata_mcp.bodies import body
from hydrata_mcp.client import PlatformClient
from hydrata_mcp.handback import HandBack
from hydrata_mcp.pagination import page_numbers
from hydrata_mcp.tools.arguments import Page, PageSize, ProjectId
from hydrata_mcp.tools.projections import argument
from hydrata_mcp.tools.registry import tool


class ProjectPage(BaseModel):
    """A page of the contract's projects, with page numbers for the paginator's links."""

    count: int = Field(description="How many projects the caller can see in all.")
    next_page: int | None = Field(description="The next page number, or null on the last page.")
    previous_page: int | None
    results: list[Project]


class CreatedProject(Project, HandBack):
    pass


@tool(title="List projects", read_only=True, idempotent=True)
async def list_projects(ctx: Context, page: Page = 1, page_size: PageSize = 100) -> ProjectPage:
    """List the projects this account can see (own, shared and public), newest first."""
    api = PlatformClient.for_context(ctx)
    response = await api.get(paths.PROJECTS.url(), params={"page": page, "page_size": page_size})
    answered = ProjectPageAnswer.model_validate(response.data)
    return ProjectPage(**page_numbers(response.data), results=answered.results)


@tool(title="Get a project", read_only=True, idempotent=True)
async def get_project(ctx: Context, project_id: ProjectId) -> Project:
    """Read a project: name, projection, visibility, the caller's role, base map and map link."""
    api = PlatformClient.for_context(ctx)
    response = await api.get(paths.PROJECT_DETAIL.url(project_id=project_id))
    return Project.model_validate(response.data)


@tool(title="Create a project", relied_on=("id",))
async def create_project(
    ctx: Context,
    name: Annotated[str, argument(ProjectCreate, "name", "A name the engineer will recognise.")],
    projection: Annotated[str, argument(ProjectCreate, "projection", "A projected CRS in metres, e.g. EPSG:28356.")],
) -> CreatedProject:
    """Create a private project owned by the caller's account; terrain, inputs and scenarios live inside it."""
    api = PlatformClient.for_context(ctx)
    response = await api.post(paths.PROJECTS.url(), json=body(ProjectCreate, name=name, projection=projection))
    project = Project.model_validate(response.data)
    return CreatedProject(
        **dict(project),
        summary={"id": project.id, "name": project.name, "projection": project.projection},
        say_to_user=f"I created the project '{project.name}' in {project.projection}; you can open it here: "
        f"{project.ui_url}",
    )
