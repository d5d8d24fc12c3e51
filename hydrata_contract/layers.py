"""The rasters a finished run writes: one Cloud-Optimized GeoTIFF per layer, named `<layer>.tif`."""

from hydrata_contract.labelled import Labelled


class ResultLayer(Labelled):
    MAX_DEPTH = "max_depth", "Maximum depth"
    MAX_SPEED = "max_speed", "Maximum speed"
    MAX_STAGE = "max_stage", "Maximum stage (water level)"
    MAX_HAZARD = "max_hazard", "Maximum hazard class (ARR 2019: 1-6, 0 dry)"
    TIME_OF_INUNDATION = "time_of_inundation", "Time of first inundation"
    DURATION_OF_INUNDATION = "duration_of_inundation", "Duration of inundation"

    @property
    def filename(self) -> str:
        return f"{self.value}.tif"

    @property
    def units(self) -> str:
        return LAYER_UNITS[self]


LAYER_UNITS = {
    ResultLayer.MAX_DEPTH: "m",
    ResultLayer.MAX_SPEED: "m/s",
    ResultLayer.MAX_STAGE: "m",
    ResultLayer.MAX_HAZARD: "class",
    ResultLayer.TIME_OF_INUNDATION: "s",
    ResultLayer.DURATION_OF_INUNDATION: "s",
}
# Written by runs since hazard and inundation were added; a run from before has only the first three.
ENGINEER_LAYERS = (ResultLayer.MAX_HAZARD, ResultLayer.TIME_OF_INUNDATION, ResultLayer.DURATION_OF_INUNDATION)
# What a design study's envelopes read of each member (hydrata/studies/services/envelopes.py): the only rasters a
# member's run writes (RunOutputs.ENVELOPE).
ENVELOPE_LAYERS = (ResultLayer.MAX_DEPTH, ResultLayer.MAX_STAGE, ResultLayer.MAX_SPEED, ResultLayer.MAX_HAZARD)
# The layer the map shows first, and the MCP App draws.
FIRST_SHOWN = ResultLayer.MAX_DEPTH

# Depth at the run's saved times (the map's time slider): one COG per kept frame of the run's .sww, and an index of
# their times. Tiled at the run's tile route under this layer name, with `?frame=<index into the times>`.
DEPTH_FRAMES_LAYER = "depth"
DEPTH_FRAMES_TITLE = "Depth at a saved time"
DEPTH_FRAMES_INDEX = "depth_frames.json"
DEPTH_FRAME_GLOB = "depth_frame_*.tif"


def depth_frame_filename(frame: int) -> str:
    return f"depth_frame_{frame:03d}.tif"


# A design study's raster beside the envelopes of its result layers: per cell, the storm duration whose central value
# gave the envelope's peak depth (minutes; no value where no duration wetted the cell).
# A run whose scenario has soils: per cell, the rain the ground took over the run (compute/simulation/losses.py).
TOTAL_LOSS = "total_loss"
TOTAL_LOSS_TITLE = "Total rainfall loss"
TOTAL_LOSS_UNITS = "mm"
TOTAL_LOSS_FILE = f"{TOTAL_LOSS}.tif"

CRITICAL_DURATION = "critical_duration"
CRITICAL_DURATION_TITLE = "Critical duration"
CRITICAL_DURATION_UNITS = "min"
