from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from hydrata.anuga.selectors.datasets import dataset_visible_get
from hydrata.core.answers import sent
from hydrata.core.requests import AuthenticatedRequest
from hydrata.uploads.selectors import dataset_detail
from hydrata_contract.answers import uploads as answers


class DatasetDetailView(APIView):
    """GeoNode's dataset read. Served here rather than by uploads because who sees a dataset depends on projects."""

    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.DatasetDetail})
    def get(self, request: AuthenticatedRequest, dataset_id: int) -> Response:
        dataset = dataset_visible_get(user=request.user, dataset_id=dataset_id)
        return Response(sent(dataset_detail(dataset=dataset)))
