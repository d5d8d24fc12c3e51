"""Debian's chromium driven by Playwright for Python, as a person would use the site: the harness of the browser
tests. Playwright's own browser download is not used (nor reachable); the machine's network may be closed."""

import concurrent.futures
import contextlib
import http.server
import io
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, Response

# Chromium's headless shell (Debian's chromium-headless-shell): the same Blink and V8 as /usr/bin/chromium, without
# the desktop browser around them, and what Playwright itself runs for headless chromium. The browser folder took
# about 50 of its 190 CPU seconds less than in the full browser (two alternating pairs, 2026-12-04).
CHROMIUM = "/usr/bin/chromium-headless-shell"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # Software compositing. No page of the site draws with WebGL (Leaflet draws tiles and SVG), and emulating a
    # GPU in SwiftShader for the compositor alone cost the browser folder about 60 of its 400 CPU seconds.
    "--disable-gpu",
]
ARTIFACTS = Path(__file__).resolve().parent.parent / "var" / "test-artifacts"
# A common laptop screen (and Playwright's default). Every tile, layer and frame the browser draws scales with it:
# against 1400 x 900 the browser folder took about 50 of its 275 CPU seconds less (two pairs, 2026-12-04).
VIEWPORT = {"width": 1280, "height": 720}
# Every Content-Security-Policy violation in any frame of the tab, reported to the test as it happens.
REPORT_CSP_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", function (event) {
  window.reportCspViolation(event.violatedDirective + " refused " + (event.blockedURI || "inline") + " in " +
                            event.documentURI.split("?")[0] + (event.sample ? ": " + event.sample : ""));
}, true);
"""


def launch(playwright) -> Browser:
    if not Path(CHROMIUM).is_file():
        raise FileNotFoundError(f"{CHROMIUM} is missing: apt-get install chromium-headless-shell")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


@dataclass
class Visit:
    """One person's browser tab, with what it asked for and what it complained about."""

    context: BrowserContext
    page: Page
    origin: str
    requests: list[str] = field(default_factory=list)
    responses: list[Response] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    csp_violations: list[str] = field(default_factory=list)

    def foreign_requests(self) -> list[str]:
        return [url for url in self.requests if not url.startswith((self.origin + "/", "data:", "blob:"))]

    def responses_to(self, pattern: str) -> list[Response]:
        return [response for response in self.responses if re.search(pattern, response.url)]

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path))
        return path

    def close(self) -> None:
        self.context.close()


def visit(browser: Browser, origin: str) -> Visit:
    context = browser.new_context(viewport=VIEWPORT)
    violations: list[str] = []
    context.expose_function("reportCspViolation", lambda text: violations.append(text))
    context.add_init_script(REPORT_CSP_VIOLATIONS)
    page = context.new_page()
    tab = Visit(context=context, page=page, origin=origin, csp_violations=violations)
    page.on("request", lambda request: tab.requests.append(request.url))
    page.on("response", lambda response: tab.responses.append(response))
    page.on("console", lambda message: _console(tab, message))
    page.on("pageerror", lambda error: tab.console_errors.append(f"page error: {error}"))
    return tab


def _console(tab: Visit, message: ConsoleMessage) -> None:
    if message.type == "error":
        tab.console_errors.append(message.text)


def sign_in(tab: Visit, url: str, *, username: str, password: str) -> None:
    """Open `url` signed out, meet the sign-in page, fill its form in, and arrive back at `url`."""
    tab.page.goto(url)
    tab.page.wait_for_url(re.compile(r"/accounts/login/"))
    tab.page.fill("input[name=username]", username)
    tab.page.fill("input[name=password]", password)
    tab.page.click("button[type=submit]")
    tab.page.wait_for_url(lambda current: current.split("/", 3)[-1] == url.split("/", 3)[-1])


def wait_for_panel(tab: Visit, panel: str, *, state: str = "ready", timeout_ms: float = 30_000) -> None:
    tab.page.wait_for_selector(f'#panel[data-panel="{panel}"][data-state="{state}"]', timeout=timeout_ms)


def map_pixels(tab: Visit) -> np.ndarray:
    """The map as drawn on the screen, RGB."""
    return np.asarray(Image.open(io.BytesIO(tab.page.locator("#map").screenshot())).convert("RGB")).astype(int)


def map_data(tab: Visit) -> dict[str, Any]:
    return tab.page.eval_on_selector("#map", "element => Object.assign({}, element.dataset)")


def off_the_browser_thread(work: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run database or asyncio work (an MCP client session) beside Playwright's event loop, which is running on
    this thread while a browser is open."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(work, *args, **kwargs).result()


@contextlib.contextmanager
def http_server(handler: Callable[..., http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """A server of another origin on this machine, in a thread, for as long as the block: its address."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def response_is_png(response: Response) -> bool:
    return response.status == 200 and response.headers.get("content-type") == "image/png"
