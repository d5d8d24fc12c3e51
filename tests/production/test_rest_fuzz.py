"""schemathesis against the production web command with a draft key: every operation of /api/v2/schema/, a fixed
number of generated requests each within a time cap, most valid by the schema and some not (wrong types, missing
fields, out-of-range numbers). No 5xx, no response outside its schema, never the key echoed.

Half the generated requests address objects that exist (a project with terrain, finished runs, a flood event with an
observation, a time series), so the answers past the 404 are fuzzed and checked against their documented shapes too.
A quarter of the JSON bodies carry one of the odd value classes of tests/production/odd_values.py (huge integers,
numbers past the float range, NaN and Infinity, lone surrogates and NUL, deep nesting) in a generated field or as
the whole body, and a tenth of the query strings a number past what any field holds: each was a 500 somewhere.
schemathesis' own pytest plugin does not run under pytest 9, so the operations are driven here with hypothesis.
"""

import math
import time
from collections import Counter
from datetime import UTC, datetime

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import content_type_conformance, not_a_server_error, response_schema_conformance
from schemathesis.core import NotSet
from schemathesis.core.failures import FailureGroup
from schemathesis.generation import GenerationMode

from hydrata.anuga.models import Project
from hydrata.anuga.services.time_series import time_series_create
from hydrata.observations.services.comparisons import comparison_compute
from hydrata.observations.services.observations import flood_event_create, observation_create
from tests.factories import make_finished_run, make_grant, make_project
from tests.production.odd_values import odd_literals, spliced

pytestmark = pytest.mark.django_db(transaction=True)
EXAMPLES_PER_OPERATION = {GenerationMode.POSITIVE: 20, GenerationMode.NEGATIVE: 8}
TIME_CAP_SECONDS = 420
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]
ROWS = [{"timestamp": "2026-01-01T00:00:00Z", "value": 1.0}, {"timestamp": "2026-01-01T01:00:00Z", "value": 2.0}]
# Numbers as query text past what any field holds (page sizes, filters): digits Python will not convert, inf, nan.
ODD_QUERY_VALUES = st.sampled_from(["9" * 5000, "9" * 400, "-" + "9" * 30, "1e400", "NaN", "-Infinity", "\u0663"])
# The codes the one parser answers the odd value classes with (hydrata/compute/inputs/numbers.py).
ODD_VALUE_CODES = {"NUMBER_OUT_OF_RANGE", "NUMBER_NOT_FINITE", "INVALID_TEXT", "JSON_TOO_DEEP"}


