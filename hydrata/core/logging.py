"""A log filter that keeps signed URLs' signatures, agent keys and connect-flow tokens out of every log line,
access logs included.

Every pass is linear and bounded: a message is read up to LOG_MESSAGE_MAX_CHARS (the rest is left out of the log,
and the line says how much), and the pattern reads each run of token characters once. The JWT pattern it replaced
began a match at every "eyJ" inside a run and read to the run's end from each: a 15 KB query string of repeated
"eyJ" (no credential needed to send one) cost half a CPU second. Ratio: `benchmarks/log_filter.py`.
"""

import logging
import re

# A line is read and logged up to this many characters. uvicorn takes a request line and headers of up to
# 16 KiB (h11's limit), so an access log line stays whole up to about half of that.
LOG_MESSAGE_MAX_CHARS = 8192
RUN = "A-Za-z0-9_-"  # the characters a key or token is made of
SECRETS_IN_TEXT = re.compile(
    r"(?P<name>X-Hydrata-Signature|X-Amz-Signature|X-Amz-Security-Token|X-Amz-Credential)=[^&\s\"']+"
    rf"|(?P<key>hk_[{RUN}]{{8,}})"
    # A JWT begins a match only where a run of token characters begins (the lookbehind); the atomic group finds
    # the run's first "eyJ" and commits to it (any later one in the segment ends at the same dot), and the
    # possessive segments never give back what they read, so each run is read once. What precedes the "eyJ" in
    # its run (the "20" of "Bearer%20eyJ...") is kept.
    rf"|(?<![{RUN}])(?P<before>(?>[{RUN}]*?(?=eyJ)))"
    rf"(?P<jwt>eyJ[{RUN}]++\.[{RUN}]++\.[{RUN}]*+)",
    re.IGNORECASE,
)


def _replacement(match: re.Match[str]) -> str:
    if match.group("name"):
        return f"{match.group('name')}=[redacted]"
    if match.group("key"):
        return "hk_[redacted]"
    return f"{match.group('before')}[token redacted]"


def redact(text: str) -> str:
    """text with its secrets replaced, cut to LOG_MESSAGE_MAX_CHARS characters first."""
    left_out = len(text) - LOG_MESSAGE_MAX_CHARS
    if left_out > 0:
        text = text[:LOG_MESSAGE_MAX_CHARS]
    cleaned = SECRETS_IN_TEXT.sub(_replacement, text)
    return f"{cleaned} [{left_out:,} more characters not logged]" if left_out > 0 else cleaned


class RedactSecretsFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True
