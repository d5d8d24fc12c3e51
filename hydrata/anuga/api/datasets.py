from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework.response import Response
from rest_framework.views import APIView

from hydrata.anuga.selectors.datasets import dataset_visible_get
from hydrata.core.requests import AuthenticatedRequest
from hydrata.uploads.api.serializers import DatasetOutput


class DatasetDetailView(APIView):
    """GeoNode's dataset read. Served here rather than by uploads because who sees a dataset depends on projects."""

    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: inline_serializer("DatasetDetail", {"dataset": DatasetOutput()})})
    def get(self, request: AuthenticatedRequest, dataset_id: int) -> Response:
        dataset = dataset_visible_get(user=request.user, dataset_id=dataset_id)
        return Response({"dataset": DatasetOutput(dataset).data})
