"""What a flood observation measures."""

from hydrata_contract.labelled import Labelled


class Quantity(Labelled):
    PEAK_STAGE = "peak_stage", "Peak stage (water level, m)"
    PEAK_DEPTH = "peak_depth", "Peak depth (m)"
