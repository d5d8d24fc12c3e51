"""Every route of the REST API v2, written once: the platform builds its URLconf from these (`Route.django()`), the
MCP tools and the platform's own links build their addresses from them (`Route.url(...)`). A route's template is
below `/api/v2/`; `{name}` is a whole number (Django's `<int:name>`), `{name:str}` a segment of text (`<str:name>`),
and each name is the keyword the platform's view reads. tests/hydrata_contract/test_paths.py walks the URLconf:
every route here resolves to a view of its name, and every route under /api/v2/ is one of these."""

import re
from dataclasses import dataclass, field

from hydrata_contract.inputs import InputKind

API_MOUNT = "api/v2/"  # where the platform mounts the API (config/urls.py)
API_PREFIX = f"/{API_MOUNT}"
_PARAMETER = re.compile(r"\{(\w+)(?::(int|str))?\}")
_CONVERTER_PATTERNS = {int: "[0-9]+", str: "[^/]+"}  # as Django's int and str converters match


@dataclass(frozen=True)
class Route:
    template: str  # below /api/v2/, e.g. "anuga/projects/{project_id}/runs/"
    name: str  # the URL name the platform's URLconf gives it
    parameters: dict[str, type] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        types = {"int": int, "str": str}
        found = {match[1]: types[match[2] or "int"] for match in _PARAMETER.finditer(self.template)}
        object.__setattr__(self, "parameters", found)

    def url(self, **values: int | str) -> str:
        """The path of this route for these values, e.g. `/api/v2/anuga/runs/3/`; every parameter must be given, a
        whole number as a non-negative int and a text segment as a str."""
        if set(values) != set(self.parameters):
            raise TypeError(f"{self.name} takes {sorted(self.parameters)}, was given {sorted(values)}")
        for key, value in values.items():
            if self.parameters[key] is str and not isinstance(value, str):
                raise TypeError(f"{self.name}: {key} must be a str, was {value!r}")
            if self.parameters[key] is int and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise TypeError(f"{self.name}: {key} must be a whole number from 0, was {value!r}")
        return API_PREFIX + _PARAMETER.sub(lambda match: str(values[match[1]]), self.template)

    def tiles(self, **values: int | str) -> str:
        """The XYZ template of a tile route: its path with `{z}`, `{x}` and `{y}` left for the map to fill in."""
        return self.url(**values, z="{z}", x="{x}", y="{y}")

    def shown(self) -> str:
        """The path as people read it in prose, each parameter in angle brackets: /api/v2/anuga/runs/<run_id>/."""
        return API_PREFIX + _PARAMETER.sub(lambda match: f"<{match[1]}>", self.template)

    def django(self) -> str:
        """The URLconf pattern below the API's mount, e.g. `anuga/runs/<int:run_id>/`."""
        return _PARAMETER.sub(lambda match: f"<{match[2] or 'int'}:{match[1]}>", self.template)

    def pattern(self) -> str:
        """A regular expression matching this route's paths in full (with the /api/v2/ prefix)."""
        parts = _PARAMETER.split(self.template)
        # split yields literal, name, type, literal, name, type, ...
        pieces = [re.escape(API_PREFIX)]
        for index in range(0, len(parts), 3):
            pieces.append(re.escape(parts[index]))
            if index + 1 < len(parts):
                pieces.append(_CONVERTER_PATTERNS[self.parameters[parts[index + 1]]])
        return "".join(pieces)


PROJECT = "anuga/projects/{project_id}/"
TILE = "{z:str}/{x:str}/{y:str}.png"  # text, not whole numbers: a bad address is answered 400 with a reason, not 404

# The schema
SCHEMA = Route("schema/", "api-schema")
SCHEMA_DOCS = Route("schema/docs/", "api-docs")

# Projects and maps
PROJECTS = Route("anuga/projects/", "projects")
PROJECT_DETAIL = Route(PROJECT, "project-detail")
MAP_DETAIL = Route("anuga/maps/{map_id}/", "map-detail")

