"""One refresh token presented many times at once to the Procfile's web command (several processes) on PostgreSQL:
it is rotated once. Exactly one request gets new tokens; every other one is a replay, `invalid_grant` in JSON,
and (the documented policy: a replayed refresh token revokes the connection) the connection ends, the winner's
new tokens with it."""

import pytest

from hydrata.agents.models import AgentGrant
from tests.factories import make_user
from tests.hydrata.oauth.concurrency import one_winner_then_revoked, race_round
from tests.hydrata.oauth.flow import connect

pytestmark = pytest.mark.django_db(transaction=True)
CONCURRENT_REQUESTS = 12
ROUNDS = 20


@pytest.fixture
def site(production_web, settings):
    """The connect flow in this process issues for the web command's URL, as that server does itself. Each
    round registers a client from this process's one address."""
    settings.HYDRATA_OAUTH_REGISTER_RATE_LIMIT = 0
    settings.OAUTH2_PROVIDER = {
        **settings.OAUTH2_PROVIDER,
        "OIDC_ISS_ENDPOINT": production_web.url,
        "OAUTH2_PROTECTED_RESOURCE_IDENTIFIER": f"{production_web.url}/mcp/",
    }
    return production_web.url


def test_concurrent_refreshes_of_one_token_give_exactly_one_success_and_invalid_grant_for_the_rest(site):
    user = make_user("alice")
    rounds = []
    for _ in range(ROUNDS):
        connection = connect(user)

        answers = race_round(site, connection.client_id, connection.refresh_token, requests=CONCURRENT_REQUESTS)

        revoked = AgentGrant.objects.filter(user=user).latest("pk").revoked_at is not None
        rounds.append((answers, revoked))

    assert rounds == [(one_winner_then_revoked(CONCURRENT_REQUESTS), True)] * ROUNDS
