"""A report's HTML as a PDF (WeasyPrint, Debian's DejaVu and Liberation fonts). WeasyPrint fetches every URL a
document names; here it fetches none: the figures are data: URIs and the stylesheet is handed over as a string, and
every other URL (one a stored string might smuggle in as markup, though the template escapes it) is refused before
any request is made."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.staticfiles import finders
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


def report_pdf(*, html: str) -> Rendered:
    fetcher = FiguresOnly()
    found = finders.find(STYLESHEET)
    stylesheet = CSS(string=Path(str(found)).read_text(encoding="utf-8"), url_fetcher=fetcher)
    document = HTML(string=html, url_fetcher=fetcher, base_url=None).render(stylesheets=[stylesheet])
    return Rendered(pdf=document.write_pdf(), pages=len(document.pages))
