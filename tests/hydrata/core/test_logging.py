import io
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
