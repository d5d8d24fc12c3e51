import logging

from hydrata.core.logging import RedactSecretsFilter, redact

SIGNED = "/storage/download/terrain/1/dem.tif?expires=1796029715&X-Hydrata-Signature=LWk87xcgH48GdrlFyvc6sTjLC0"


def test_signatures_and_keys_are_redacted_but_the_rest_of_the_line_survives():
    line = f"HTTP GET {SIGNED} 200 key=hk_{'a' * 43} X-Amz-Signature=abcdef&X-Amz-Security-Token=tok123"

    cleaned = redact(line)

    assert "LWk87" not in cleaned and "aaaaaaaa" not in cleaned and "abcdef" not in cleaned and "tok123" not in cleaned
    assert cleaned.startswith("HTTP GET /storage/download/terrain/1/dem.tif?expires=1796029715&")
    assert "X-Hydrata-Signature=[redacted]" in cleaned and " 200 " in cleaned


def test_the_filter_rewrites_formatted_records():
    record = logging.LogRecord("django.channels.server", logging.INFO, __file__, 1, "HTTP GET %s %s", (SIGNED, 200),
                               None)

    assert RedactSecretsFilter().filter(record) is True
    assert "LWk87" not in record.getMessage() and "[redacted]" in record.getMessage()


def test_a_jwt_anywhere_in_a_line_is_redacted():
    token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXNlY3JldA"

    cleaned = redact(f"GET /mcp/?access_token={token} 401")

    assert "c2lnbmF0dXJl" not in cleaned and "eyJzdWIi" not in cleaned
    assert cleaned == "GET /mcp/?access_token=[token redacted] 401"
