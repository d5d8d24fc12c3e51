"""The value classes every fuzzer adds to what it generates (issue 23: each gave a 500 somewhere): integers of
hundreds or thousands of digits, numbers past the float range, NaN and Infinity, lone surrogates and NUL, and
deep nesting. They are raw JSON text, because json.dumps, requests and httpx write none of them as they stand
(requests refuses NaN, no encoder writes 100,000 brackets without recursing).

`odd_literals` is the strategy; `spliced` puts one into a body. The REST fuzzer (test_rest_fuzz.py) and the MCP
fuzzer (test_mcp_fuzz.py) use them; a fuzzer of /oauth/ (registration bodies, Client ID Metadata Documents) would
use them the same way.
"""

import json
from typing import Any

from hypothesis import strategies as st

PLACEHOLDER = "\x00odd value\x00"  # json.dumps writes it as a string no generated value equals


def nested(depth: int, inner: str = "") -> str:
    return "[" * depth + inner + "]" * depth


huge_integers = (
    st.integers(min_value=310, max_value=5000).map(lambda digits: "9" * digits)  # past the float range
    | st.integers(min_value=310, max_value=1000).map(lambda digits: "-1" + "0" * digits)
    | st.integers(min_value=19, max_value=40).map(lambda digits: "9" * digits)  # past 64 bits, not past floats
)
beyond_floats = st.sampled_from(["1e400", "-1e400", "1.8e308", "2e308", "-9e999"])
not_finite = st.sampled_from(["NaN", "Infinity", "-Infinity"])
lone_surrogates = st.integers(min_value=0xD800, max_value=0xDFFF).map(lambda point: json.dumps(f"x{chr(point)}"))
nul_text = st.sampled_from([json.dumps("\x00"), json.dumps("a\x00b")])
deep_nesting = st.integers(min_value=65, max_value=200_000).map(nested)
odd_literals = huge_integers | beyond_floats | not_finite | lone_surrogates | nul_text | deep_nesting


def spliced(body: Any, literal: str, *, field: str | None = None) -> bytes:
    """The JSON text of `body` with `field` (or, without one, the whole body) set to the raw literal."""
    if field is None or not isinstance(body, dict):
        return literal.encode()
    text = json.dumps({**body, field: PLACEHOLDER})
    return text.replace(json.dumps(PLACEHOLDER), literal, 1).encode()
