"""A log filter that keeps signed URLs' signatures, agent keys and connect-flow tokens out of every log line,
access logs included."""

import logging
import re

SECRETS_IN_TEXT = re.compile(
    r"(?P<name>X-Hydrata-Signature|X-Amz-Signature|X-Amz-Security-Token|X-Amz-Credential)=[^&\s\"']+"
    r"|(?P<key>hk_[A-Za-z0-9_-]{8,})"
    r"|(?P<jwt>eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)",
    re.IGNORECASE,
)


def _replacement(match: re.Match[str]) -> str:
    if match.group("name"):
        return f"{match.group('name')}=[redacted]"
    return "hk_[redacted]" if match.group("key") else "[token redacted]"


def redact(text: str) -> str:
    return SECRETS_IN_TEXT.sub(_replacement, text)


class RedactSecretsFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True
