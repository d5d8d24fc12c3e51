"""Launching on PostgreSQL's row locks, and a worker machine lost mid-run, on the production shape."""

import asyncio
import os
import signal
import time
from decimal import Decimal

import pytest

from hydrata.agents.models import AgentSpend
from hydrata.agents.services import account_set_spend_limit
from hydrata.anuga.models import Run, Scenario
from hydrata.anuga.services.runs import run_price
from tests.factories import make_grant
from tests.hydrata_mcp.test_runs import built_scenario, child_of, poll_status
from tests.mcp_client import mcp_client
from tests.model_setup import small_test_model, until

pytestmark = pytest.mark.django_db(transaction=True)
CONCURRENT_STARTS = 4


def test_concurrent_starts_against_a_limit_that_allows_one_charge_exactly_one(production_web, two_workers):
    grant, key = make_grant(level="launch")
    model = small_test_model(production_web.url, key)

    async def build_all():
        async with mcp_client(production_web.url, key) as client:
            return [await built_scenario(client, model, duration=300, resolution=10) for _ in range(CONCURRENT_STARTS)]

    scenarios = asyncio.run(build_all())
    prices = [run_price(run=Run.objects.filter(scenario_id=s["id"]).latest("pk")) for s in scenarios]
    assert max(prices) < 2 * min(prices)
    account_set_spend_limit(user=grant.user, limit=max(prices))

    async def start(scenario_id: int):
        async with mcp_client(production_web.url, key) as client:
            return await client.call_tool("start_simulation", {"scenario_id": scenario_id})

    async def start_all():
        return await asyncio.gather(*(start(s["id"]) for s in scenarios))

    results = asyncio.run(start_all())

    started = [r for r in results if not r.is_error]
    refused = [r for r in results if r.is_error]
    assert len(started) == 1, [r.content[0].text for r in results]
    assert all("SPEND_LIMIT_EXCEEDED" in r.content[0].text for r in refused), [r.content[0].text for r in refused]
    spends = list(AgentSpend.objects.filter(grant=grant))
    assert len(spends) == 1 and spends[0].amount <= Decimal(max(prices))
    assert spends[0].reference == f"run:{started[0].structured_content['id']}"


def test_a_worker_killed_mid_run_ends_it_in_error_and_the_other_worker_completes_its_retry(
    production_web, two_workers, beat
):
    _, key = make_grant(level="launch")
    model = small_test_model(production_web.url, key)

    async def session():
        async with mcp_client(production_web.url, key) as client:
            scenario = await built_scenario(client, model, duration=200_000, resolution=10)
            started = await client.call_tool("start_simulation", {"scenario_id": scenario["id"]})
            run_id = started.structured_content["id"]
            await poll_status(client, run_id, {"computing"}, seconds=120)
            child = await child_of(run_id)
            return run_id, child["pid"]

    run_id, pid = asyncio.run(session())
    hostname = Run.objects.get(pk=run_id).worker_hostname
    doomed = next(w for w in two_workers if hostname.startswith(f"{w.name}@"))
    survivor = next(w for w in two_workers if w is not doomed)
    doomed.process.send_signal(signal.SIGKILL)

    async def after_the_kill():
        async with mcp_client(production_web.url, key) as client:
            return await poll_status(client, run_id, {"error", "complete", "cancelled"}, seconds=90)

    seen = asyncio.run(after_the_kill())
    assert seen[-1]["status"] == "error" and "worker" in seen[-1]["error_message"], seen[-1]
    time.sleep(2)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # the child died with its worker

    Scenario.objects.filter(runs__pk=run_id).update(duration=300)  # the retry rebuilds from the scenario

    async def retry():
        async with mcp_client(production_web.url, key) as client:
            retried = await client.call_tool("retry_run", {"run_id": run_id})
            return retried, await poll_status(
                client, retried.structured_content["id"], {"complete", "error", "cancelled"}, seconds=180
            )

    retried, after = asyncio.run(retry())
    assert not retried.is_error, retried.content[0].text
    assert after[-1]["status"] == "complete", after[-1]
    retry_record = until(
        lambda: {"host": Run.objects.get(pk=retried.structured_content["id"]).worker_hostname}, lambda r: r["host"]
    )
    assert retry_record["host"].startswith(f"{survivor.name}@")
