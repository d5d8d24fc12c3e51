"""A design study on the production shape while its servers restart: PostgreSQL (a fast shutdown that ends every
session, five seconds down) while its first members compute, then Redis (down three seconds, back empty: every
queued member's message is gone) while they still do. Every member still ends complete, each run once and charged
once, and the study's progress, read throughout, never steps back and ends true."""

import os
import time
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from hydrata.agents.models import AgentSpend
from hydrata.anuga.models import Run
from hydrata.core.database import database_pools_close
from hydrata.studies.models import DesignMember, DesignStudy
from hydrata_contract.states import RunStatus
from tests.data import ARR
from tests.factories import make_grant
from tests.model_setup import PROJECTS, Stall, api, small_test_model
from tests.production.stack import POSTGRES_FOLDER, REDIS_FOLDER, restart_postgres, restart_redis

pytestmark = pytest.mark.django_db(transaction=True)

# 2% and 1% AEP, 5 and 10 minutes, two patterns each: eight members on two workers, so while two compute and each
# worker holds one more, four wait in Redis's queue. Each simulates four hours on a coarse small_test mesh: long
# enough to be computing through both restarts now that a member costs about 0.5 s beyond its evolve loop (with one
# hour, all eight ended before the reader saw the first restart over).
FILES = {"ifd": "Synthetic_IFD_Depths_Short.csv", "temporal_patterns": "Synthetic_Increments_Two_Patterns.csv"}
MEMBERS = 8
SIMULATED_S = 4 * 3600
SETTLED = {"complete", "error", "cancelled"}


def port_of(url: str) -> int:
    port = urlsplit(url).port
    assert port is not None
    return port


def started_study(http: httpx.Client, project_id: int) -> dict:
    project = f"{PROJECTS}{project_id}/"
    scenario = http.post(
        f"{project}scenarios/", json={"name": "base", "resolution": 20, "duration": SIMULATED_S}
    ).json()
    assert http.post(f"{project}scenarios/{scenario['id']}/build/").status_code == 202
    stall = Stall(300)
    while (built := http.get(f"{project}scenarios/{scenario['id']}/").json())["computed_status"] != "built":
        assert built["computed_status"] not in SETTLED and stall.waiting(built["computed_status"]), built
        time.sleep(1)
    inputs = {
        kind: http.post(
            f"{project}design-inputs/", json={"kind": kind, "name": name, "content": (ARR / name).read_text()}
        ).json()["id"]
        for kind, name in FILES.items()
    }
    study = http.post(
        f"{project}design-studies/",
        json={
            "name": "through the restarts",
            "base_scenario": scenario["id"],
            **inputs,
            "aeps": ["2%", "1%"],
            "durations_min": [5, 10],
            "initial_loss_mm": 5,
            "continuing_loss_mm_h": 1,
        },
    )
    assert study.status_code == 201, study.text
    started = http.post(f"{project}design-studies/{study.json()['id']}/start/")
    assert started.status_code == 202, started.text
    return started.json()


class Reader:
    """The study as its owner reads it over REST, every reading kept; a 503 while the database is down is waited
    out (the API's promise), anything else fails. A connection the web command dropped is asked again and counted
    (uvicorn's supervisor replaces a web process that misses its 5 s health check on a loaded machine)."""

    def __init__(self, http: httpx.Client, project_id: int, study_id: int) -> None:
        self.http, self.path = http, f"{PROJECTS}{project_id}/design-studies/{study_id}/"
        self.seen: list[dict] = []
        self.unavailable = self.dropped = 0

    def get(self) -> httpx.Response:
        deadline = time.monotonic() + 120
        while True:
            try:
                return self.http.get(self.path)
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the web command stopped answering"
                self.dropped += 1
                time.sleep(0.5)

    def read(self) -> dict:
        deadline = time.monotonic() + 120
        while (answer := self.get()).status_code == 503:
            assert answer.json()["code"] == "DATABASE_UNAVAILABLE", answer.text
            assert time.monotonic() < deadline, "the database stayed unavailable"
            self.unavailable += 1
            time.sleep(0.5)
        assert answer.status_code == 200, answer.text
        self.seen.append(answer.json())
        return self.seen[-1]

    def until(self, done, *, seconds: float = 240) -> dict:
        stall = Stall(seconds)
        while not done(study := self.read()):
            assert stall.waiting((study["status"], study["progress"])), study
            time.sleep(0.5)
        return study


