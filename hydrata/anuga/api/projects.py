from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from hydrata.anuga.api.base import ProjectScopedView
from hydrata.anuga.selectors.projects import map_detail, project_answer, projects_answer, projects_visible_to, roles_for
from hydrata.anuga.services.projects import project_create
from hydrata.core.answers import page_answer, sent
from hydrata.core.bodies import parsed
from hydrata.core.requests import AuthenticatedRequest
from hydrata.core.schema import PageSchema
from hydrata_contract.answers import projects as answers
from hydrata_contract.projects import ProjectRole
from hydrata_contract.requests.projects import ProjectCreate


class ProjectListCreateView(GenericAPIView):
    grant_levels = {"GET": "read", "POST": "draft"}
    schema = PageSchema()

    @extend_schema(responses={200: answers.ProjectPage})
    def get(self, request: AuthenticatedRequest) -> Response:
        page = self.paginate_queryset(projects_visible_to(user=request.user)) or []
        results = projects_answer(user=request.user, projects=page)
        return Response(sent(page_answer(view=self, model=answers.ProjectPage, results=results)))

    @extend_schema(request=ProjectCreate, responses={201: answers.Project})
    def post(self, request: AuthenticatedRequest) -> Response:
        project = project_create(owner=request.user, **parsed(ProjectCreate, request).model_dump())
        created = project_answer(project=project, roles={project.pk: ProjectRole.OWNER})
        return Response(sent(created), status=status.HTTP_201_CREATED)


class ProjectDetailView(ProjectScopedView):
    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.Project})
    def get(self, request: AuthenticatedRequest) -> Response:
        roles = roles_for(user=request.user, project_ids=[self.project.pk])
        return Response(sent(project_answer(project=self.project, roles=roles)))


class MapDetailView(APIView):
    """What the catalogue page needs to show a project's map."""

    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.MapDetail})
    def get(self, request: AuthenticatedRequest, map_id: int) -> Response:
        return Response(sent(map_detail(user=request.user, map_id=map_id)))
