"""The uploads' answers in the contract: what the API tests cannot show, since the platform never builds it (a
state GeoNode's shape does not have, a key the model lacks)."""

import pytest
from pydantic import ValidationError

from hydrata_contract.answers.uploads import ExecutionStatus
from hydrata_contract.states import UPLOAD_DONE, UploadStatus

RUNNING = {
    "exec_id": "0b9c7a1e-58c4-4d7e-9f51-6f0c2d1e9a10",
    "status": "running",
    "func_name": "upload",
    "created": "2026-12-02T06:00:00Z",
    "last_updated": "2026-12-02T06:00:01Z",
    "log": "",
    "output_params": {},
    "queue": {"state": "running", "queue": "interactive", "ahead": None, "running": None},
}


def test_an_execution_has_no_resources_until_it_finished_and_then_names_its_dataset():
    assert ExecutionStatus.model_validate(RUNNING).output_params.resources == []
    finished = {**RUNNING, "status": "finished", "output_params": {"resources": [{"id": 7}]}}
    assert ExecutionStatus.model_validate(finished).output_params.resources[0].id == 7


def test_a_state_the_contract_does_not_name_or_a_key_the_model_lacks_is_refused():
    with pytest.raises(ValidationError, match="status"):
        ExecutionStatus.model_validate({**RUNNING, "status": "queued"})
    with pytest.raises(ValidationError, match="layers"):
        ExecutionStatus.model_validate({**RUNNING, "output_params": {"layers": []}})


def test_an_upload_is_done_when_it_finished_or_failed_and_keeps_its_recorded_labels():
    assert set(UPLOAD_DONE) == {UploadStatus.FINISHED, UploadStatus.FAILED}
    assert UploadStatus.choices() == [
        ("ready", "Ready"),
        ("running", "Running"),
        ("finished", "Finished"),
        ("failed", "Failed"),
    ]
