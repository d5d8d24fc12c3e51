from typing import Any

from pydantic import ConfigDict, Field

from hydrata_contract.requests.base import Body


class TerrainUploadPresign(Body):
    filename: str = Field(min_length=1, max_length=300, description="The GeoTIFF's file name.")
    content_type: str = Field(
        "image/tiff", min_length=1, max_length=100, description="The Content-Type the upload will be PUT with."
    )
    size: int | None = Field(None, description="The file's size in bytes, when known: refused early if too large.")


class TerrainUploadFinalize(Body):
    staging_key: str = Field(min_length=1, max_length=300, description="The presign answer's staging_key.")
    process_id: str = Field("", max_length=64, description="The presign answer's process_id.")
    title: str = Field("", max_length=200, description="The terrain's title; the file name when blank.")


class TerrainUpload(Body):
    """The one-step upload's multipart form (the view checks `file` first, so that a missing one is FILE_MISSING)."""

    # The file arrives as the server's own file object, which no JSON type describes.
    model_config = ConfigDict(arbitrary_types_allowed=True)

    file: Any = Field(None, description="The GeoTIFF.", json_schema_extra={"type": "string", "format": "binary"})
    title: str = Field("", max_length=200, description="The terrain's title; the file name when blank.")
