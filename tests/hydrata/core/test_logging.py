import io
import logging

from hydrata.core.logging import LOG_MESSAGE_MAX_CHARS, SECRETS_IN_TEXT, RedactSecretsFilter, redact

SIGNED = "/storage/download/terrain/1/dem.tif?expires=1796029715&X-Hydrata-Signature=LWk87xcgH48GdrlFyvc6sTjLC0"


def test_signatures_and_keys_are_redacted_but_the_rest_of_the_line_survives():
    line = f"HTTP GET {SIGNED} 200 key=hk_{'a' * 43} X-Amz-Signature=abcdef&X-Amz-Security-Token=tok123"

    cleaned = redact(line)

    assert "LWk87" not in cleaned and "aaaaaaaa" not in cleaned and "abcdef" not in cleaned and "tok123" not in cleaned
    assert cleaned.startswith("HTTP GET /storage/download/terrain/1/dem.tif?expires=1796029715&")
    assert "X-Hydrata-Signature=[redacted]" in cleaned and " 200 " in cleaned


def test_the_filter_rewrites_formatted_records():
    record = logging.LogRecord(
        "django.channels.server", logging.INFO, __file__, 1, "HTTP GET %s %s", (SIGNED, 200), None
    )

    assert RedactSecretsFilter().filter(record) is True
    assert "LWk87" not in record.getMessage() and "[redacted]" in record.getMessage()


def test_a_jwt_anywhere_in_a_line_is_redacted():
    token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXNlY3JldA"

    cleaned = redact(f"GET /mcp/?access_token={token} 401")

    assert "c2lnbmF0dXJl" not in cleaned and "eyJzdWIi" not in cleaned
    assert cleaned == "GET /mcp/?access_token=[token redacted] 401"


def console_handler() -> logging.Handler:
    """The handler Django configured from settings.LOGGING at start-up (the one that writes to the console)."""
    return next(handler for handler in logging.getLogger().handlers if handler.get_name() == "console")


def test_every_handler_in_the_settings_carries_the_redacting_filter(settings):
    filters = settings.LOGGING["filters"]

    for name, handler in settings.LOGGING["handlers"].items():
        classes = [filters[filter_name]["()"] for filter_name in handler.get("filters", [])]
        assert "hydrata.core.logging.RedactSecretsFilter" in classes, name


def test_a_line_written_by_the_configured_console_handler_is_redacted():
    handler = console_handler()
    written = io.StringIO()
    previous = handler.setStream(written)
    try:
        logging.getLogger("django.request").warning("GET %s with key=%s", SIGNED, "hk_" + "a" * 43)
    finally:
        handler.setStream(previous)

    line = written.getvalue()
    assert "GET /storage/download/terrain/1/dem.tif?expires=1796029715&X-Hydrata-Signature=[redacted]" in line
    assert "LWk87" not in line and "a" * 43 not in line and "hk_[redacted]" in line


def test_a_line_longer_than_the_cap_is_cut_to_it_and_says_how_much_was_left_out():
    # A 300 KB query string of repeated "eyJ" (an unauthenticated request can send one) is read no further than
    # the cap: what is logged is the cap's worth, redacted, and a note of what was left out.
    line = f"GET /mcp/?key=hk_{'a' * 43}&q={'eyJ' * 100_000} 401"

    cleaned = redact(line)

    assert len(cleaned) < LOG_MESSAGE_MAX_CHARS + 100
    assert cleaned.startswith("GET /mcp/?key=hk_[redacted]&q=eyJeyJ")
    assert cleaned.endswith(f"[{len(line) - LOG_MESSAGE_MAX_CHARS:,} more characters not logged]")


def test_a_line_exactly_at_the_cap_is_kept_whole():
    line = "x" * LOG_MESSAGE_MAX_CHARS

    assert redact(line) == line


def test_a_token_is_matched_only_from_the_start_of_a_run_so_each_run_is_read_once():
    # The quadratic pattern began a match at every "eyJ" inside a run and read to the run's end from each; the
    # linear one begins only where a run of token characters begins, and keeps what precedes the "eyJ".
    assert SECRETS_IN_TEXT.search("eyJeyJeyJ.a.b", 3) is None
    assert SECRETS_IN_TEXT.search("eyJeyJeyJ.a.b").group("jwt") == "eyJeyJeyJ.a.b"
    assert redact("Bearer%20eyJhbGci.eyJzdWIi.c2ln 401") == "Bearer%20[token redacted] 401"
    assert redact("x.y.eyJhbGci.eyJzdWIi.c2ln") == "x.y.[token redacted]"
    assert redact("a=eyJhbGci..c2ln eyJ") == "a=eyJhbGci..c2ln eyJ"