def tile_over(bbox_wgs84: list[float], *, z: int = 15) -> dict[str, list]:
    """The XYZ address of the Web Mercator tile over the middle of a box in degrees."""
    lon, lat = (bbox_wgs84[0] + bbox_wgs84[2]) / 2, (bbox_wgs84[1] + bbox_wgs84[3]) / 2
    n = 2**z
    x = int((lon + 180) / 360 * n)
    y = int((1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * n)
    return {"z": [str(z)], "x": [str(x)], "y": [str(y)]}


def existing_objects(project: Project) -> dict[str, list]:
    """Real objects of every kind a route names, by the route's parameter name."""
    user = project.owner
    run, other = make_finished_run(project), make_finished_run(project)
    west, south, east, north = run.scenario.terrain.bbox_native
    event = flood_event_create(
        project=project, user=user, name="March flood", started_at=datetime(2026, 3, 1, tzinfo=UTC)
    )
    observation = observation_create(
        event=event, user=user, x=(west + east) / 2, y=(south + north) / 2, quantity="peak_depth", value_m=0.5
    )
    comparison = comparison_compute(run=run, event=event, user=user)
    series = time_series_create(
        project=project, user=user, name="Rain", series_type="hyetograph", units="mm/hr", data={"rowData": ROWS}
    )
    return {
        "project_id": [project.pk],
        "map_id": [project.base_map_id],
        "terrain_id": [run.scenario.terrain_id],
        "scenario_id": [run.scenario_id, other.scenario_id],
        "run_id": [run.pk],
        "other_run_id": [other.pk],
        "event_id": [event.pk],
        "observation_id": [observation.pk],
        "comparison_id": [comparison.pk],
        "series_id": [series.pk],
        "layer_id": list(project.input_layers.values_list("pk", flat=True)),
        "style": ["hillshade", "elevation"],
        "layer": ["max_depth", "max_stage"],
        **tile_over(run.scenario.terrain.bbox_wgs84),
    }


def fuzz(
    operation, mode: GenerationMode, *, base_url: str, key: str, known: dict[str, list], statuses: Counter
) -> None:
    @given(case=operation.as_strategy(generation_mode=mode), data=st.data())
    @settings(
        max_examples=EXAMPLES_PER_OPERATION[mode],
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    def probe(case, data) -> None:
        if case.path_parameters and data.draw(st.booleans(), label="address existing objects"):
            for name in case.path_parameters.keys() & known.keys():
                case.path_parameters[name] = data.draw(st.sampled_from(known[name]), label=name)
        if case.query and data.draw(st.integers(0, 9), label="an odd query value") == 0:
            case.query[data.draw(st.sampled_from(sorted(case.query)), label="query name")] = data.draw(ODD_QUERY_VALUES)
        extra = odd_body(case, data)
        response = case.call_and_validate(
            base_url=base_url, headers={"Authorization": f"Bearer {key}"}, checks=CHECKS, timeout=60, **extra
        )
        statuses[response.status_code // 100] += 1
        if extra and response.status_code == 400:
            statuses[response.json().get("code")] += 1
        body = response.content  # bytes: a tile is a PNG
        assert key.encode() not in body and key[3:].encode() not in body, "the key came back"

    probe()


def odd_body(case, data) -> dict[str, bytes]:
    """For a quarter of the JSON bodies, the body as raw JSON text with an odd value in a field or as the whole."""
    if case.media_type != "application/json" or isinstance(case.body, NotSet):
        return {}
    if data.draw(st.integers(0, 3), label="an odd value in the body") != 0:
        return {}
    literal = data.draw(odd_literals, label="odd value")
    fields = sorted(case.body) if isinstance(case.body, dict) else []
    field = data.draw(st.sampled_from(fields) | st.none(), label="in field") if fields else None
    return {"data": spliced(case.body, literal, field=field)}


def test_no_generated_request_gets_a_5xx_an_off_schema_answer_or_its_key_back(production_web):
    grant, key = make_grant(level="draft")
    known = existing_objects(make_project(grant.user))
    schema = schemathesis.openapi.from_url(f"{production_web.url}/api/v2/schema/?format=json")
    deadline = time.monotonic() + TIME_CAP_SECONDS
    failures, fuzzed, statuses = [], 0, Counter()
    for result in schema.get_all_operations():
        if time.monotonic() > deadline:
            break
        operation = result.ok()
        for mode in EXAMPLES_PER_OPERATION:
            # Every operation's failure is collected, then reported. Several checks failing together raise a
            # FailureGroup, which is a BaseExceptionGroup and no Exception.
            try:
                fuzz(operation, mode, base_url=production_web.url, key=key, known=known, statuses=statuses)
            except (Exception, FailureGroup) as failure:
                failures.append(f"{operation.label} ({mode.value}): {failure}"[:3000])
        fuzzed += 1

    assert not failures, "\n\n".join(failures)
    assert fuzzed == len(list(schema.get_all_operations())), f"only {fuzzed} operations within the time cap"
    assert statuses[2] > fuzzed, f"too few requests got past the refusals: {dict(statuses)}"
    # The odd values reached the parser and were answered with its codes, not lost to earlier refusals.
    assert sum(statuses[code] for code in ODD_VALUE_CODES) >= 20, f"odd values not refused: {dict(statuses)}"