# Terrain
TERRAIN_LIST = Route(f"{PROJECT}terrain/", "terrain-list")
TERRAIN_DETAIL = Route(f"{PROJECT}terrain/{{terrain_id}}/", "terrain-detail")
TERRAIN_PRESIGN = Route(f"{PROJECT}terrain/upload/presign/", "terrain-presign")
TERRAIN_FINALIZE = Route(f"{PROJECT}terrain/upload/finalize/", "terrain-finalize")
TERRAIN_UPLOAD = Route(f"{PROJECT}terrain/upload/", "terrain-upload")
TERRAIN_TILES = Route(f"{PROJECT}terrain/{{terrain_id}}/tiles/", "terrain-tiles")
TERRAIN_TILE = Route(f"{PROJECT}terrain/{{terrain_id}}/tiles/{{style:str}}/{TILE}", "terrain-tile")

# Inputs and time series
INPUTS = Route(f"{PROJECT}inputs/", "inputs")
TIME_SERIES = Route(f"{PROJECT}time-series/", "time-series")
TIME_SERIES_DETAIL = Route(f"{PROJECT}time-series/{{series_id}}/", "time-series-detail")

# Scenarios
SCENARIOS = Route(f"{PROJECT}scenarios/", "scenarios")
SCENARIO_DETAIL = Route(f"{PROJECT}scenarios/{{scenario_id}}/", "scenario-detail")
SCENARIO_CLONE = Route(f"{PROJECT}scenarios/{{scenario_id}}/clone/", "scenario-clone")
SCENARIO_BUILD = Route(f"{PROJECT}scenarios/{{scenario_id}}/build/", "scenario-build")
SCENARIO_MESH = Route(f"{PROJECT}scenarios/{{scenario_id}}/mesh/", "scenario-mesh")
SCENARIO_APPROVE = Route(f"{PROJECT}scenarios/{{scenario_id}}/approve/", "scenario-approve")

# Runs
PROJECT_RUNS = Route(f"{PROJECT}runs/", "project-runs")
SCENARIO_RUN = Route("anuga/scenarios/{scenario_id}/run/", "scenario-run")
RUN = "anuga/runs/{run_id}/"
RUN_DETAIL = Route(RUN, "run-detail")
RUN_STATUS = Route(f"{RUN}status/", "run-status")
RUN_CANCEL = Route(f"{RUN}cancel/", "run-cancel")
RUN_RETRY = Route(f"{RUN}retry/", "run-retry")
RUN_RESULTS = Route(f"{RUN}results/", "run-results")
RUN_PREVIEW = Route(f"{RUN}preview/", "run-preview")
RUN_SAMPLE = Route(f"{RUN}sample/", "run-sample")
RUN_TILES = Route(f"{RUN}tiles/", "run-tiles")
RUN_TILE = Route(f"{RUN}tiles/{{layer:str}}/{TILE}", "run-tile")
RUN_TIME_SERIES = Route(f"{RUN}time-series/", "run-time-series")
RUN_IMPACT = Route(f"{RUN}impact/{{other_run_id}}/", "run-impact")
RUN_IMPACT_TILES = Route(f"{RUN}impact/{{other_run_id}}/tiles/", "run-impact-tiles")
RUN_IMPACT_TILE = Route(f"{RUN}impact/{{other_run_id}}/tiles/{{layer:str}}/{TILE}", "run-impact-tile")
RUN_REPORT = Route(f"{RUN}report/", "run-report")

# Input layers: each kind at its own segment, with a list, a row and the row's features
INPUT_SEGMENTS = {
    InputKind.BOUNDARY: "boundaries",
    InputKind.FRICTION: "frictions",
    InputKind.INFLOW: "inflows",
    InputKind.RAINFALL: "rainfalls",
    InputKind.STRUCTURE: "structures",
    InputKind.BREAKLINE: "breaklines",
    InputKind.CULVERT: "culverts",
    InputKind.WEIR: "weirs",
    InputKind.MESH_REGION: "mesh-regions",
    InputKind.GAUGE: "gauges",
    InputKind.FLOW_LINE: "flow-lines",
    InputKind.INITIAL_CONDITION: "initial-conditions",
    InputKind.SOIL: "soils",
}
INPUT_LAYERS = {kind: Route(f"{PROJECT}{segment}/", f"{kind}-list") for kind, segment in INPUT_SEGMENTS.items()}
INPUT_LAYER_DETAIL = {
    kind: Route(f"{PROJECT}{segment}/{{layer_id}}/", f"{kind}-detail") for kind, segment in INPUT_SEGMENTS.items()
}
INPUT_LAYER_FEATURES = {
    kind: Route(f"{PROJECT}{segment}/{{layer_id}}/features/", f"{kind}-features")
    for kind, segment in INPUT_SEGMENTS.items()
}

