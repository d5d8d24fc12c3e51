"""The figures of a run's report, as PNG bytes: result maps over the terrain's hillshade (with a legend, a scale
bar and a north arrow), the model's boundary, forcing and hydrograph charts, the mass error over time and an
observed-against-modelled scatter. No Django.

Every figure has a fixed size: a raster is read at most MAP_PIXELS on its longer side (GDAL picks the COG's
overview), so the cost of a figure does not grow with the model."""

import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import rasterio
from rasterio.enums import Resampling
from rasterio.windows import from_bounds

from hydrata.compute.figures.figure_text import plain, pyplot
from hydrata.compute.rasters.terrain_raster import hillshade

MAP_PIXELS = 700
FIGURE_DPI = 110
MAP_SIZE_INCHES = (7.0, 5.6)
CHART_SIZE_INCHES = (7.0, 3.2)
# ARR 2019's hazard colours, H1 (pale) to H6 (dark red), as flood studies usually draw them.
HAZARD_COLOURS = ("#e0f3f8", "#fee08b", "#fdae61", "#f46d43", "#d73027", "#7f0000")


@dataclass(frozen=True)
class MapLayer:
    """How to draw one result raster: the values at or below `dry_at` are left clear (the hillshade shows)."""

    title: str
    units: str
    colour_map: str = "Blues"
    dry_at: float = 0.0
    scale: float = 1.0  # shown = stored x scale (seconds as minutes)
    classes: Sequence[tuple[int, str]] = ()  # a class raster: (value, label) per swatch


def _png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=FIGURE_DPI, bbox_inches="tight")
    pyplot().close(figure)
    return buffer.getvalue()


def bounded_shape(width: int, height: int, *, pixels: int = MAP_PIXELS) -> tuple[int, int]:
    """(rows, columns) of a read at most `pixels` on its longer side, never more than the raster has."""
    scale = max(width, height) / pixels
    if scale <= 1:
        return height, width
    return max(1, round(height / scale)), max(1, round(width / scale))


def _read_bounded(path: Path, *, classes: bool) -> tuple[np.ma.MaskedArray, tuple[float, float, float, float]]:
    with rasterio.open(path) as source:
        shape = bounded_shape(source.width, source.height)
        resampling = Resampling.nearest if classes else Resampling.bilinear
        band = source.read(1, out_shape=shape, masked=True, resampling=resampling)
        return band, tuple(source.bounds)


def _hillshade_under(dem: Path, bounds: tuple[float, float, float, float], shape: tuple[int, int]) -> np.ndarray:
    """The DEM's hillshade over `bounds`, read at `shape`; NaN where the DEM has no data."""
    with rasterio.open(dem) as source:
        window = from_bounds(*bounds, transform=source.transform)
        band = source.read(
            1, window=window, out_shape=shape, masked=True, boundless=True, resampling=Resampling.bilinear
        )
    elevation = band.filled(np.nan).astype("float64")
    west, south, east, north = bounds
    grey = hillshade(elevation, cell_x=(east - west) / shape[1], cell_y=(north - south) / shape[0]).astype(float)
    return np.where(np.isfinite(elevation), grey, np.nan)


def _north_arrow(axes: Any) -> None:
    axes.annotate(
        "N",
        xy=(0.06, 0.95),
        xytext=(0.06, 0.82),
        xycoords="axes fraction",
        ha="center",
        va="center",
        fontsize=11,
        fontweight="bold",
        arrowprops={"facecolor": "black", "width": 4, "headwidth": 11, "headlength": 9},
    )


def _frame(axes: Any, *, crs: str) -> None:
    from matplotlib_scalebar.scalebar import ScaleBar

    axes.add_artist(ScaleBar(1.0, "m", location="lower right", box_alpha=0.8))
    _north_arrow(axes)
    axes.set_xlabel(f"Easting (m, {plain(crs)})", fontsize=8)
    axes.set_ylabel("Northing (m)", fontsize=8)
    axes.tick_params(labelsize=7)
    axes.ticklabel_format(useOffset=False, style="plain")


