from django.contrib.auth.models import User
from django.db import transaction

from hydrata.anuga.models import InputLayer, Project
from hydrata.anuga.selectors.datasets import dataset_attachable_get
from hydrata.compute.inputs.input_rules import feature_problem
from hydrata.core.errors import ValidationFailed
from hydrata.uploads.selectors import dataset_features
from hydrata_contract.errors import ErrorCode
from hydrata_contract.inputs import InputKind

DEFAULT_TITLES = {
    InputKind.BOUNDARY: "Boundary 01",
    InputKind.FRICTION: "Friction 01",
    InputKind.INFLOW: "Inflow 01",
    InputKind.RAINFALL: "Rainfall 01",
    InputKind.STRUCTURE: "Structure 01",
    InputKind.BREAKLINE: "Breaklines 01",
    InputKind.CULVERT: "Culverts 01",
    InputKind.WEIR: "Weirs 01",
    InputKind.MESH_REGION: "MeshRegion 01",
    InputKind.GAUGE: "Gauges 01",
    InputKind.FLOW_LINE: "Flow lines 01",
    InputKind.INITIAL_CONDITION: "Initial conditions 01",
    InputKind.SOIL: "Soils 01",
}


@transaction.atomic
def default_inputs_seed(*, project: Project) -> list[InputLayer]:
    """The default rows a project gets once its terrain is ready, one per input kind; idempotent."""
    existing = set(InputLayer.objects.filter(project=project, is_default=True).values_list("kind", flat=True))
    created = [
        InputLayer(project=project, kind=kind, title=title, is_default=True)
        for kind, title in DEFAULT_TITLES.items()
        if kind not in existing
    ]
    return InputLayer.objects.bulk_create(created)


def input_layer_attach(*, layer: InputLayer, user: User, dataset_id: int | None) -> InputLayer:
    """Back an input row with an uploaded dataset whose features fit the row's kind (None detaches)."""
    if dataset_id is None:
        layer.dataset, layer.feature_count, layer.bbox_wgs84 = None, 0, None
        layer.save(update_fields=["dataset", "feature_count", "bbox_wgs84", "updated_at"])
        return layer
    dataset = dataset_attachable_get(user=user, project=layer.project, dataset_id=dataset_id)
    problem = feature_problem(layer.kind, dataset_features(dataset=dataset).get("features", []))
    if problem:
        raise ValidationFailed(
            f"Dataset {dataset.pk} cannot be the {layer.get_kind_display().lower()} layer: {problem}",
            code=ErrorCode.FEATURES_DO_NOT_FIT_KIND,
            kind=layer.kind,
            dataset=dataset.pk,
        )
    layer.dataset, layer.feature_count, layer.bbox_wgs84 = dataset, dataset.feature_count, dataset.bbox_wgs84
    layer.save(update_fields=["dataset", "feature_count", "bbox_wgs84", "updated_at"])
    return layer
