"""A selector of a complete design study's envelopes at points: per AEP, the envelope of peak depth, level, speed and
hazard class and the critical duration at each point, read by the one sampler of result rasters
(hydrata/compute/rasters/sampling.py). The study has already been resolved through a project the caller may see."""

import math
from contextlib import ExitStack

from hydrata.compute.inputs.transformers import transformer_between
from hydrata.compute.rasters.sampling import sample_rasters
from hydrata.core.errors import Conflict
from hydrata.core.projections import crs_code_validate
from hydrata.storage import get_storage
from hydrata.studies.models import DesignStudy
from hydrata.studies.selectors import study_results
from hydrata_contract.answers.studies import AepSample, StudySample, StudySampledPoint
from hydrata_contract.errors import ErrorCode
from hydrata_contract.layers import CRITICAL_DURATION, ResultLayer
from hydrata_contract.studies import StudyStatus

# The sample's key for each raster an AEP's envelopes wrote: as a run's sample names them (sample_run_results).
SAMPLED = {
    "peak_depth": ResultLayer.MAX_DEPTH.value,
    "peak_stage": ResultLayer.MAX_STAGE.value,
    "peak_speed": ResultLayer.MAX_SPEED.value,
    ResultLayer.MAX_HAZARD.value: ResultLayer.MAX_HAZARD.value,
    "critical_duration_min": CRITICAL_DURATION,
}


def study_sample(*, study: DesignStudy, points: list[tuple[float, float]], crs: str) -> StudySample:
    """Each AEP's values at the points (in `crs`, an authority code; blank: the project's), in order; x, y as given.
    A value is None off the grid or where the raster has none. The hazard envelope between two classes (the median
    of an even number of them) is the class above, as the map draws it; the critical duration is whole minutes."""
    results = study_results(study=study)
    if study.status != StudyStatus.COMPLETE or results is None:
        raise Conflict(
            f"Design study {study.pk} has no envelopes yet (status {study.status}): they are sampled once it is "
            "complete.",
            code=ErrorCode.STUDY_NOT_COMPLETE,
            status=study.status,
        )
    projected = _in_project_crs(study, points, crs)
    storage = get_storage()
    answered = []
    for aep in results.aeps:
        keys = {layer.name: layer.key for layer in aep.layers}
        with ExitStack() as stack:
            rasters = {
                name: stack.enter_context(storage.local_path(key=keys[layer]))
                for name, layer in SAMPLED.items()
                if layer in keys
            }
            sampled = sample_rasters(rasters=rasters, points=projected) if rasters else [{} for _ in points]
        answered.append(
            AepSample(
                aep=aep.aep,
                points=[
                    StudySampledPoint.model_validate(
                        {"x": x, "y": y, **{name: _typed(name, values.get(name)) for name in SAMPLED}}
                    )
                    for (x, y), values in zip(points, sampled, strict=True)
                ],
            )
        )
    return StudySample(id=study.pk, crs=crs, aeps=answered)


def study_crs(study: DesignStudy, asked: str) -> str:
    """The CRS a request's points are in: its authority code (anything else is 400 INVALID_CRS), or the project's."""
    return crs_code_validate(asked) if asked else study.project.projection


def _in_project_crs(study: DesignStudy, points: list[tuple[float, float]], crs: str) -> list[tuple[float, float]]:
    transformer = transformer_between(study_crs(study, crs), study.project.projection)
    xs, ys = transformer.transform([p[0] for p in points], [p[1] for p in points])
    return list(zip(xs, ys, strict=True))


def _typed(name: str, value: float | None) -> float | int | None:
    if value is None:
        return None
    if name == ResultLayer.MAX_HAZARD.value:
        return math.ceil(value)
    if name == "critical_duration_min":
        return round(value)
    return value
