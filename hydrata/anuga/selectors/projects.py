"""Reads, always scoped through what the caller may see: anything else is a 404."""

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db.models import Q, QuerySet

from hydrata.anuga.models import Project, ProjectMembership
from hydrata.anuga.selectors.links import project_link
from hydrata.core.errors import Forbidden, NotFound
from hydrata.core.rows import from_row
from hydrata_contract.answers import projects as answers
from hydrata_contract.errors import ErrorCode
from hydrata_contract.projects import ProjectRole, Visibility

WRITE_ROLES = {ProjectRole.OWNER, ProjectRole.EDITOR}


def projects_visible_to(*, user: User) -> QuerySet[Project]:
    member_of = ProjectMembership.objects.filter(user=user).values("project_id")
    return Project.objects.filter(Q(is_public=True) | Q(pk__in=member_of)).select_related("owner", "base_map")


def project_get(*, user: User, project_id: int) -> Project:
    project = projects_visible_to(user=user).filter(pk=project_id).first()
    if project is None:
        raise NotFound(
            f"Project {project_id} does not exist or is not visible to this caller.", code=ErrorCode.PROJECT_NOT_FOUND
        )
    return project


def project_for_map(*, user: User, map_id: int) -> Project:
    project = projects_visible_to(user=user).filter(base_map_id=map_id).first()
    if project is None:
        raise NotFound(f"Map {map_id} does not exist or is not visible to this caller.", code=ErrorCode.MAP_NOT_FOUND)
    return project


def roles_for(*, user: User, project_ids: list[int]) -> dict[int, str]:
    return dict(
        ProjectMembership.objects.filter(user=user, project_id__in=project_ids).values_list("project_id", "role")
    )


def project_answer(*, project: Project, roles: dict[int, str]) -> answers.Project:
    """The project as `roles` (project id -> the caller's role, roles_for's answer) shows it to its caller: `public`
    for one they see only because it is public."""
    public = Visibility.PUBLIC if project.is_public else None
    return from_row(
        answers.Project,
        project,
        visibility=Visibility.PUBLIC if project.is_public else Visibility.PRIVATE,
        role=roles.get(project.pk) or public,
        owner=project.owner.username,
        base_map=project.base_map_id,
        ui_url=project_link(project),
    )


def projects_answer(*, user: User, projects: list[Project]) -> list[answers.Project]:
    """A page of projects as their caller sees them, their roles read in one query."""
    roles = roles_for(user=user, project_ids=[project.pk for project in projects])
    return [project_answer(project=project, roles=roles) for project in projects]


def map_detail(*, user: User, map_id: int) -> answers.MapDetail:
    """What the catalogue page needs to show a project's map."""
    project = project_for_map(user=user, map_id=map_id)
    roles = roles_for(user=user, project_ids=[project.pk])
    return answers.MapDetail(
        id=map_id, title=project.base_map.title, project=project_answer(project=project, roles=roles)
    )


def reads_in_full(*, user: User, project_id: int) -> bool:
    """Members (any role) read everything of a project; a caller who sees it only because it is public reads its
    published face: scenarios without inputs or prices, runs without costs, logs or download links, design studies
    without prices, costs, design inputs or sign-offs."""
    return ProjectMembership.objects.filter(user_id=user.pk, project_id=project_id).exists()


@dataclass(frozen=True)
class Reader:
    """How a caller reads a project's things, the one policy of every route: `in_full` for a member (a public
    reader gets the published face), and `signed_links` only for an agent that reads in full. A person's browser
    session never receives a signed link (no link can leak out of a page), nor does a public reader."""

    in_full: bool
    signed_links: bool


def reader_of(*, user: User, project_id: int, agent: bool) -> Reader:
    in_full = reads_in_full(user=user, project_id=project_id)
    return Reader(in_full=in_full, signed_links=agent and in_full)


def project_get_writable(*, user: User, project_id: int) -> Project:
    """A project the caller may change (owner or editor); visible but read-only is 403, invisible is 404."""
    project = project_get(user=user, project_id=project_id)
    role = ProjectMembership.objects.filter(project=project, user=user).values_list("role", flat=True).first()
    if role not in WRITE_ROLES:
        raise Forbidden(
            f"You can read project {project_id} but not change it (your role: {role or 'public reader'}). "
            "Ask its owner to make you an editor.",
            code=ErrorCode.PROJECT_READ_ONLY,
        )
    return project
