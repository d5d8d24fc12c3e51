"""The tiled layers of a terrain or a finished run (the tiles themselves are PNG)."""

from pydantic import Field

from hydrata_contract.answers.base import Answer


class LegendStop(Answer):
    value: float
    colour: str = Field(description="#rrggbb")


class TileLayer(Answer):
    """One entry of run_tile_layers / terrain_tile_layers."""

    name: str
    title: str
    units: str
    tiles: str = Field(description="The XYZ URL template, ending {z}/{x}/{y}.png.")
    legend: list[LegendStop]
    empty: bool | None = Field(default=None, description="Runs only: nothing got wet, every tile is clear.")


class TileLayers(Answer):
    id: int
    results: list[TileLayer]
