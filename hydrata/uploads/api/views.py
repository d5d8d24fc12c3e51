from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from hydrata.core.answers import answer
from hydrata.core.requests import AuthenticatedRequest
from hydrata.uploads.api.serializers import ExecutionStatusOutput, UploadCreateInput
from hydrata.uploads.selectors import execution_get
from hydrata.uploads.services import upload_create
from hydrata_contract.answers import uploads as answers


class UploadCreateView(APIView):
    """GeoNode's upload: multipart with the file as base_file; the import runs in the background."""

    grant_levels = {"POST": "draft"}
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request=UploadCreateInput, responses={201: answers.UploadStarted})
    def post(self, request: AuthenticatedRequest) -> Response:
        data = UploadCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        execution = upload_create(user=request.user, uploaded_file=data.validated_data["base_file"])
        started = {"execution_id": str(execution.id)}
        return Response(answer(answers.UploadStarted, started), status=status.HTTP_201_CREATED)


class ExecutionStatusView(APIView):
    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.ExecutionStatus})
    def get(self, request: AuthenticatedRequest, execution_id: str) -> Response:
        execution = execution_get(user=request.user, execution_id=execution_id)
        return Response(answer(answers.ExecutionStatus, ExecutionStatusOutput(execution).data))
