"""The API's one JSON renderer: DRF's, except that an answer holding a lone surrogate is still an answer.

The parser refuses lone surrogates in what callers send (hydrata/core/parsers.py), but JSON stored before it did
(a dataset's property names, say) may hold one, escaped; DRF's renderer then fails to encode the answer as UTF-8,
outside the exception handler, and Django sends its HTML 500. Here each lone surrogate becomes U+FFFD, the
replacement character, so that the answer (and the MCP tool reading it) carries valid text.
"""

import re
from typing import Any

from rest_framework import renderers

LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # a single character class: linear, nothing to backtrack
REPLACEMENT_CHARACTER = "\ufffd"


class JSONRenderer(renderers.JSONRenderer):
    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        try:
            return super().render(data, accepted_media_type, renderer_context)
        except UnicodeEncodeError:  # only a lone surrogate fails to encode as UTF-8
            return super().render(replace_lone_surrogates(data), accepted_media_type, renderer_context)


def replace_lone_surrogates(value: Any) -> Any:
    """The same data with every lone surrogate in its strings and keys replaced by U+FFFD."""
    if isinstance(value, str):
        return LONE_SURROGATE.sub(REPLACEMENT_CHARACTER, value)
    if isinstance(value, dict):
        return {replace_lone_surrogates(key): replace_lone_surrogates(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [replace_lone_surrogates(item) for item in value]
    return value