def computing(study: dict) -> int:
    return sum(member["run_status"] == "computing" for member in study["members"])


def test_a_study_through_a_postgresql_and_a_redis_restart_completes_every_member_once_charged_once(
    production_web, two_workers, beat
):
    grant, key = make_grant(level="launch")
    model = small_test_model(production_web.url, key)
    postgres, redis = Path(os.environ[POSTGRES_FOLDER]), Path(os.environ[REDIS_FOLDER])
    began = time.monotonic()
    with api(production_web.url, key) as http:
        study = started_study(http, model.project_id)
        reader = Reader(http, model.project_id, study["id"])
        assert study["progress"]["members_total"] == MEMBERS

        reader.until(lambda s: computing(s) == 2)  # both workers busy, the rest queued
        restarts = {"postgres": time.monotonic()}
        restart_postgres(folder=postgres, port=port_of(os.environ["DATABASE_URL"]), down_seconds=5)
        during = reader.until(lambda s: computing(s) >= 1)
        restarts["redis"] = time.monotonic()
        restart_redis(folder=redis, port=port_of(os.environ["CELERY_BROKER_URL"]), down_seconds=3)
        assert computing(during) >= 1 and during["progress"]["members_done"] < MEMBERS, during
        final = reader.until(lambda s: s["status"] in SETTLED, seconds=300)
    took = time.monotonic() - began
    print(
        f"study through both restarts: {took:.0f} s, restarts at {restarts['postgres'] - began:.0f} s "
        f"and {restarts['redis'] - began:.0f} s, {len(reader.seen)} readings ({reader.unavailable} answered 503, "
        f"{reader.dropped} dropped)"
    )

    database_pools_close()  # this process's own pooled connections ended with the restart
    assert final["status"] == "complete", final
    assert final["progress"] == {
        "members_done": MEMBERS,
        "members_total": MEMBERS,
        "members_complete": MEMBERS,
        "members_failed": 0,
        "members_cancelled": 0,
        "progress_pct": 100.0,
        "eta_seconds": None,
    }
    assert final["results"]["members_used"] == MEMBERS and final["results"]["members_left_out"] == []
    # The progress never stepped back: no member counted done and then undone, no share lost.
    for earlier, later in zip(reader.seen, reader.seen[1:], strict=False):
        assert later["progress"]["members_done"] >= earlier["progress"]["members_done"], (earlier, later)
        assert later["progress"]["progress_pct"] >= earlier["progress"]["progress_pct"], (earlier, later)
        assert later["progress"]["members_total"] == MEMBERS
        assert later["progress"]["members_failed"] == 0
    # Each member ran once: its first run completed; no retry, no run in error.
    record = DesignStudy.objects.get(pk=study["id"])
    members = list(DesignMember.objects.filter(study=record).select_related("run"))
    assert len(members) == MEMBERS and {m.run.status for m in members} == {RunStatus.COMPLETE}
    assert all(m.run.retry_of_id is None for m in members)
    member_runs = Run.objects.filter(study_member=True, scenario_id=record.base_scenario_id)
    assert sorted(member_runs.values_list("pk", flat=True)) == sorted(m.run_id for m in members)
    # Charged once each, at its price, and nothing given back.
    charges = list(AgentSpend.objects.filter(grant=grant))
    assert sorted(c.reference for c in charges) == sorted(f"run:{m.run_id}" for m in members)
    assert sum((c.amount for c in charges), Decimal("0")) == record.compute_cost
    assert all(c.amount > 0 for c in charges)
