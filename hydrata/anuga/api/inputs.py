from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from hydrata.anuga.api.base import ProjectListView, ProjectScopedView
from hydrata.anuga.selectors.links import project_link
from hydrata.anuga.selectors.model_inputs import (
    input_layer_answer,
    input_layer_detail,
    input_layer_get,
    input_layers_of,
    inputs_by_kind,
)
from hydrata.anuga.services.inputs import input_layer_attach
from hydrata.core.answers import page_answer, sent
from hydrata.core.bodies import parsed
from hydrata.core.requests import AuthenticatedRequest
from hydrata_contract.answers import inputs as answers
from hydrata_contract.inputs import InputKind
from hydrata_contract.links import Panel
from hydrata_contract.paths import INPUT_SEGMENTS
from hydrata_contract.requests.inputs import InputLayerAttach

# The REST path segment of each kind (hydrata_contract/paths.py), to the kind it serves.
KIND_PATHS = {segment: kind for kind, segment in INPUT_SEGMENTS.items()}


class InputLayerListView(ProjectListView):
    grant_levels = {"GET": "read"}
    list_panel = Panel.INPUTS
    kind: str = ""

    @extend_schema(responses={200: answers.InputLayerPage})
    def get(self, request: AuthenticatedRequest) -> Response:
        page = self.paginate_queryset(input_layers_of(project=self.project, kind=self.kind))
        results = [input_layer_answer(layer=layer) for layer in page or []]
        ui_url = project_link(self.project, self.list_panel)
        return Response(sent(page_answer(view=self, model=answers.InputLayerPage, results=results, ui_url=ui_url)))


class InputLayerDetailView(ProjectScopedView):
    grant_levels = {"GET": "read", "PATCH": "draft"}
    kind: str = ""

    @extend_schema(responses={200: answers.InputLayerDetail})
    def get(self, request: AuthenticatedRequest, layer_id: int) -> Response:
        layer = input_layer_get(project=self.project, kind=self.kind, layer_id=layer_id)
        return Response(sent(input_layer_detail(layer=layer)))

    @extend_schema(request=InputLayerAttach, responses={200: answers.InputLayerDetail})
    def patch(self, request: AuthenticatedRequest, layer_id: int) -> Response:
        layer = input_layer_get(project=self.project, kind=self.kind, layer_id=layer_id)
        dataset_id = parsed(InputLayerAttach, request).gn_layer
        layer = input_layer_attach(layer=layer, user=request.user, dataset_id=dataset_id)
        return Response(sent(input_layer_detail(layer=layer)))


class AllInputsView(ProjectScopedView):
    """Every input row of a project, grouped by kind. Not paginated: rows are made only by the default seeding, one
    per kind, so a project has six at most."""

    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: answers.InputsByKind})
    def get(self, request: AuthenticatedRequest) -> Response:
        return Response(sent(inputs_by_kind(project=self.project)))
