import json
from pathlib import Path
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from tests.factories import make_grant

UPLOAD = "/api/v2/uploads/upload/"
STATUS = "/api/v2/resource-service/execution-status/"
DATASETS = "/api/v2/datasets/"

_IN_REPO = Path(__file__).resolve().parents[2] / "data" / "small_test" / "inputs"
SAMPLE_INPUTS = _IN_REPO if _IN_REPO.is_dir() else Path("/work/shared/data/small_test/inputs")


def sample_bytes(name: str) -> bytes:
    return (SAMPLE_INPUTS / name).read_bytes()


def api_for(user, *, level: str = "draft") -> APIClient:
    _, key = make_grant(user, level=level)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def geojson_file(name: str, content: bytes | dict[str, Any]) -> SimpleUploadedFile:
    data = content if isinstance(content, bytes) else json.dumps(content).encode()
    return SimpleUploadedFile(name, data, content_type="application/geo+json")


def feature_collection(*features: dict[str, Any], crs: str | None = None) -> dict[str, Any]:
    collection: dict[str, Any] = {"type": "FeatureCollection", "features": list(features)}
    if crs is not None:
        collection["crs"] = {"type": "name", "properties": {"name": crs}}
    return collection


def feature(geometry: dict[str, Any] | None, **properties: Any) -> dict[str, Any]:
    return {"type": "Feature", "geometry": geometry, "properties": properties}
