"""Writes for uploads: accept a GeoJSON file, then import it into a Dataset in the background.

A file a person got wrong never raises out of the import: it ends as a failed execution whose log says what is
wrong and where. Only infrastructure failures (storage, database) raise, after marking the execution failed.
"""

import json
import logging
import math
import re
import uuid
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from uuid import UUID

import numpy
import shapely
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify
from pyproj import CRS, Transformer
from pyproj.exceptions import CRSError, ProjError
from shapely.errors import ShapelyError
from shapely.geometry import shape
from shapely.geometry.base import BaseGeometry
from shapely.validation import explain_validity

from hydrata.core.errors import ValidationFailed
from hydrata.storage import get_storage
from hydrata.uploads.models import Dataset, UploadExecution, UploadStatus

logger = logging.getLogger(__name__)

GEOJSON_EXTENSIONS = (".geojson", ".json")
GEOJSON_CONTENT_TYPE = "application/geo+json"
MAX_NAME_LENGTH = 100  # of the slug part of a stored file name and of a dataset's name
MAX_LISTED_PROBLEMS = 10
DEFAULT_CRS = "EPSG:4326"
INTERNAL_FAILURE = "The import stopped because of an internal error; it has been logged. Try the upload again later."

# How deep each geometry type nests its positions: a Point's coordinates are one position (depth 0).
POSITION_DEPTH = {"Point": 0, "MultiPoint": 1, "LineString": 1, "MultiLineString": 2, "Polygon": 2, "MultiPolygon": 3}
GEOMETRY_TYPES = (*POSITION_DEPTH, "GeometryCollection")
GEOMETRY_TYPE_NAMES = {  # shapely.get_type_id -> GeoJSON type
    0: "Point", 1: "LineString", 3: "Polygon", 4: "MultiPoint", 5: "MultiLineString", 6: "MultiPolygon",
    7: "GeometryCollection",
}
NUMBER_TYPES = (int, float)

# The ways a legacy GeoJSON "crs" member names a CRS by authority and code; nothing else reaches pyproj.
CRS_NAME_PATTERNS = (
    re.compile(r"(?P<authority>[A-Za-z]+):(?P<code>[A-Za-z0-9]+)"),  # EPSG:28356, OGC:CRS84
    re.compile(r"urn:ogc:def:crs:(?P<authority>[A-Za-z]+):[0-9.]*:(?P<code>[A-Za-z0-9]+)", re.IGNORECASE),
    re.compile(r"https?://www\.opengis\.net/def/crs/(?P<authority>[A-Za-z]+)/[0-9.]+/(?P<code>[A-Za-z0-9]+)"),
)


class GeoJSONRejected(Exception):
    """The file cannot be imported; the message says why, for the person who uploaded it."""


@dataclass(frozen=True)
class InspectedCollection:
    features: list[dict[str, Any]]
    crs: str  # authority code, e.g. "EPSG:28356"
    geometry_types: list[str]
    property_names: list[str]
    bbox_native: list[float]
    bbox_wgs84: list[float]


# --- the upload ------------------------------------------------------------------------------------------------


def upload_create(*, user: AbstractBaseUser, uploaded_file: UploadedFile) -> UploadExecution:
    """Keep the file and queue its import. Refuses up front what cannot be GeoJSON or is too large."""
    original_name = PurePosixPath((uploaded_file.name or "").replace("\\", "/")).name
    stem, extension = _split_extension(original_name)
    if extension not in GEOJSON_EXTENSIONS:
        raise ValidationFailed(
            f"{original_name[:100]!r} is not a GeoJSON file: upload a file ending in .geojson or .json.",
            code="NOT_GEOJSON",
        )
    limit = settings.HYDRATA_GEOJSON_MAX_BYTES
    if uploaded_file.size > limit:
        raise ValidationFailed(
            f"The file is {uploaded_file.size:,} bytes; a GeoJSON upload may be at most {limit:,} bytes.",
            code="UPLOAD_TOO_LARGE",
            size=uploaded_file.size,
            max_bytes=limit,
        )

    from hydrata.uploads.tasks import dataset_import_task  # the task module imports this one

    execution_id = uuid.uuid4()
    storage_key = f"uploads/{execution_id}/{_slug(stem)}{extension}"
    with transaction.atomic():
        execution = UploadExecution.objects.create(
            id=execution_id,
            user=user,
            filename=original_name[:255],
            storage_key=storage_key,
            status=UploadStatus.READY,
            log=f"Received {original_name} ({uploaded_file.size:,} bytes); the import is queued.\n",
        )
        uploaded_file.seek(0)
        get_storage().save(key=storage_key, data=uploaded_file, content_type=GEOJSON_CONTENT_TYPE)
        transaction.on_commit(lambda: dataset_import_task.delay(str(execution.id)))
    return execution


