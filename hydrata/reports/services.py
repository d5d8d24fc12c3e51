"""A report rendered: its page's HTML, and the same document as a PDF."""

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
