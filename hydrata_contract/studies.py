"""What a design flood study (ARR 2019) is made of: the kinds of its input files, the central value of an
ensemble, and where a member's rain falls."""

from hydrata_contract.labelled import Labelled


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
