"""One refresh token presented by several requests at once on the embedded stack (SQLite, the ASGI application
on a real socket): SQLite has no row locks, and its BEGIN IMMEDIATE transactions serialise the token requests
instead. The outcome is the one PostgreSQL gives (tests/production/test_oauth_refresh_race.py)."""

from hydrata.agents.models import AgentGrant
from tests.factories import make_user
from tests.hydrata.oauth.concurrency import one_winner_then_revoked, race_round
from tests.hydrata.oauth.flow import connect

CONCURRENT_REQUESTS = 8
ROUNDS = 4


def test_concurrent_refreshes_of_one_token_rotate_it_once_and_end_the_connection(live_asgi):
    user = make_user("alice")
    rounds = []
    for _ in range(ROUNDS):
        connection = connect(user)

        answers = race_round(
            live_asgi.url, connection.client_id, connection.refresh_token, requests=CONCURRENT_REQUESTS
        )

        revoked = AgentGrant.objects.filter(user=user).latest("pk").revoked_at is not None
        rounds.append((answers, revoked))

    assert rounds == [(one_winner_then_revoked(CONCURRENT_REQUESTS), True)] * ROUNDS
