"""What a design flood study (ARR 2019) is made of: the kinds of its input files, the central value of an
ensemble, and where a member's rain falls; and its results as they are stored (DesignStudy.results, written and read
through StoredStudyResults), which its answer (hydrata_contract/answers/studies.py, StudyResults) carries with a
signed link to each raster instead of its storage key."""

from pydantic import Field

from hydrata_contract.answers.base import Answer
from hydrata_contract.labelled import Labelled
from hydrata_contract.states import RunStatus


class DesignInputKind(Labelled):
    IFD = "ifd", "IFD depths table (BoM, CSV)"
    TEMPORAL_PATTERNS = "temporal_patterns", "Temporal patterns (ARR Data Hub increments, CSV)"
    STORM_LOSSES = "storm_losses", "Storm losses and pre-burst (ARR Data Hub text)"


class CentralStatistic(Labelled):
    MEDIAN = "median", "Median of the patterns"
    MEAN = "mean", "Mean of the patterns"


class RainBinding(Labelled):
    RAINFALL_LAYER = "rainfall_layer", "Each polygon of the base scenario's rainfall layer"
    WHOLE_MODEL = "whole_model", "Uniform over the whole model"


class StudyStatus(Labelled):
    DRAFT = "draft", "Made, not started"
    RUNNING = "running", "Members computing"
    POST_PROCESSING = "post_processing", "Computing the envelopes"
    COMPLETE = "complete", "Envelopes ready"
    CANCELLED = "cancelled", "Cancelled"
    ERROR = "error", "Ended in error"


STUDY_FINISHED_STATES = (StudyStatus.COMPLETE, StudyStatus.CANCELLED, StudyStatus.ERROR)


class EnsembleQuantity(Labelled):
    """What a study's per-gauge and per-flow-line tables hold: each member's peak there."""

    PEAK_DEPTH = "peak_depth_m", "Peak depth"
    PEAK_DISCHARGE = "peak_discharge_m3_s", "Peak discharge"

    @property
    def units(self) -> str:
        return "m" if self is EnsembleQuantity.PEAK_DEPTH else "m³/s"

    @property
    def site(self) -> str:
        """Where it is read, as people name it."""
        return "Gauge" if self is EnsembleQuantity.PEAK_DEPTH else "Flow line"


class DurationPeaks(Answer):
    duration_min: int
    patterns: list[int]
    peaks: list[float | None]
    central: float | None


class EnsembleTable(Answer):
    name: str
    quantity: EnsembleQuantity = Field(description="peak_depth_m at a gauge, peak_discharge_m3_s across a flow line.")
    durations: list[DurationPeaks]
    critical_duration_min: int | None
    design_value: float | None = Field(description="The critical duration's central value.")
    pattern: int | None = Field(description="The representative pattern: its peak nearest the design value.")


class Place(Answer):
    x: float
    y: float


class CriticalDurationArea(Answer):
    duration_min: int
    area_m2: float
    share_pct: float = Field(description="Of the flooded area.")


class AepFigures(Answer):
    """envelope_figures (hydrata/compute/comparisons/envelope.py), read from the AEP's envelope rasters as they were
    written. A cell is flooded where the depth envelope is at least 0.01 m; places are cell centres in the project's
    CRS."""

    peak_depth_m: float | None
    peak_depth_at: Place | None
    peak_stage_m: float | None = Field(description="The highest water level over the flooded cells.")
    peak_stage_at: Place | None
    peak_speed_m_s: float | None = Field(description="Over the flooded cells.")
    cell_area_m2: float
    flooded_area_m2: float
    flooded_area_m2_by_depth_band: dict[str, float] = Field(description="Bands [low, high) in metres, as a run's.")
    hazard_area_m2_by_class: dict[str, float] = Field(
        description="ARR 2019 H1-H6 of the flooded cells; a central value between two classes counts in the upper."
    )
    critical_durations: list[CriticalDurationArea] = Field(
        description="Each duration's part of the flooded area: where its central peak depth was the envelope's."
    )


class LeftOutMember(Answer):
    aep: str
    duration_min: int
    pattern: int
    run: int | None
    status: RunStatus
    reason: str


class StoredLayer(Answer):
    """An envelope raster an AEP's results wrote: its storage key, never handed out (the answer signs a link to it)."""

    name: str
    units: str
    key: str


class StoredAepResults(Answer):
    aep: str
    layers: list[StoredLayer]
    figures: AepFigures | None = Field(None, description="Absent from a study that predates the figures.")
    gauges: list[EnsembleTable]
    flow_lines: list[EnsembleTable]


class StoredStudyResults(Answer):
    """DesignStudy.results: what the envelopes wrote, per AEP, and every member left out and why."""

    central_statistic: CentralStatistic
    members_used: int
    members_left_out: list[LeftOutMember]
    aeps: list[StoredAepResults]
