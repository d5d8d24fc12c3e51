"""The per-grant rate limit: a 429 with Retry-After past HYDRATA_AGENT_RATE_LIMIT requests a minute."""

import pytest
from rest_framework.test import APIClient

from tests.factories import make_grant, make_user

pytestmark = pytest.mark.django_db
PROJECTS = "/api/v2/anuga/projects/"


def api(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def test_a_grant_over_its_rate_limit_is_429_with_retry_after_and_a_code(settings):
    settings.HYDRATA_AGENT_RATE_LIMIT = 3
    _, key = make_grant(level="read")
    client = api(key)

    statuses = [client.get(PROJECTS).status_code for _ in range(3)]
    refused = client.get(PROJECTS)

    assert statuses == [200, 200, 200]
    assert refused.status_code == 429 and refused.json()["code"] == "THROTTLED"
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert refused.json()["retry_after_seconds"] == int(refused["Retry-After"])


def test_the_limit_counts_each_grant_on_its_own(settings):
    settings.HYDRATA_AGENT_RATE_LIMIT = 2
    user = make_user()
    _, first = make_grant(user, level="read")
    _, second = make_grant(user, level="read")
    for _ in range(2):
        api(first).get(PROJECTS)

    assert api(first).get(PROJECTS).status_code == 429
    assert api(second).get(PROJECTS).status_code == 200


def test_a_person_signed_in_on_the_site_is_not_throttled_by_the_agent_limit(settings):
    settings.HYDRATA_AGENT_RATE_LIMIT = 2
    client = APIClient()
    client.force_login(make_user())

    assert [client.get(PROJECTS).status_code for _ in range(4)] == [200] * 4


def test_the_default_limit_leaves_room_for_polling_every_second(settings):
    assert settings.HYDRATA_AGENT_RATE_LIMIT >= 120
