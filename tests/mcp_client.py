"""The official MCP SDK client, pointed at a live server with one agent key."""

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from hydrata_mcp.polling import MAX_TIMEOUT_SECONDS
from tests.model_setup import SHARED_TLS

# A tool that waits (build_scenario, wait_for_run) may answer only after its longest wait, silently when the client
# asked for no progress; a read timeout shorter than that would fail the test whenever a busy machine is slow.
READ_TIMEOUT_SECONDS = MAX_TIMEOUT_SECONDS + 60


@asynccontextmanager
async def mcp_client(url: str, key: str | None, *, mode: str = "legacy", **client_kwargs: Any) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    timeout = httpx2.Timeout(60, read=READ_TIMEOUT_SECONDS)
    async with httpx2.AsyncClient(headers=headers, timeout=timeout, verify=SHARED_TLS) as http:
        transport = streamable_http_client(f"{url}/mcp/", http_client=http)
        async with Client(transport, mode=mode, **client_kwargs) as client:
            yield client


def run(coroutine_factory: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(coroutine_factory())


def call(url: str, key: str, tool: str, arguments: dict[str, Any] | None = None, *, mode: str = "legacy"):
    """One tool call in its own client session; returns the CallToolResult."""

    async def go():
        async with mcp_client(url, key, mode=mode) as client:
            return await client.call_tool(tool, arguments or {})

    return asyncio.run(go())
