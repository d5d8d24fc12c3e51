import pytest


@pytest.fixture(autouse=True)
def no_registration_limit(settings):
    """These tests register a client each, all from the test client's one address; the limit's own tests
    (tests/hydrata/oauth/test_registration_policy.py) turn it back on."""
    settings.HYDRATA_OAUTH_REGISTER_RATE_LIMIT = 0
