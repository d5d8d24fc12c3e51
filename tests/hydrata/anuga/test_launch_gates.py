"""Every gate in front of computing, on every way in: starting a built scenario and retrying an errored run, over
REST and through the MCP tools, with an agent key and with a connect-flow token.

The gates: the account's pause, its monthly spend limit, the owner's sign-off, and the launch level. Each refusal
carries its code and changes nothing (no run made, nothing charged, the run as it was); with every gate open the
same call goes through, so a refusal is the gate's and not the path's."""

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

import pytest
from django.contrib.auth.models import User

from config.celery import app as celery_app
from hydrata.agents.models import AgentSpend
from hydrata.agents.services import account_set_paused, account_set_runs_need_approval, account_set_spend_limit
from hydrata.anuga.models import Run
from hydrata_contract.states import RunStatus
from tests.factories import make_grant, make_user
from tests.hydrata.oauth.flow import connect
from tests.mcp_client import call
from tests.model_setup import PROJECTS, api, small_test_model

pytestmark = pytest.mark.django_db(transaction=True)


@dataclass
class Gate:
    code: str
    close: Callable[[User], None]
    open: Callable[[User], None]


GATES = {
    "paused": Gate(
        "AGENT_PAUSED",
        lambda user: account_set_paused(user=user, paused=True),
        lambda user: account_set_paused(user=user, paused=False),
    ),
    "spend limit": Gate(
        "SPEND_LIMIT_EXCEEDED",
        lambda user: account_set_spend_limit(user=user, limit=Decimal("0.00")),
        lambda user: account_set_spend_limit(user=user, limit=None),
    ),
    "sign-off": Gate(
        "APPROVAL_REQUIRED",
        lambda user: account_set_runs_need_approval(user=user, required=True),
        lambda user: account_set_runs_need_approval(user=user, required=False),
    ),
}
LEVEL_CODE = "GRANT_LEVEL_TOO_LOW"


@dataclass
class Caller:
    """One way in: `ask(credential, action, target id)` -> the refusal's code, or None when it went through."""

    name: str
    ask: Callable[[str, str, str, int], str | None]


def over_rest(url: str, credential: str, action: str, target: int) -> str | None:
    path = f"/api/v2/anuga/scenarios/{target}/run/" if action == "start" else f"/api/v2/anuga/runs/{target}/retry/"
    with api(url, credential) as http:
        response = http.post(path)
    return None if response.status_code == 202 else response.json()["code"]


def through_mcp(url: str, credential: str, action: str, target: int) -> str | None:
    if action == "start":
        result = call(url, credential, "start_simulation", {"scenario_id": target})
    else:
        result = call(url, credential, "retry_run", {"run_id": target})
    if not result.is_error:
        return None
    text = result.content[0].text
    return next((code for code in [*(gate.code for gate in GATES.values()), LEVEL_CODE] if code in text), text)


def agent_keys(user: User) -> tuple[str, str]:
    return make_grant(user, level="launch")[1], make_grant(user, level="draft")[1]


def connect_tokens(user: User) -> tuple[str, str]:
    return connect(user, level="launch").access_token, connect(user, level="draft").access_token


WAYS_IN = {
    "REST, agent key": (over_rest, agent_keys),
    "REST, connect-flow token": (over_rest, connect_tokens),
    "MCP, agent key": (through_mcp, agent_keys),
    "MCP, connect-flow token": (through_mcp, connect_tokens),
}


def built_scenario(url: str, user: User) -> int:
    _, key = make_grant(user, level="draft", name="builder")
    model = small_test_model(url, key)
    with api(url, key) as http:
        scenario = http.post(
            f"{PROJECTS}{model.project_id}/scenarios/", json={"name": "gated", "resolution": 10, "duration": 300}
        ).json()
        assert http.post(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/build/").status_code == 202
    celery_app.conf.task_always_eager = False  # from here on nothing computes: a start leaves its run queued
    return scenario["id"]


def state() -> tuple:
    return (
        Run.objects.count(),
        list(AgentSpend.objects.values_list("amount", flat=True)),
        list(Run.objects.order_by("pk").values_list("status", flat=True)),
    )


def refusals(ask, url: str, user: User, credentials: tuple[str, str], action: str, target: int) -> dict[str, str]:
    """What each closed gate answered, and what changed, where it was not the gate's refusal with nothing
    changed."""
    launch, draft = credentials
    wrong = {}
    for name, gate in GATES.items():
        before = state()
        gate.close(user)
        try:
            answer = ask(url, launch, action, target)
        finally:
            gate.open(user)
        if answer != gate.code or state() != before:
            wrong[f"{action}, {name}"] = f"answered {answer}; {before} became {state()}"
    before = state()
    answer = ask(url, draft, action, target)
    if answer != LEVEL_CODE or state() != before:
        wrong[f"{action}, draft level"] = f"answered {answer}; {before} became {state()}"
    return wrong


@pytest.mark.parametrize("way_in", list(WAYS_IN))
def test_every_gate_refuses_start_and_retry_on_this_way_in_and_then_lets_the_same_call_through(live_asgi, way_in):
    ask, credentials_of = WAYS_IN[way_in]
    user = make_user()
    credentials = credentials_of(user)
    scenario_id = built_scenario(live_asgi.url, user)

    wrong = refusals(ask, live_asgi.url, user, credentials, "start", scenario_id)
    started = ask(live_asgi.url, credentials[0], "start", scenario_id)
    run = Run.objects.get(scenario_id=scenario_id, status=RunStatus.QUEUED)
    Run.objects.filter(pk=run.pk).update(status=RunStatus.ERROR)  # as if its worker had failed it
    wrong |= refusals(ask, live_asgi.url, user, credentials, "retry", run.pk)
    retried = ask(live_asgi.url, credentials[0], "retry", run.pk)

    assert not wrong, "\n".join(f"{where}: {what}" for where, what in wrong.items())
    assert (started, retried) == (None, None)
    assert Run.objects.filter(retry_of=run).count() == 1
    assert AgentSpend.objects.filter(amount__gt=0).count() == 2  # the start and the retry, each charged once
