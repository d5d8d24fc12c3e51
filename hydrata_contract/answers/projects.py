"""A project's answers: the project, a page of the projects the caller sees, and the map a catalogue opens."""

from datetime import datetime
from typing import Literal

from pydantic import Field

from hydrata_contract.answers.base import Answer, Page, map_link
from hydrata_contract.projects import ProjectRole, Visibility


class Project(Answer):
    """A project as its caller sees it (their `role`)."""

    id: int
    name: str
    projection: str = Field(description="EPSG code of a projected CRS in metres, e.g. EPSG:28356.")
    visibility: Visibility
    role: ProjectRole | Literal[Visibility.PUBLIC] | None = Field(
        description="The caller's role; `public` when they see the project only because it is public."
    )
    owner: str = Field(description="The owner's username.")
    base_map: int = Field(description="The map the project opens in the catalogue.")
    ui_url: str = map_link()
    created_at: datetime
    updated_at: datetime


class ProjectPage(Page):
    results: list[Project]


class MapDetail(Answer):
    """MapDetailView: what the catalogue page needs to show a project's map."""

    id: int
    title: str
    project: Project