# --- the import ------------------------------------------------------------------------------------------------


def dataset_import(*, execution_id: UUID | str) -> UploadExecution | None:
    """Import an uploaded file: the execution ends finished (with its dataset) or failed (with the reason)."""
    claimed = UploadExecution.objects.filter(
        pk=execution_id, status__in=[UploadStatus.READY, UploadStatus.RUNNING]
    ).update(status=UploadStatus.RUNNING, updated_at=timezone.now())
    execution = UploadExecution.objects.filter(pk=execution_id).select_related("user").first()
    if execution is None:
        logger.warning("Upload execution %s no longer exists; nothing to import.", execution_id)
        return None
    if not claimed:
        logger.info("Upload execution %s is already %s; not importing it again.", execution_id, execution.status)
        return execution

    _log_append(execution, "Import started.")
    try:
        data = _upload_read(execution=execution)
        inspected = geojson_inspect(data=data, max_features=settings.HYDRATA_GEOJSON_MAX_FEATURES)
        dataset = _dataset_create(execution=execution, inspected=inspected)
    except GeoJSONRejected as rejected:
        return _execution_fail(execution=execution, reason=str(rejected))
    except Exception:
        logger.exception("Import of upload execution %s failed on an infrastructure error", execution_id)
        _execution_fail(execution=execution, reason=INTERNAL_FAILURE)
        raise
    logger.info("Upload execution %s imported as dataset %s", execution_id, dataset.pk)
    return execution


def _upload_read(*, execution: UploadExecution) -> bytes:
    storage = get_storage()
    limit = settings.HYDRATA_GEOJSON_MAX_BYTES
    size = storage.size(key=execution.storage_key)
    if size > limit:
        raise GeoJSONRejected(f"The file is {size:,} bytes; a GeoJSON upload may be at most {limit:,} bytes.")
    with storage.open(key=execution.storage_key) as stream:
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise GeoJSONRejected(f"The file is more than {limit:,} bytes; a GeoJSON upload may be at most that.")
    return data


