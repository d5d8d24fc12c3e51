"""The tiled layers of a terrain or a finished run (the tiles themselves are PNG)."""

from pydantic import Field

from hydrata_contract.answers.base import Answer, Sparse


class LegendStop(Sparse):
    value: float
    colour: str = Field(description="#rrggbb")
    label: str | None = Field(
        default=None, description="A class raster's class as people read it (a critical duration: '30 min')."
    )


class TileLayer(Sparse):
    """One entry of run_tile_layers / terrain_tile_layers."""

    name: str
    title: str
    units: str
    tiles: str = Field(description="The XYZ URL template, ending {z}/{x}/{y}.png.")
    legend: list[LegendStop]
    empty: bool | None = Field(default=None, description="Runs and studies only: nothing got wet, every tile is clear.")


class DepthFrames(Answer):
    """The depth at the times the run saved (the map's time slider): one tiled raster per entry of `times`."""

    name: str = Field(description="The layer name in the tile route.")
    title: str
    units: str
    tiles: str = Field(description="The XYZ URL template, ending {z}/{x}/{y}.png?frame={frame}; frame indexes times.")
    legend: list[LegendStop] = Field(description="The colours, the same ramp as the maximum depth's.")
    times: list[float] = Field(description="Seconds from the run's start of each kept frame; empty when none.")
    saved: int = Field(description="How many frames the run's output holds (kept are all of them or an even subset).")
    note: str = Field(description="Why there are no frames, or that an evenly spaced subset is kept; else empty.")


class TileLayers(Sparse):
    id: int
    results: list[TileLayer]
    frames: DepthFrames | None = Field(default=None, description="Runs only: the depth at the saved times.")


class AepTileLayers(Answer):
    """A design study's tiled layers of one AEP: the envelopes of its result layers and the critical duration."""

    aep: str = Field(description="As the IFD spells it: 1%.")
    layers: list[TileLayer]


class StudyTileLayers(Answer):
    id: int
    aeps: list[AepTileLayers] = Field(description="In the study's order; an AEP no member completed has no layers.")