# Observations, flood events and comparisons
EVENTS = Route(f"{PROJECT}events/", "flood-events")
EVENT_DETAIL = Route(f"{PROJECT}events/{{event_id}}/", "flood-event-detail")
EVENT_POINTS = Route(f"{PROJECT}events/{{event_id}}/points/", "flood-event-points")
EVENT_COMPARISONS = Route(f"{PROJECT}events/{{event_id}}/comparisons/", "flood-event-comparisons")
OBSERVATIONS_IMPORT = Route(f"{PROJECT}events/{{event_id}}/observations/import/", "observations-import")
OBSERVATIONS = Route(f"{PROJECT}observations/", "observations")
OBSERVATION_DETAIL = Route(f"{PROJECT}observations/{{observation_id}}/", "observation-detail")
RANKINGS = Route(f"{PROJECT}rankings/", "rankings")
RUN_COMPARE = Route(f"{RUN}compare/", "run-compare")
COMPARISON_DETAIL = Route("anuga/comparisons/{comparison_id}/", "comparison-detail")
COMPARISON_RECOMPUTE = Route("anuga/comparisons/{comparison_id}/recompute/", "comparison-recompute")

# Design studies
DESIGN_INPUTS = Route(f"{PROJECT}design-inputs/", "design-inputs")
DESIGN_INPUT_DETAIL = Route(f"{PROJECT}design-inputs/{{input_id}}/", "design-input-detail")
DESIGN_STUDIES = Route(f"{PROJECT}design-studies/", "design-studies")
DESIGN_STUDY = f"{PROJECT}design-studies/{{study_id}}/"
DESIGN_STUDY_DETAIL = Route(DESIGN_STUDY, "design-study-detail")
DESIGN_STUDY_APPROVE = Route(f"{DESIGN_STUDY}approve/", "design-study-approve")
DESIGN_STUDY_START = Route(f"{DESIGN_STUDY}start/", "design-study-start")
DESIGN_STUDY_CANCEL = Route(f"{DESIGN_STUDY}cancel/", "design-study-cancel")
DESIGN_STUDY_SAMPLE = Route(f"{DESIGN_STUDY}sample/", "design-study-sample")
DESIGN_STUDY_TILES = Route(f"{DESIGN_STUDY}tiles/", "design-study-tiles")
DESIGN_STUDY_TILE = Route(f"{DESIGN_STUDY}tiles/{{aep:str}}/{{layer:str}}/{TILE}", "design-study-tile")

# Calibration studies
CALIBRATION_STUDIES = Route(f"{PROJECT}calibration-studies/", "calibration-studies")
CALIBRATION_STUDY = f"{PROJECT}calibration-studies/{{study_id}}/"
CALIBRATION_STUDY_DETAIL = Route(CALIBRATION_STUDY, "calibration-study-detail")
CALIBRATION_STUDY_APPROVE = Route(f"{CALIBRATION_STUDY}approve/", "calibration-study-approve")
CALIBRATION_STUDY_START = Route(f"{CALIBRATION_STUDY}start/", "calibration-study-start")
CALIBRATION_STUDY_CANCEL = Route(f"{CALIBRATION_STUDY}cancel/", "calibration-study-cancel")

# Agents
AGENT_ME = Route("agents/me/", "agents-me")
CAPABILITY_SUGGESTIONS = Route("capability-suggestions/", "capability-suggestions")

# Uploads and datasets, at the paths GeoNode clients use (with and without the trailing slash, as GeoNode serves them)
UPLOAD = Route("uploads/upload/", "upload-create")
UPLOAD_NO_SLASH = Route("uploads/upload", "upload-create-no-slash")
EXECUTION_STATUS = Route("resource-service/execution-status/{execution_id:str}", "execution-status")
EXECUTION_STATUS_SLASH = Route("resource-service/execution-status/{execution_id:str}/", "execution-status-slash")
DATASET_DETAIL = Route("datasets/{dataset_id}/", "dataset-detail")


def routes() -> list[Route]:
    """Every route of the API, each once."""
    found = [value for value in globals().values() if isinstance(value, Route)]
    for by_kind in (INPUT_LAYERS, INPUT_LAYER_DETAIL, INPUT_LAYER_FEATURES):
        found += by_kind.values()
    return found
