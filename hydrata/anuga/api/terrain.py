from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from hydrata.anuga.api.base import ProjectListView, ProjectScopedView, reader
from hydrata.anuga.models import Terrain
from hydrata.anuga.selectors.links import project_link
from hydrata.anuga.selectors.model_inputs import terrain_answer, terrain_get, terrain_presign, terrains_of
from hydrata.anuga.services.terrain import terrain_upload_direct, terrain_upload_finalize, terrain_upload_presign
from hydrata.core.answers import page_answer, sent
from hydrata.core.bodies import parsed
from hydrata.core.errors import ValidationFailed
from hydrata.core.parsers import MultiPartParser
from hydrata.core.requests import AuthenticatedRequest
from hydrata_contract.answers import terrain as answers
from hydrata_contract.errors import ErrorCode
from hydrata_contract.links import Panel
from hydrata_contract.requests.terrain import TerrainUpload, TerrainUploadFinalize, TerrainUploadPresign


def _terrain(request: AuthenticatedRequest, terrain: Terrain) -> answers.Terrain:
    return terrain_answer(terrain=terrain, signed_links=reader(request, project_id=terrain.project_id).signed_links)


class TerrainPresignView(ProjectScopedView):
    grant_levels = {"POST": "draft"}

    @extend_schema(request=TerrainUploadPresign, responses={200: answers.TerrainPresign})
    def post(self, request: AuthenticatedRequest) -> Response:
        body = parsed(TerrainUploadPresign, request).model_dump()
        upload, url = terrain_upload_presign(project=self.project, user=request.user, **body)
        return Response(sent(terrain_presign(upload=upload, url=url)))


class TerrainFinalizeView(ProjectScopedView):
    grant_levels = {"POST": "draft"}

    @extend_schema(request=TerrainUploadFinalize, responses={202: answers.Terrain})
    def post(self, request: AuthenticatedRequest) -> Response:
        body = parsed(TerrainUploadFinalize, request).model_dump()
        terrain = terrain_upload_finalize(project=self.project, user=request.user, **body)
        return Response(sent(_terrain(request, terrain)), status=status.HTTP_202_ACCEPTED)


class TerrainDirectUploadView(ProjectScopedView):
    grant_levels = {"POST": "draft"}
    parser_classes = [MultiPartParser]

    @extend_schema(request={"multipart/form-data": TerrainUpload}, responses={202: answers.Terrain})
    def post(self, request: AuthenticatedRequest) -> Response:
        uploaded = request.FILES.get("file")
        if uploaded is None:
            raise ValidationFailed("Send the GeoTIFF as the multipart field 'file'.", code=ErrorCode.FILE_MISSING)
        terrain = terrain_upload_direct(
            project=self.project,
            user=request.user,
            uploaded_file=uploaded,
            title=parsed(TerrainUpload, request).title,
        )
        return Response(sent(_terrain(request, terrain)), status=status.HTTP_202_ACCEPTED)


class TerrainListView(ProjectListView):
    grant_levels = {"GET": "read"}
    list_panel = Panel.TERRAIN

    @extend_schema(responses={200: answers.TerrainPage})
    def get(self, request: AuthenticatedRequest) -> Response:
        page = self.paginate_queryset(terrains_of(project=self.project))
        signed_links = reader(request, project_id=self.project.pk).signed_links
        results = [terrain_answer(terrain=terrain, signed_links=signed_links) for terrain in page or []]
        ui_url = project_link(self.project, self.list_panel)
        return Response(sent(page_answer(view=self, model=answers.TerrainPage, results=results, ui_url=ui_url)))


class TerrainDetailView(ProjectScopedView):
    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.Terrain})
    def get(self, request: AuthenticatedRequest, terrain_id: int) -> Response:
        terrain = terrain_get(project=self.project, terrain_id=terrain_id)
        return Response(sent(_terrain(request, terrain)))
