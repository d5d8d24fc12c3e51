"""A log filter that keeps signed URLs' signatures (and keys) out of every log line, access logs included."""

import logging
import re

SECRETS_IN_TEXT = re.compile(
    r"(?P<name>X-Hydrata-Signature|X-Amz-Signature|X-Amz-Security-Token|X-Amz-Credential)=[^&\s\"']+"
    r"|(?P<key>hk_[A-Za-z0-9_-]{8,})",
    re.IGNORECASE,
)


def redact(text: str) -> str:
    return SECRETS_IN_TEXT.sub(lambda m: f"{m.group('name')}=[redacted]" if m.group("name") else "hk_[redacted]",
                               text)


class RedactSecretsFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True
