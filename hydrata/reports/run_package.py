"""The package a run ran (docs/scenario-package.md), as its report reads it: the manifest, the boundary and mesh
regions, the forcing and the series it read, and a design study member's storm. So a report says what ran, not the
scenario as it is now: a member's rain is its own storm, not the base scenario's, and an input changed since the
build changes nothing in the report of a run made before it.

A member's package holds only its own files (own_files); the rest it reads from the build it shares
(`package_key`). A package never changes once written, so what is read is kept in the cache by the run and its
package (HYDRATA_TILE_CACHE_SECONDS): the files are read once, not on every view."""

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.cache import cache

from hydrata.anuga.models import Run
from hydrata.anuga.services.simulation_cluster import package_key
from hydrata.compute.errors import ModelGeometryError
from hydrata.compute.scenario.package import PackageError, SeriesRecord, parse_timestamp
from hydrata.compute.simulation.forcing import forcing_applied
from hydrata.compute.spatial.geometry import BoundaryRing, MeshRegion, boundary_ring, features_in_crs, mesh_regions
from hydrata.storage import get_storage
from hydrata.storage.errors import StorageObjectNotFound

READ_VERSION = 1  # bump when what is read changes, so kept readings are read again


@dataclass(frozen=True)
class PackageSeries:
    """A time series as the package holds it (what the forcing charts draw)."""

    name: str
    series_type: str
    units: str
    rows: list[dict[str, Any]]


@dataclass
class RunPackage:
    manifest: dict[str, Any]
    layers: dict[str, list[dict[str, Any]]]
    series: dict[str, PackageSeries]
    forcing: dict[str, Any] = field(default_factory=dict)

    @property
    def own_files(self) -> set[str]:
        return set(self.manifest.get("own_files") or ())

    @property
    def design_storm(self) -> dict[str, Any] | None:
        """A design study member's storm as its package names it (AEP, duration, pattern, depths, losses and
        factors); None for any other run."""
        return self.manifest.get("design_storm")

    def ring(self) -> BoundaryRing | None:
        try:
            return boundary_ring(self.layers.get("boundary") or [])
        except ModelGeometryError:
            return None

    def regions(self) -> list[MeshRegion]:
        ring = self.ring()
        if ring is None:
            return []
        try:
            return mesh_regions(self.layers.get("mesh_region") or [], within=ring.polygon())
        except ModelGeometryError:
            return []

    def key(self, run: Run, relative: str) -> str:
        return package_key(run, self.manifest, relative)


def _json(run: Run, manifest: dict[str, Any], relative: str) -> Any:
    with get_storage().open(key=package_key(run, manifest, relative)) as stream:
        return json.load(stream)


def _read(run: Run) -> RunPackage | None:
    try:
        with get_storage().open(key=f"{run.package_prefix}/scenario.json") as stream:
            manifest = json.load(stream)
        crs = str(manifest["epsg"])
        layers = {}
        for kind in ("boundary", "mesh_region", "rainfall", "inflow"):
            relative = manifest.get(kind)
            collection = _json(run, manifest, relative) if relative else {}
            plain = [dict(feature) for feature in collection.get("features") or []]
            layers[kind] = features_in_crs(collection, target_crs=crs) if collection.get("crs") else plain
        named = {
            str((feature.get("properties") or {}).get("data") or "").strip()
            for feature in (*layers["rainfall"], *layers["inflow"])
        }
        series = {}
        for name, relative in (manifest.get("time_series") or {}).items():
            if name in named:
                document = _json(run, manifest, relative)
                series[name] = PackageSeries(
                    name=name,
                    series_type=str(document.get("series_type") or ""),
                    units=str(document.get("units") or ""),
                    rows=list(document.get("rows") or []),
                )
    except (StorageObjectNotFound, KeyError, ValueError):
        return None
    package = RunPackage(manifest=manifest, layers=layers, series=series)
    start = manifest.get("model_start")
    try:
        start_at: datetime | None = parse_timestamp(start) if start else None
    except ValueError:
        start_at = None
    try:
        package.forcing = forcing_applied(
            rainfall=layers["rainfall"],
            inflow=layers["inflow"],
            series={name: SeriesRecord(rows=item.rows, units=item.units or None) for name, item in series.items()},
            start=start_at,
            duration=float(manifest.get("duration") or run.duration),
        )
    except PackageError as problem:
        package.forcing = {"rainfall": [], "inflow": [], "problems": [str(problem)]}
    return package


def run_package(run: Run) -> RunPackage | None:
    """What the run's package holds, read once and kept; None when the run has no package any more."""
    if not run.package_prefix:
        return None
    key = f"report-package:v{READ_VERSION}:{run.pk}:{run.package_prefix}"
    found = cache.get(key)
    if found is None:
        found = _read(run)
        if found is None:
            return None
        cache.set(key, found, settings.HYDRATA_TILE_CACHE_SECONDS)
    return found
