from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from hydrata.anuga.api import schemas
from hydrata.anuga.api.base import ProjectScopedView
from hydrata.anuga.api.serializers import ProjectCreateInput, ProjectOutput
from hydrata.anuga.selectors.projects import project_for_map, projects_visible_to, roles_for
from hydrata.anuga.services.projects import project_create
from hydrata.core.requests import AuthenticatedRequest


class ProjectListCreateView(GenericAPIView):
    grant_levels = {"GET": "read", "POST": "draft"}

    @extend_schema(responses={200: ProjectOutput(many=True)})
    def get(self, request: AuthenticatedRequest) -> Response:
        page = self.paginate_queryset(projects_visible_to(user=request.user))
        roles = roles_for(user=request.user, project_ids=[p.pk for p in page or []])
        return self.get_paginated_response(ProjectOutput(page, many=True, context={"roles": roles}).data)

    @extend_schema(request=ProjectCreateInput, responses={201: ProjectOutput})
    def post(self, request: AuthenticatedRequest) -> Response:
        data = ProjectCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        project = project_create(owner=request.user, **data.validated_data)
        roles = {project.pk: "owner"}
        return Response(ProjectOutput(project, context={"roles": roles}).data, status=status.HTTP_201_CREATED)


class ProjectDetailView(ProjectScopedView):
    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: ProjectOutput})
    def get(self, request: AuthenticatedRequest) -> Response:
        roles = roles_for(user=request.user, project_ids=[self.project.pk])
        return Response(ProjectOutput(self.project, context={"roles": roles}).data)


class MapDetailView(APIView):
    """What the catalogue page needs to show a project's map."""

    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: schemas.MapDetail})
    def get(self, request: AuthenticatedRequest, map_id: int) -> Response:
        project = project_for_map(user=request.user, map_id=map_id)
        roles = roles_for(user=request.user, project_ids=[project.pk])
        return Response(
            {
                "id": map_id,
                "title": project.base_map.title,
                "project": ProjectOutput(project, context={"roles": roles}).data,
            }
        )
