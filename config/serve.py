"""The production web command: uvicorn with HYDRATA_WEB_WORKERS processes (the Procfile's `web`).

    python -m config.serve --host 0.0.0.0 --port 8000

The MCP endpoint is stateless, so any process may answer any request; each process has its own database
connections and, unless HYDRATA_CACHE_URL names a shared Redis, its own rate-limit counters.
"""

import argparse
import asyncio
import os
import socket
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol


class NoDelayH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with Nagle's algorithm off on every connection it accepts.

    With more than one worker, uvicorn binds the listening socket itself without naming the protocol, so the
    sockets it accepts report protocol 0 and asyncio skips TCP_NODELAY (it sets it only for IPPROTO_TCP;
    Kludex/uvicorn#3149). A response then goes out as headers and body in two writes, the body waits for the
    client's delayed ACK, and every keep-alive request after a connection's first took about 40 ms longer.
    """

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        connection = transport.get_extra_info("socket")
        if connection is not None and connection.family in (socket.AF_INET, socket.AF_INET6):
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)


# The protocol every worker process uses, named by import path so that spawned workers can load it.
HTTP_PROTOCOL = "config.serve:NoDelayH11Protocol"


def uvicorn_options(*, host: str, port: int) -> dict[str, Any]:
    """What the web command hands uvicorn besides the app, from settings."""
    from django.conf import settings

    return {
        "host": host,
        "port": port,
        "http": HTTP_PROTOCOL,
        "lifespan": "off",
        "workers": max(1, settings.HYDRATA_WEB_WORKERS),
        "timeout_keep_alive": settings.HYDRATA_WEB_KEEP_ALIVE_SECONDS,
        "timeout_graceful_shutdown": 10,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve config.asgi with uvicorn, one process per core by default.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    options = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    uvicorn.run("config.asgi:application", **uvicorn_options(host=options.host, port=options.port))


if __name__ == "__main__":
    main()
