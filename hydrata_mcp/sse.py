"""Server-sent events framing, as the WHATWG spec defines it: lines end in CRLF, LF or CR (the SDK sends CRLF),
and an event ends at an empty line. Enough to rewrite each event's data as it passes, never holding one back."""

import re
from collections.abc import AsyncIterator, Callable

LINE_END = re.compile(rb"\r\n|\r|\n")
# Two line ends in a row: the end of an event. A CR is a line end of its own only when no LF follows it.
EVENT_END = re.compile(rb"(\r\n|\r(?!\n)|\n)(?:\r\n|\r(?!\n)|\n)")
LONGEST_EVENT_END = 4


async def events(chunks: AsyncIterator[bytes]) -> AsyncIterator[tuple[bytes, bytes]]:
    """Each (event, the line ends that closed it) as soon as it is complete, whatever the chunking; bytes left
    when the stream ends come last, with no line ends."""
    buffer, scanned = b"", 0
    async for chunk in chunks:
        complete, buffer = _complete_events(buffer + chunk, scanned, stream_ended=False)
        for event in complete:
            yield event
        scanned = max(0, len(buffer) - LONGEST_EVENT_END)  # never search the same bytes twice
    complete, buffer = _complete_events(buffer, scanned, stream_ended=True)
    for event in complete:
        yield event
    if buffer:
        yield buffer, b""


def _complete_events(buffer: bytes, scanned: int, *, stream_ended: bool) -> tuple[list[tuple[bytes, bytes]], bytes]:
    complete, start = [], 0
    while (end := EVENT_END.search(buffer, max(start, scanned))) is not None:
        if not stream_ended and end.end() == len(buffer) and buffer.endswith(b"\r"):
            break  # that CR may be the first half of a CRLF still on its way
        complete.append((buffer[start : end.start()], end.group()))
        start = end.end()
    return complete, buffer[start:]


def rewrite_data(event: bytes, rewrite: Callable[[bytes], bytes | None]) -> bytes:
    """The event with its data (its `data` lines joined by LF) replaced by `rewrite(data)`; the event unchanged
    when it has no data or `rewrite` returns None. Other fields keep their place."""
    lines = LINE_END.split(event)
    data_at = [index for index, line in enumerate(lines) if _is_data(line)]
    if not data_at:
        return event
    new = rewrite(b"\n".join(_data_value(lines[index]) for index in data_at))
    if new is None:
        return event
    line_end = LINE_END.search(event)
    joiner = line_end.group() if line_end else b"\n"
    out: list[bytes] = []
    for index, line in enumerate(lines):
        if index == data_at[0]:
            out.extend(b"data: " + part for part in LINE_END.split(new))
        elif index not in data_at:
            out.append(line)
    return joiner.join(out)


def _is_data(line: bytes) -> bool:
    return line == b"data" or line.startswith(b"data:")


def _data_value(line: bytes) -> bytes:
    value = line[5:]
    return value[1:] if value.startswith(b" ") else value