def result_map(*, raster: Path, dem: Path, layer: MapLayer, crs: str) -> bytes:
    """One result raster over the hillshade of the DEM it was computed on, with its legend (a colour bar in its
    units, or one swatch per class), a scale bar and a north arrow. The axes are the project CRS in metres."""
    from matplotlib.colors import BoundaryNorm, ListedColormap
    from matplotlib.patches import Patch

    plt = pyplot()
    values, bounds = _read_bounded(raster, classes=bool(layer.classes))
    west, south, east, north = bounds
    shade = _hillshade_under(dem, bounds, values.shape)
    shown = np.ma.masked_where(np.ma.getmaskarray(values) | (values.filled(0) <= layer.dry_at), values) * layer.scale
    figure, axes = plt.subplots(figsize=MAP_SIZE_INCHES)
    extent = (west, east, south, north)
    axes.imshow(np.ma.masked_invalid(shade), cmap="gray", extent=extent, vmin=0, vmax=255, interpolation="bilinear")
    if layer.classes:
        numbers = [number for number, _ in layer.classes]
        colours = ListedColormap(list(HAZARD_COLOURS[: len(numbers)]))
        edges = [number - 0.5 for number in numbers] + [numbers[-1] + 0.5]
        axes.imshow(shown, cmap=colours, norm=BoundaryNorm(edges, colours.N), extent=extent, interpolation="nearest")
        swatches = [
            Patch(facecolor=HAZARD_COLOURS[i], edgecolor="#555", label=plain(label))
            for i, (_, label) in enumerate(layer.classes)
        ]
        axes.legend(handles=swatches, loc="upper left", bbox_to_anchor=(0.0, -0.12), fontsize=7, frameon=False)
    else:
        image = axes.imshow(shown, cmap=layer.colour_map, extent=extent, alpha=0.85, interpolation="nearest")
        figure.colorbar(image, ax=axes, shrink=0.8, label=plain(layer.units))
    axes.set_title(plain(layer.title), fontsize=10)
    _frame(axes, crs=crs)
    return _png(figure)


