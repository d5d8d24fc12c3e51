"""A connected app spends like a key: its runs are charged to its own grant, within the account's monthly limit."""

from decimal import Decimal

import pytest

from hydrata.agents.models import AgentGrant, AgentSpend
from hydrata.agents.services import account_set_spend_limit
from tests.factories import make_grant
from tests.hydrata.oauth.flow import connect
from tests.model_setup import PROJECTS, api, small_test_model

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def built_with_a_connection(live_asgi):
    """A built scenario, and a launch-level connection of its owner (the build itself is no part of the test)."""
    grant, key = make_grant(level="launch")
    model = small_test_model(live_asgi.url, key)
    with api(live_asgi.url, key) as http:
        scenario = http.post(
            f"{PROJECTS}{model.project_id}/scenarios/", json={"name": "s", "resolution": 10, "duration": 300}
        ).json()
        assert http.post(f"{PROJECTS}{model.project_id}/scenarios/{scenario['id']}/build/").status_code == 202
    from config.celery import app

    app.conf.task_always_eager = False  # nothing consumes the run: it stays queued
    return grant.user, connect(grant.user, level="launch"), scenario


def start(url: str, token: str, scenario_id: int):
    with api(url, token) as http:
        return http.post(f"/api/v2/anuga/scenarios/{scenario_id}/run/", json={})


def test_a_connected_app_is_refused_past_the_spend_limit_and_charged_to_its_grant_within_it(
    built_with_a_connection, live_asgi
):
    user, connection, scenario = built_with_a_connection
    account_set_spend_limit(user=user, limit=Decimal("0.00"))

    refused = start(live_asgi.url, connection.access_token, scenario["id"])
    account_set_spend_limit(user=user, limit=Decimal("100.00"))
    started = start(live_asgi.url, connection.access_token, scenario["id"])

    assert refused.status_code == 402 and refused.json()["code"] == "SPEND_LIMIT_EXCEEDED"
    assert started.status_code == 202
    assert AgentSpend.objects.get().grant == AgentGrant.objects.get(user=user, kind="connect")
