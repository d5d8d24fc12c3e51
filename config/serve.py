"""The production web command: uvicorn with HYDRATA_WEB_WORKERS processes (the Procfile's `web`).

    python -m config.serve --host 0.0.0.0 --port 8000

The MCP endpoint is stateless, so any process may answer any request; each process has its own database
connections and, unless HYDRATA_CACHE_URL names a shared Redis, its own rate-limit counters.
"""

import argparse
import os

import uvicorn


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve config.asgi with uvicorn, one process per core by default.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    options = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.conf import settings

    uvicorn.run(
        "config.asgi:application",
        host=options.host,
        port=options.port,
        lifespan="off",
        workers=max(1, settings.HYDRATA_WEB_WORKERS),
        timeout_graceful_shutdown=10,
    )


if __name__ == "__main__":
    main()
