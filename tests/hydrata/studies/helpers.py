"""Arrange a design study's inputs through the REST API itself, as an agent would."""

from typing import Any

import httpx

from tests.data import ARR
from tests.model_setup import PROJECTS

FILES = {
    "ifd": "Synthetic_IFD_Depths.csv",
    "temporal_patterns": "Synthetic_Increments.csv",
    "storm_losses": "Synthetic_DataHub.txt",
}


# create_design_study's argument for each kind of design input.
TOOL_ARGUMENTS = {"ifd": "ifd_csv", "temporal_patterns": "patterns_csv", "storm_losses": "losses_txt"}


def tool_files(files: dict[str, str] = FILES) -> dict[str, str]:
    """Each synthetic design input of `files` as create_design_study takes it: argument -> the file's text."""
    return {TOOL_ARGUMENTS[kind]: (ARR / file).read_text() for kind, file in files.items()}


def upload_inputs(http: httpx.Client, project_id: int, files: dict[str, str] = FILES) -> dict[str, int]:
    """Each synthetic design input of `files` (kind -> file in tests/data/arr), stored in the project: kind -> id."""
    ids = {}
    for kind, file in files.items():
        created = http.post(
            f"{PROJECTS}{project_id}/design-inputs/",
            json={"kind": kind, "name": file, "content": (ARR / file).read_text()},
        )
        assert created.status_code == 201, created.text
        ids[kind] = created.json()["id"]
    return ids


def base_scenario(http: httpx.Client, project_id: int, **fields: Any) -> dict[str, Any]:
    created = http.post(
        f"{PROJECTS}{project_id}/scenarios/", json={"name": "base", "resolution": 5, "duration": 3600, **fields}
    )
    assert created.status_code == 201, created.text
    return created.json()
