from pydantic import ConfigDict, Field

from hydrata_contract.requests.base import Body


class DatasetUpload(Body):
    """GeoNode's upload form (multipart): the GeoJSON arrives as base_file; GeoNode's other fields are ignored."""

    model_config = ConfigDict(extra="allow")

    base_file: bytes = Field(description="The GeoJSON file.")
