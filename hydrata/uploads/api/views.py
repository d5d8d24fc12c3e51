from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from hydrata.core.answers import sent
from hydrata.core.errors import ValidationFailed
from hydrata.core.parsers import FormParser, MultiPartParser
from hydrata.core.requests import AuthenticatedRequest
from hydrata.uploads.selectors import execution_get, execution_status, upload_started
from hydrata.uploads.services import upload_create
from hydrata_contract.answers import uploads as answers
from hydrata_contract.errors import ErrorCode
from hydrata_contract.requests.uploads import DatasetUpload


class UploadCreateView(APIView):
    """GeoNode's upload: multipart with the file as base_file; the import runs in the background."""

    grant_levels = {"POST": "draft"}
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request={"multipart/form-data": DatasetUpload}, responses={201: answers.UploadStarted})
    def post(self, request: AuthenticatedRequest) -> Response:
        uploaded = request.FILES.get("base_file")
        if uploaded is None:
            missing = "No file was submitted: send the GeoJSON as the multipart field base_file."
            raise ValidationFailed(
                f"base_file: {missing}",
                code=ErrorCode.VALIDATION_ERROR,
                field="base_file",
                errors={"base_file": [missing]},
            )
        execution = upload_create(user=request.user, uploaded_file=uploaded)
        return Response(sent(upload_started(execution=execution)), status=status.HTTP_201_CREATED)


class ExecutionStatusView(APIView):
    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.ExecutionStatus})
    def get(self, request: AuthenticatedRequest, execution_id: str) -> Response:
        execution = execution_get(user=request.user, execution_id=execution_id)
        return Response(sent(execution_status(execution=execution)))