def boundary_map(
    *,
    dem: Path,
    segments: Sequence[tuple[str, tuple[float, float], tuple[float, float]]],
    regions: Sequence[tuple[str, Sequence[tuple[float, float]]]],
    crs: str,
) -> bytes:
    """The model's outer boundary over the hillshade, each segment coloured by its boundary tag, and the mesh
    regions' outlines."""
    plt = pyplot()
    xs = [point[0] for _, start, end in segments for point in (start, end)]
    ys = [point[1] for _, start, end in segments for point in (start, end)]
    margin = max(max(xs) - min(xs), max(ys) - min(ys)) * 0.05 if xs else 1.0
    bounds = (min(xs) - margin, min(ys) - margin, max(xs) + margin, max(ys) + margin) if xs else (0, 0, 1, 1)
    with rasterio.open(dem) as source:
        window = from_bounds(*bounds, transform=source.transform)
        shape = bounded_shape(max(1, round(window.width)), max(1, round(window.height)))
    shade = _hillshade_under(dem, bounds, shape)
    figure, axes = plt.subplots(figsize=MAP_SIZE_INCHES)
    axes.imshow(np.ma.masked_invalid(shade), cmap="gray", extent=(bounds[0], bounds[2], bounds[1], bounds[3]))
    colours = plt.get_cmap("tab10")
    tags = list(dict.fromkeys(tag for tag, _, _ in segments))
    for tag, start, end in segments:
        colour = colours(tags.index(tag) % 10)
        axes.plot([start[0], end[0]], [start[1], end[1]], color=colour, linewidth=2.5, label=plain(tag))
    for name, ring in regions:
        ring_x, ring_y = [p[0] for p in ring], [p[1] for p in ring]
        axes.plot(ring_x, ring_y, color="#333", linestyle="--", linewidth=1, label=plain(name))
    handles, labels = axes.get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=True))
    axes.legend(unique.values(), unique.keys(), loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    axes.set_title("Model boundary and mesh regions", fontsize=10)
    _frame(axes, crs=crs)
    return _png(figure)


def locality_map(*, dem: Path, outline: Sequence[tuple[float, float]], crs: str) -> bytes:
    """The model's boundary (shaded) over the hillshade of the whole terrain it was built on, the terrain's extent
    framed: where the model lies, drawn from the project's own data, with a scale bar, a north arrow and the
    coordinates in the project's CRS."""
    from matplotlib.patches import Polygon, Rectangle

    plt = pyplot()
    with rasterio.open(dem) as source:
        bounds = tuple(source.bounds)
        shape = bounded_shape(source.width, source.height)
    west, south, east, north = bounds
    shade = _hillshade_under(dem, bounds, shape)
    figure, axes = plt.subplots(figsize=MAP_SIZE_INCHES)
    axes.imshow(np.ma.masked_invalid(shade), cmap="gray", extent=(west, east, south, north), vmin=0, vmax=255)
    axes.add_patch(
        Rectangle((west, south), east - west, north - south, fill=False, edgecolor="#555", linewidth=1, label="Terrain")
    )
    if outline:
        axes.add_patch(
            Polygon(
                outline,
                closed=True,
                facecolor="#2b6cb0",
                alpha=0.3,
                edgecolor="#1a4480",
                linewidth=2,
                label="Model boundary",
            )
        )
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    xs = [west, east, *(point[0] for point in outline)]
    ys = [south, north, *(point[1] for point in outline)]
    margin = max(max(xs) - min(xs), max(ys) - min(ys)) * 0.05
    axes.set_xlim(min(xs) - margin, max(xs) + margin)
    axes.set_ylim(min(ys) - margin, max(ys) + margin)
    axes.set_title("Locality: the model boundary on the terrain", fontsize=10)
    _frame(axes, crs=crs)
    return _png(figure)


MESH_EDGES_DRAWN = 60_000  # triangles; beyond, a triangle's edges are finer than a pixel: draw their density


def mesh_map(*, mesh: Any, crs: str) -> bytes:
    """The mesh's triangles (their edges, the outline bold), or, for a mesh of more than MESH_EDGES_DRAWN triangles
    (edges finer than the figure's pixels), how many triangles lie in each cell of a hexagonal grid: one pass over
    the triangles, no sort of their edges."""
    from matplotlib.collections import LineCollection

    from hydrata.compute.simulation.mesh import mesh_edges

    plt = pyplot()
    nodes, triangles = np.asarray(mesh.nodes, dtype=float), np.asarray(mesh.triangles, dtype=np.int64)
    figure, axes = plt.subplots(figsize=MAP_SIZE_INCHES)
    if len(triangles) <= MESH_EDGES_DRAWN:
        edges, counts = mesh_edges(triangles)
        axes.add_collection(LineCollection(nodes[edges], colors="#1a4480", linewidths=0.3))
        axes.add_collection(LineCollection(nodes[edges[counts == 1]], colors="black", linewidths=1.0))
        title = f"Mesh: {len(triangles)} triangles"
    else:
        centroids = nodes[triangles].mean(axis=1)
        cells = axes.hexbin(centroids[:, 0], centroids[:, 1], gridsize=80, cmap="Blues", mincnt=1)
        figure.colorbar(cells, ax=axes, shrink=0.8, label="triangles per cell")
        title = f"Mesh: {len(triangles)} triangles (too many to draw each: their density)"
    axes.set_xlim(nodes[:, 0].min(), nodes[:, 0].max())
    axes.set_ylim(nodes[:, 1].min(), nodes[:, 1].max())
    axes.set_aspect("equal")
    axes.set_title(title, fontsize=10)
    _frame(axes, crs=crs)
    return _png(figure)


@dataclass(frozen=True)
class ChartSeries:
    name: str
    t: Sequence[float]
    values: Sequence[float | None]
    bars: bool = False


def line_chart(*, series: Sequence[ChartSeries], title: str, x_label: str, y_label: str) -> bytes:
    """Series against time; a series drawn as bars (a hyetograph) has one bar per interval ending at its row."""
    plt = pyplot()
    figure, axes = plt.subplots(figsize=CHART_SIZE_INCHES)
    for item in series:
        values = [np.nan if value is None else value for value in item.values]
        if item.bars and len(item.t) > 1:
            widths = np.diff(item.t)
            axes.bar(item.t[1:], values[1:], width=-widths, align="edge", alpha=0.7, label=plain(item.name))
        else:
            axes.plot(item.t, values, label=plain(item.name))
    axes.set_title(plain(title), fontsize=10)
    axes.set_xlabel(plain(x_label), fontsize=8)
    axes.set_ylabel(plain(y_label), fontsize=8)
    axes.grid(True, alpha=0.3)
    if series:
        axes.legend(fontsize=7, loc="best")
    else:
        axes.text(0.5, 0.5, "no series", transform=axes.transAxes, ha="center", va="center")
    return _png(figure)


def mass_error_chart(*, t: Sequence[float], error_pct: Sequence[float | None], line_pct: float) -> bytes:
    """The cumulative mass error over time between the dashed ±line_pct lines a healthy model stays within."""
    plt = pyplot()
    figure, axes = plt.subplots(figsize=CHART_SIZE_INCHES)
    axes.plot(t, [np.nan if value is None else value for value in error_pct], color="#1f77b4", label="mass error")
    for sign in (1, -1):
        axes.axhline(sign * line_pct, color="#d62728", linestyle="--", linewidth=1)
    axes.set_title("Cumulative mass error", fontsize=10)
    axes.set_xlabel("Time from the run's start (s)", fontsize=8)
    axes.set_ylabel("% of the water that came in", fontsize=8)
    axes.grid(True, alpha=0.3)
    return _png(figure)


def scatter_chart(*, observed: Sequence[float], modelled: Sequence[float], tolerance: Sequence[float]) -> bytes:
    """Observed against modelled with the 1:1 line; a point's bar is its tolerance."""
    plt = pyplot()
    figure, axes = plt.subplots(figsize=(4.6, 4.6))
    axes.errorbar(observed, modelled, yerr=tolerance, fmt="o", color="#1f77b4", ecolor="#9ecae1", capsize=2)
    every = [*observed, *modelled] or [0.0, 1.0]
    low, high = min(every), max(every)
    pad = max(high - low, 0.1) * 0.1
    axes.plot([low - pad, high + pad], [low - pad, high + pad], color="#555", linestyle="--", label="1:1")
    axes.set_xlim(low - pad, high + pad)
    axes.set_ylim(low - pad, high + pad)
    axes.set_xlabel("Observed (m)", fontsize=8)
    axes.set_ylabel("Modelled (m)", fontsize=8)
    axes.set_title("Observed against modelled", fontsize=10)
    axes.legend(fontsize=7)
    axes.grid(True, alpha=0.3)
    return _png(figure)
