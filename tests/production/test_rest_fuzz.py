"""schemathesis against the production web command with a draft key: every operation of /api/v2/schema/, a fixed
number of generated requests each within a time cap. No 5xx, no response outside its schema, never the key echoed.

schemathesis' own pytest plugin does not run under pytest 9, so the operations are driven here with hypothesis.
"""

import time

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import content_type_conformance, not_a_server_error, response_schema_conformance

from tests.factories import make_grant, make_project

pytestmark = pytest.mark.django_db(transaction=True)
EXAMPLES_PER_OPERATION = 20
TIME_CAP_SECONDS = 240
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]


def fuzz(operation, *, base_url: str, key: str) -> None:
    @given(case=operation.as_strategy())
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    def probe(case) -> None:
        response = case.call_and_validate(
            base_url=base_url, headers={"Authorization": f"Bearer {key}"}, checks=CHECKS, timeout=30
        )
        assert key not in response.text and key[3:] not in response.text, "the key came back"

    probe()


def test_no_generated_request_gets_a_5xx_an_off_schema_answer_or_its_key_back(production_web):
    grant, key = make_grant(level="draft")
    make_project(grant.user)  # id 1 onwards, where generated ids often land
    schema = schemathesis.openapi.from_url(f"{production_web.url}/api/v2/schema/?format=json")
    deadline = time.monotonic() + TIME_CAP_SECONDS
    failures, fuzzed = [], 0
    for result in schema.get_all_operations():
        if time.monotonic() > deadline:
            break
        operation = result.ok()
        try:
            fuzz(operation, base_url=production_web.url, key=key)
        except Exception as failure:  # every operation's failure is collected, then reported
            failures.append(f"{operation.label}: {failure}"[:3000])
        fuzzed += 1

    assert not failures, "\n\n".join(failures)
    assert fuzzed == len(list(schema.get_all_operations())), f"only {fuzzed} operations within the time cap"
