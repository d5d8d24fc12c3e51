from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from hydrata.anuga.selectors.datasets import dataset_visible_get
from hydrata.core.answers import answer
from hydrata.core.requests import AuthenticatedRequest
from hydrata.uploads.api.serializers import DatasetOutput
from hydrata_contract.answers.datasets import DatasetDetail


class DatasetDetailView(APIView):
    """GeoNode's dataset read. Served here rather than by uploads because who sees a dataset depends on projects."""

    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: DatasetDetail})
    def get(self, request: AuthenticatedRequest, dataset_id: int) -> Response:
        dataset = dataset_visible_get(user=request.user, dataset_id=dataset_id)
        return Response(answer(DatasetDetail, {"dataset": DatasetOutput(dataset).data}))
