"""create_time_series refuses a series of no rows as an argument error, before anything reaches the platform."""

import pytest

from hydrata.agents.models import AgentActivity
from hydrata.anuga.models import TimeSeries
from tests.factories import make_grant, make_project
from tests.mcp_client import call

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_series_of_no_rows_is_an_argument_error_and_nothing_is_stored(live_asgi):
    grant, key = make_grant(level="draft")
    project = make_project(grant.user)

    result = call(
        live_asgi.url, key, "create_time_series", {"project_id": project.pk, "name": "rain", "data": {"rowData": []}}
    )

    assert result.is_error
    assert "rowData" in result.content[0].text and "at least 1 item" in result.content[0].text
    assert not TimeSeries.objects.exists()
    assert not AgentActivity.objects.filter(grant=grant).exists()