def _dataset_create(*, execution: UploadExecution, inspected: InspectedCollection) -> Dataset:
    stem, _ = _split_extension(execution.filename)
    normalised = {
        "type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": _crs_urn(inspected.crs)}},
        "features": inspected.features,
    }
    payload = json.dumps(normalised, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
    storage = get_storage()
    storage_key = f"datasets/{uuid.uuid4()}/features.geojson"
    storage.save(key=storage_key, data=payload, content_type=GEOJSON_CONTENT_TYPE)
    log_before = execution.log
    try:
        with transaction.atomic():
            dataset = Dataset.objects.create(
                owner=execution.user,
                title=(stem.strip() or "Untitled")[:255],
                name=_slug(stem),
                storage_key=storage_key,
                crs=inspected.crs,
                feature_count=len(inspected.features),
                geometry_types=inspected.geometry_types,
                property_names=inspected.property_names,
                bbox_wgs84=inspected.bbox_wgs84,
                bbox_native=inspected.bbox_native,
            )
            execution.dataset = dataset
            execution.status = UploadStatus.FINISHED
            _log_append(
                execution,
                f"Read a FeatureCollection of {dataset.feature_count:,} feature(s) "
                f"({', '.join(dataset.geometry_types)}) in {dataset.crs}.\n"
                f"Import finished: dataset {dataset.pk} ({dataset.name!r}).",
                save=False,
            )
            execution.save(update_fields=["dataset", "status", "log", "updated_at"])
    except Exception:
        execution.dataset, execution.status, execution.log = None, UploadStatus.RUNNING, log_before
        try:
            storage.delete(key=storage_key)
        except Exception:
            logger.exception("Could not remove %s after a failed import", storage_key)
        raise
    return dataset


def _execution_fail(*, execution: UploadExecution, reason: str) -> UploadExecution:
    execution.status = UploadStatus.FAILED
    _log_append(execution, f"Import failed. {reason}", save=False)
    execution.save(update_fields=["status", "log", "updated_at"])
    return execution


def _log_append(execution: UploadExecution, text: str, *, save: bool = True) -> None:
    execution.log = f"{execution.log.rstrip()}\n{text}\n".lstrip("\n")
    if save:
        execution.save(update_fields=["status", "log", "updated_at"])


# --- reading and checking GeoJSON ------------------------------------------------------------------------------


def geojson_inspect(*, data: bytes, max_features: int) -> InspectedCollection:
    """Parse and check a GeoJSON FeatureCollection, or raise GeoJSONRejected saying what is wrong and where."""
    document = _json_parse(data)
    if not isinstance(document, dict):
        raise GeoJSONRejected(
            f"The file is JSON but not GeoJSON: its top level is {_json_kind(document)}, "
            'not an object with "type": "FeatureCollection".'
        )
    kind = document.get("type")
    if kind != "FeatureCollection":
        got = f'"type": {_json_excerpt(kind)}' if "type" in document else 'no "type" member'
        hint = ""
        if kind == "Feature":
            hint = ' Wrap the feature in a collection: {"type": "FeatureCollection", "features": [<the feature>]}.'
        elif kind in GEOMETRY_TYPES:
            hint = " Wrap the geometry in a Feature, inside a FeatureCollection."
        raise GeoJSONRejected(f"Expected a GeoJSON FeatureCollection, but the file has {got}.{hint}")

    features = document.get("features")
    if not isinstance(features, list):
        got = _json_kind(features) if "features" in document else "missing"
        raise GeoJSONRejected(f'The FeatureCollection\'s "features" member is {got}; it must be a list of Features.')
    if not features:
        raise GeoJSONRejected("The FeatureCollection has no features; there is nothing to import.")
    if len(features) > max_features:
        raise GeoJSONRejected(
            f"The FeatureCollection has {len(features):,} features; at most {max_features:,} can be imported "
            "from one file. Split it into smaller files."
        )

    crs_code, crs = _crs_read(document)
    geometries, geometry_types, property_names = _features_check(features)
    bbox_native = [float(value) for value in shapely.total_bounds(geometries)]
    bbox_wgs84 = _bbox_to_wgs84(bbox_native, crs=crs, crs_code=crs_code, declared="crs" in document)
    return InspectedCollection(
        features=features,
        crs=crs_code,
        geometry_types=geometry_types,
        property_names=property_names,
        bbox_native=bbox_native,
        bbox_wgs84=bbox_wgs84,
    )


class _NotStandardJSON(ValueError):
    pass


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotStandardJSON(f"the number {text[:40]} is too large to represent")
    return value


def _reject_constant(name: str) -> Any:
    raise _NotStandardJSON(f"it contains {name}, which JSON does not allow")


def _json_parse(data: bytes) -> Any:
    if not data.strip():
        raise GeoJSONRejected("The file is empty.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise GeoJSONRejected(
            f"The file is not UTF-8 text: the byte at line {line}, column {column} cannot be read as UTF-8 "
            f"({error.reason}). Save the file as UTF-8 and upload it again."
        ) from None
    try:
        return json.loads(text, parse_float=_finite_float, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        raise GeoJSONRejected(
            f"The file is not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}."
        ) from None
    except _NotStandardJSON as error:
        raise GeoJSONRejected(f"The file is not valid JSON: {error}.") from None
    except RecursionError:
        raise GeoJSONRejected("The file is not usable JSON: it nests arrays or objects too deeply.") from None
    except ValueError as error:  # e.g. an integer with more digits than Python will convert
        raise GeoJSONRejected(f"The file is not usable JSON: {error}.") from None


def _crs_read(document: dict[str, Any]) -> tuple[str, CRS]:
    """The legacy "crs" member (GeoJSON 2008) names the CRS; without one, coordinates are longitude/latitude."""
    member = document.get("crs")
    if member is None:
        return DEFAULT_CRS, CRS.from_user_input(DEFAULT_CRS)
    name = None
    if isinstance(member, str):
        name = member
    elif isinstance(member, dict) and isinstance(member.get("properties"), dict):
        properties = member["properties"]
        if member.get("type") == "name" and isinstance(properties.get("name"), str):
            name = properties["name"]
        elif member.get("type") == "EPSG" and isinstance(properties.get("code"), int | str):
            name = f"EPSG:{properties['code']}"
    if name is None:
        raise GeoJSONRejected(
            'The "crs" member is not in a form this importer reads. Name the CRS like '
            '{"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::28356"}}, or leave "crs" out if '
            "the coordinates are longitude/latitude (EPSG:4326)."
        )
    name = name.strip()
    match = next((m for pattern in CRS_NAME_PATTERNS if (m := pattern.fullmatch(name))), None)
    if match is None:
        raise GeoJSONRejected(
            f'The "crs" member names {name[:80]!r}, which is not an authority code. Name the CRS by its EPSG code, '
            'e.g. "EPSG:28356" or "urn:ogc:def:crs:EPSG::28356".'
        )
    authority, code = match["authority"].upper(), match["code"].upper()
    try:
        crs = CRS.from_authority(authority, code)
    except CRSError:
        raise GeoJSONRejected(
            f'The "crs" member names {authority}:{code}, which is not a known coordinate reference system. '
            'Check the code (e.g. "EPSG:28356" for GDA94 / MGA zone 56).'
        ) from None
    if not (crs.is_geographic or crs.is_projected):
        raise GeoJSONRejected(
            f'The "crs" member names {authority}:{code} ({crs.name}), which is not a horizontal (geographic or '
            "projected) coordinate reference system."
        )
    return f"{authority}:{code}", crs


def _crs_urn(crs_code: str) -> str:
    authority, code = crs_code.split(":", 1)
    if (authority, code) == ("OGC", "CRS84"):
        return "urn:ogc:def:crs:OGC:1.3:CRS84"
    return f"urn:ogc:def:crs:{authority}::{code}"


def _features_check(features: list[Any]) -> tuple[list[BaseGeometry], list[str], list[str]]:
    """Every feature must be a Feature with a non-empty, valid geometry. Lists the first problems found."""
    problems: list[tuple[int, str]] = []
    built: list[BaseGeometry] = []
    built_at: list[int] = []
    property_names: dict[str, None] = {}
    for index, feature in enumerate(features):
        problem, geometry = _feature_build(feature)
        if problem:
            problems.append((index, problem))
            continue
        built.append(geometry)
        built_at.append(index)
        property_names.update(dict.fromkeys(feature.get("properties") or {}))
    # Emptiness and validity are checked for all geometries at once (vectorised in GEOS), then explained.
    geometries = numpy.asarray(built, dtype=object)
    empty = shapely.is_empty(geometries)
    invalid = ~empty & ~shapely.is_valid(geometries)
    for position in numpy.flatnonzero(empty | invalid):
        geometry = geometries[position]
        problems.append((
            built_at[position],
            f"has an empty {geometry.geom_type} geometry." if empty[position]
            else f"has an invalid {geometry.geom_type} geometry: {_validity_reason(geometry)}.",
        ))
    if problems:
        problems.sort(key=lambda item: item[0])
        listed = [f"- {_feature_label(index, features[index])} {problem}"
                  for index, problem in problems[:MAX_LISTED_PROBLEMS]]
        more = len(problems) - len(listed)
        header = (
            f"{len(problems):,} of {len(features):,} feature(s) cannot be imported "
            "(features are numbered from 0, in file order):"
        )
        raise GeoJSONRejected("\n".join([header, *listed, *([f"... and {more:,} more."] if more else [])]))
    geometry_types = sorted(set(shapely.get_type_id(geometries).tolist()))
    return built, [GEOMETRY_TYPE_NAMES[type_id] for type_id in geometry_types], list(property_names)


def _feature_label(index: int, feature: Any) -> str:
    if isinstance(feature, dict) and isinstance(feature.get("id"), str | int) and not isinstance(feature["id"], bool):
        return f"Feature {index} (id {_json_excerpt(feature['id'])})"
    return f"Feature {index}"


def _feature_build(feature: Any) -> tuple[str | None, BaseGeometry | None]:
    if not isinstance(feature, dict) or feature.get("type") != "Feature":
        got = f'"type": {_json_excerpt(feature.get("type"))}' if isinstance(feature, dict) else _json_kind(feature)
        return f'is not a GeoJSON Feature (it is {got}; expected an object with "type": "Feature").', None
    properties = feature.get("properties")
    if properties is not None and not isinstance(properties, dict):
        return f'has "properties" that are {_json_kind(properties)}, not an object or null.', None
    geometry = feature.get("geometry")
    if geometry is None:
        return "has no geometry; every feature needs one.", None
    problem = _geometry_structure_problem(geometry)
    if problem:
        return f"has {problem}.", None
    geometry_type = geometry["type"]
    try:
        return None, shape(geometry)
    except (ShapelyError, ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as error:
        return f"has a {geometry_type} geometry that cannot be built: {error}.", None


def _geometry_structure_problem(geometry: Any) -> str | None:
    """Say clearly what is malformed before shapely sees it (shapely's own messages are hard to act on)."""
    if not isinstance(geometry, dict):
        return f"a geometry that is {_json_kind(geometry)}, not an object"
    geometry_type = geometry.get("type")
    if geometry_type == "GeometryCollection":
        members = geometry.get("geometries")
        if not isinstance(members, list):
            return 'a GeometryCollection without a "geometries" list'
        for index, member in enumerate(members):
            problem = _geometry_structure_problem(member)
            if problem:
                return f"{problem} (member {index} of its GeometryCollection)"
        return None
    if geometry_type not in POSITION_DEPTH:
        expected = ", ".join(GEOMETRY_TYPES)
        return f"a geometry of unknown type {_json_excerpt(geometry_type)} (expected one of {expected})"
    if "coordinates" not in geometry:
        return f'a {geometry_type} geometry without "coordinates"'
    problem = _positions_problem(geometry["coordinates"], depth=POSITION_DEPTH[geometry_type])
    return f"a {geometry_type} geometry with {problem}" if problem else None


def _positions_problem(value: Any, *, depth: int) -> str | None:
    if depth == 0:
        # type() rather than isinstance() keeps booleans out; JSON floats were checked finite when parsed.
        if type(value) is list and 2 <= len(value) <= 3 and all(type(n) in NUMBER_TYPES for n in value):
            return None
        return f"a position that is not 2 or 3 numbers: {_json_excerpt(value)}"
    if type(value) is not list:
        return f"coordinates nested wrongly: expected a list, found {_json_excerpt(value)}"
    for item in value:
        problem = _positions_problem(item, depth=depth - 1)
        if problem:
            return problem
    return None


def _validity_reason(geometry: BaseGeometry) -> str:
    """explain_validity says e.g. 'Self-intersection[251100 6271900]'; say 'Self-intersection at (251100, ...)'."""
    reason = explain_validity(geometry)
    match = re.fullmatch(r"(?P<what>.*?)\s*\[(?P<where>[^\]]*)\]", reason)
    if match is None:
        return reason
    return f"{match['what']} at ({', '.join(match['where'].split())})"


def _bbox_to_wgs84(bbox: list[float], *, crs: CRS, crs_code: str, declared: bool) -> list[float]:
    minx, miny, maxx, maxy = bbox
    if crs.is_geographic and not (-180 <= minx <= maxx <= 180 and -90 <= miny <= maxy <= 90):
        where = f"x {minx:g} to {maxx:g}, y {miny:g} to {maxy:g}"
        if not declared:
            raise GeoJSONRejected(
                "The file names no CRS, so its coordinates are read as longitude/latitude (EPSG:4326), but they "
                f"span {where}, outside -180..180 and -90..90. If they are projected coordinates (e.g. metres in "
                'MGA zone 56), add a "crs" member naming the CRS: '
                '{"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::28356"}}.'
            )
        raise GeoJSONRejected(
            f"The coordinates span {where}, outside the longitude/latitude range of {crs_code}. "
            'Check that the "crs" member names the CRS the coordinates are in.'
        )
    try:
        transformer = Transformer.from_crs(crs, CRS.from_epsg(4326), always_xy=True)
        corners = transformer.transform_bounds(minx, miny, maxx, maxy, densify_pts=21)
    except ProjError as error:
        raise GeoJSONRejected(
            f"The features' extent cannot be converted from {crs_code} to longitude/latitude ({error}). "
            'Check that the "crs" member names the CRS the coordinates are in.'
        ) from None
    west, south, east, north = (float(value) for value in corners)
    if not all(math.isfinite(v) for v in (west, south, east, north)) or not (-90 <= south <= north <= 90):
        raise GeoJSONRejected(
            f"The features' extent cannot be converted from {crs_code} to longitude/latitude: the coordinates "
            f'are outside the area {crs_code} covers. Check that the "crs" member names the CRS they are in.'
        )
    return [west, south, east, north]


# --- small helpers ---------------------------------------------------------------------------------------------


def _split_extension(filename: str) -> tuple[str, str]:
    path = PurePosixPath(filename)
    return (path.stem, path.suffix.lower()) if path.suffix else (path.name, "")


def _slug(text: str) -> str:
    return slugify(text)[:MAX_NAME_LENGTH].strip("-_") or "upload"


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _json_excerpt(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else f"{text[:limit]}..."
