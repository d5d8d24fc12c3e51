"""A grant's expiry on both sides of its instant: an agent key and a connect-flow token act until the instant
their grant expires, and from that instant on are refused (401 with the code that says so)."""

from datetime import datetime, timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from hydrata.agents.models import AgentGrant
from tests.factories import make_grant, make_user
from tests.hydrata.oauth.flow import connect

pytestmark = pytest.mark.django_db

ME = "/api/v2/agents/me/"
INSTANT = timedelta(microseconds=1)


@pytest.fixture(autouse=True)
def no_registration_limit(settings):
    settings.HYDRATA_OAUTH_REGISTER_RATE_LIMIT = 0


def me(credential: str, *, at: datetime):
    with time_machine.travel(at, tick=False):
        return Client().get(ME, HTTP_AUTHORIZATION=f"Bearer {credential}")


def in_half_an_hour() -> datetime:
    return timezone.now().replace(microsecond=0) + timedelta(minutes=30)


def test_an_agent_key_acts_until_the_instant_its_grant_expires_and_is_refused_from_that_instant():
    expires = in_half_an_hour()
    _, key = make_grant(level="read", expires_at=expires)

    before, at, after = (me(key, at=moment) for moment in (expires - INSTANT, expires, expires + INSTANT))

    assert before.status_code == 200
    for refused in (at, after):
        assert refused.status_code == 401 and refused.json()["code"] == "AGENT_KEY_EXPIRED"


def test_a_connect_flow_token_acts_until_the_instant_its_connection_expires_and_is_refused_from_that_instant():
    token = connect(make_user("expiring"), level="read").access_token  # good for an hour
    expires = in_half_an_hour()
    AgentGrant.objects.update(expires_at=expires)

    before, at = me(token, at=expires - INSTANT), me(token, at=expires)

    assert before.status_code == 200
    assert at.status_code == 401 and at.json()["code"] == "CONNECTION_EXPIRED"
