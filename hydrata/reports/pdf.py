"""A report's HTML as a PDF (WeasyPrint, Debian's DejaVu and Liberation fonts). WeasyPrint fetches every URL a
document names; here it fetches none: the figures are data: URIs and the stylesheet is handed over as a string, and
every other URL (one a stored string might smuggle in as markup, though the template escapes it) is refused before
any request is made.

The web process never lays a PDF out: a worker runs this module as a child process held to a CPU and an address-space
limit (hydrata/reports/services.py `report_pdf_render`):

    python -m hydrata.reports.pdf REPORT.html STYLESHEET.css OUT.pdf    (prints {"pages": N})

No Django here but in `report_pdf`, which finds the site's stylesheet."""

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from weasyprint import CSS, HTML
from weasyprint.urls import URLFetcher

STYLESHEET = "reports/report.css"
ALLOWED_PREFIX = "data:image/png;base64,"


class FetchRefused(ValueError):
    """WeasyPrint asked for a URL other than the report's own figures (it logs this and leaves the image out)."""


class FiguresOnly(URLFetcher):
    """Fetches only the report's own PNG figures (data: URIs, decoded in memory): nothing from the network or the
    filesystem, and no redirect."""

    def __init__(self) -> None:
        super().__init__(allowed_protocols={"data"}, allow_redirects=False)

    def fetch(self, url: str, headers: Any = None) -> Any:
        if not url.startswith(ALLOWED_PREFIX):
            raise FetchRefused(f"The report fetches nothing; refused {url[:80]!r}.")
        return super().fetch(url, headers)


@dataclass(frozen=True)
class Rendered:
    pdf: bytes
    pages: int


def stylesheet_path() -> Path:
    from django.contrib.staticfiles import finders

    return Path(str(finders.find(STYLESHEET)))


def render(*, html: str, stylesheet: str) -> Rendered:
    fetcher = FiguresOnly()
    sheet = CSS(string=stylesheet, url_fetcher=fetcher)
    document = HTML(string=html, url_fetcher=fetcher, base_url=None).render(stylesheets=[sheet])
    return Rendered(pdf=document.write_pdf(), pages=len(document.pages))


def report_pdf(*, html: str) -> Rendered:
    """Lay `html` out here and now, with the site's stylesheet (the worker's child, and tests of the renderer)."""
    return render(html=html, stylesheet=stylesheet_path().read_text(encoding="utf-8"))


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        sys.stderr.write("usage: python -m hydrata.reports.pdf REPORT.html STYLESHEET.css OUT.pdf\n")
        return 2
    html, stylesheet, out = (Path(arg) for arg in argv)
    rendered = render(html=html.read_text(encoding="utf-8"), stylesheet=stylesheet.read_text(encoding="utf-8"))
    out.write_bytes(rendered.pdf)
    sys.stdout.write(json.dumps({"pages": rendered.pages}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
