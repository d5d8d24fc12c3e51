"""A report rendered: its page's HTML, and the same document as a PDF."""

import hashlib

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.template.loader import render_to_string

from hydrata.reports.pdf import Rendered, report_pdf
from hydrata.reports.selectors import Report

TEMPLATES = {"runs": "reports/run.html", "comparisons": "reports/comparison.html"}


def report_html(*, report: Report, request: HttpRequest, pdf: bool) -> str:
    return render_to_string(TEMPLATES[report.kind], {**report.context, "pdf": pdf}, request=request)


def report_rendered(*, report: Report, request: HttpRequest) -> Rendered:
    """The PDF of the report (CPU work: a sync view's, never the event loop's)."""
    return report_pdf(html=report_html(report=report, request=request, pdf=True))


def report_pages(*, report: Report, request: HttpRequest) -> int:
    """How many pages the report's PDF has. Laying a PDF out takes seconds of CPU, so the count is kept for that
    exact document (keyed by its HTML): asking again for an unchanged report costs only its HTML."""
    html = report_html(report=report, request=request, pdf=True)
    key = f"report-pages:{hashlib.sha256(html.encode()).hexdigest()}"
    pages = cache.get(key)
    if pages is None:
        pages = report_pdf(html=html).pages
        cache.set(key, pages, settings.HYDRATA_TILE_CACHE_SECONDS)
    return int(pages)
