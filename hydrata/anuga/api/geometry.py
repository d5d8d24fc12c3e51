"""What the map draws as vectors, in WGS84: an input row's features and a scenario's mesh."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from hydrata.anuga.api.base import ProjectScopedView
from hydrata.anuga.selectors.map_geometry import input_layer_features, scenario_mesh
from hydrata.anuga.selectors.model_inputs import input_layer_get
from hydrata.compute.numbers import finite_number
from hydrata.core.answers import sent
from hydrata.core.errors import ValidationFailed
from hydrata_contract.answers import inputs, scenarios
from hydrata_contract.errors import ErrorCode


class InputLayerFeaturesView(ProjectScopedView):
    grant_levels = {"GET": "read"}
    kind: str = ""

    @extend_schema(responses={200: inputs.LayerFeatures})
    def get(self, request: Request, layer_id: int) -> Response:
        layer = input_layer_get(project=self.project, kind=self.kind, layer_id=layer_id)
        return Response(sent(input_layer_features(layer=layer)))


def bounds_of(text: str) -> tuple[float, float, float, float] | None:
    """`west,south,east,north` in degrees, or None when not given; anything else is a 400."""
    if not text:
        return None
    try:
        west, south, east, north = (finite_number(part) for part in text.split(",", 4))
    except ValueError:  # a part that is no finite number (NumberRefused), or not four parts
        raise ValidationFailed("bbox is west,south,east,north in degrees.", code=ErrorCode.INVALID_BBOX) from None
    if not (-180 <= west < east <= 180 and -90 <= south < north <= 90):
        raise ValidationFailed(
            "bbox must run west < east within ±180 and south < north within ±90.", code=ErrorCode.INVALID_BBOX
        )
    return west, south, east, north


class ScenarioMeshView(ProjectScopedView):
    grant_levels = {"GET": "read"}

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "bbox", str, description="west,south,east,north in degrees: also the triangles' edges in that window."
            )
        ],
        responses={200: scenarios.ScenarioMesh},
    )
    def get(self, request: Request, scenario_id: int) -> Response:
        scenario = self.scenario_get(scenario_id)
        bounds = bounds_of(request.query_params.get("bbox", ""))
        return Response(sent(scenario_mesh(scenario=scenario, bounds_wgs84=bounds)))
