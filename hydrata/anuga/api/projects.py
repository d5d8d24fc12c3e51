from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from hydrata.anuga.api.base import ProjectScopedView
from hydrata.anuga.api.serializers import ProjectOutput
from hydrata.anuga.selectors.projects import project_for_map, projects_visible_to, roles_for
from hydrata.anuga.services.projects import project_create
from hydrata.core.answers import answer
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
        page = self.paginate_queryset(projects_visible_to(user=request.user))
        roles = roles_for(user=request.user, project_ids=[p.pk for p in page or []])
        response = self.get_paginated_response(ProjectOutput(page, many=True, context={"roles": roles}).data)
        answer(answers.ProjectPage, response.data)
        return response

    @extend_schema(request=ProjectCreate, responses={201: answers.Project})
    def post(self, request: AuthenticatedRequest) -> Response:
        project = project_create(owner=request.user, **parsed(ProjectCreate, request).model_dump())
        roles = {project.pk: ProjectRole.OWNER}
        created = ProjectOutput(project, context={"roles": roles}).data
        return Response(answer(answers.Project, created), status=status.HTTP_201_CREATED)


class ProjectDetailView(ProjectScopedView):
    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.Project})
    def get(self, request: AuthenticatedRequest) -> Response:
        roles = roles_for(user=request.user, project_ids=[self.project.pk])
        return Response(answer(answers.Project, ProjectOutput(self.project, context={"roles": roles}).data))


class MapDetailView(APIView):
    """What the catalogue page needs to show a project's map."""

    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.MapDetail})
    def get(self, request: AuthenticatedRequest, map_id: int) -> Response:
        project = project_for_map(user=request.user, map_id=map_id)
        roles = roles_for(user=request.user, project_ids=[project.pk])
        detail = {
            "id": map_id,
            "title": project.base_map.title,
            "project": ProjectOutput(project, context={"roles": roles}).data,
        }
        return Response(answer(answers.MapDetail, detail))
