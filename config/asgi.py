import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import ThreadSensitiveContext
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

MAX_IDLE_REQUEST_THREADS = 32


class WarmRequestThreads:
    """Each HTTP request runs its synchronous code (sync views, the sync middleware) on a thread kept from earlier
    requests, one request at a time per thread, as a WSGI server's threads do.

    Django's ASGI handler otherwise starts a thread for every request and another to join it when the request
    ends. Its own per-request ThreadSensitiveContext defers to this outer one, which hands asgiref the executor.
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self.idle: list[ThreadPoolExecutor] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        executor = self.idle.pop() if self.idle else ThreadPoolExecutor(max_workers=1, thread_name_prefix="request")
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.app(scope, receive, send)
        finally:
            self._release(executor)

    def _release(self, executor: ThreadPoolExecutor) -> None:
        if len(self.idle) < MAX_IDLE_REQUEST_THREADS:
            self.idle.append(executor)
        else:
            executor.shutdown(wait=False)


application = WarmRequestThreads(get_asgi_application())
