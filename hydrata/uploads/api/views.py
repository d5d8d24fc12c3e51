from rest_framework import status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from hydrata.core.requests import AuthenticatedRequest
from hydrata.uploads.api.serializers import ExecutionStatusOutput, UploadCreateInput
from hydrata.uploads.selectors import execution_get
from hydrata.uploads.services import upload_create


class UploadCreateView(APIView):
    """GeoNode's upload: multipart with the file as base_file; the import runs in the background."""

    grant_levels = {"POST": "draft"}
    parser_classes = [MultiPartParser, FormParser]

    def post(self, request: AuthenticatedRequest) -> Response:
        data = UploadCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        execution = upload_create(user=request.user, uploaded_file=data.validated_data["base_file"])
        return Response({"execution_id": str(execution.id)}, status=status.HTTP_201_CREATED)


class ExecutionStatusView(APIView):
    grant_levels = {"GET": "read"}

    def get(self, request: AuthenticatedRequest, execution_id: str) -> Response:
        execution = execution_get(user=request.user, execution_id=execution_id)
        return Response(ExecutionStatusOutput(execution).data)
