"""A report rendered: its page's HTML, and the same document as a PDF.

The PDF is laid out by a worker, never by a web request (a run compared with 2,000 points once took 29 s of a web
process). The document the PDF is made of carries neither the clock nor the reader, only what the report shows, so
its SHA-256 (`digest`) names it: the worker keeps the PDF and its page count in storage under the digest, and an
unchanged report is laid out once, whoever asks for it and whenever. A web request stores the document, queues the
layout and waits for it at most HYDRATA_REPORT_WAIT_SECONDS (no CPU: it reads storage), then says it is not ready.

The worker lays the PDF out in a child process held to HYDRATA_REPORT_PDF_CPU_SECONDS of CPU and
HYDRATA_REPORT_PDF_MEMORY_BYTES of address space, inside the task's own time limit."""

import hashlib
import json
import logging
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import User
from django.http import HttpRequest
from django.template.loader import render_to_string

from hydrata.compute.processes.process_limits import child_preexec
from hydrata.reports.pdf import stylesheet_path
from hydrata.reports.selectors import Report, run_report
from hydrata.storage import get_storage
from hydrata_contract.answers.reports import ReportSummary

logger = logging.getLogger(__name__)

TEMPLATES = {
    "runs": "reports/run.html",
    "comparisons": "reports/comparison.html",
    "calibration": "reports/calibration.html",
}
DOCUMENTS = "reports/documents"
POLL_SECONDS = 0.2
PDF_FILE_BYTES = 512 * 1024 * 1024  # the most PDF the child may write


def report_html(*, report: Report, request: HttpRequest, pdf: bool) -> str:
    return render_to_string(TEMPLATES[report.kind], {**report.context, "pdf": pdf}, request=request)


def report_document(*, report: Report) -> str:
    """The HTML the PDF is made of: what the report shows, without the clock or the reader."""
    return render_to_string(TEMPLATES[report.kind], {**report.context, "pdf": True})


def report_digest(document: str) -> str:
    return hashlib.sha256(document.encode()).hexdigest()


def _key(digest: str, name: str) -> str:
    return f"{DOCUMENTS}/{digest}/{name}"


@dataclass(frozen=True)
class Laid:
    """The PDF of one report document as the worker left it: its page count (None while it is being laid out) and
    why it could not be laid out, if it could not."""

    digest: str
    pages: int | None = None
    failed: str = ""

    @property
    def pdf_key(self) -> str:
        return _key(self.digest, "report.pdf")


def _laid(digest: str) -> Laid:
    storage = get_storage()
    for name in ("pages.json", "failed.json"):
        if storage.exists(key=_key(digest, name)):
            with storage.open(key=_key(digest, name)) as stream:
                found = json.load(stream)
            return Laid(digest, pages=found.get("pages"), failed=found.get("reason", ""))
    return Laid(digest)


def report_laid_out(*, report: Report, wait_seconds: float | None = None) -> Laid:
    """The report's PDF as laid out by a worker: found, or queued and waited for (at most `wait_seconds`,
    HYDRATA_REPORT_WAIT_SECONDS by default). `pages` is None when it is not ready by then."""
    from hydrata.reports.tasks import report_pdf_render_task

    document = report_document(report=report)
    digest = report_digest(document)
    laid = _laid(digest)
    if laid.pages is not None:
        return laid
    storage = get_storage()
    if laid.failed:
        storage.delete(key=_key(digest, "failed.json"))  # asked again: one more try, still within the limits
    storage.save(key=_key(digest, "report.html"), data=document.encode(), content_type="text/html")
    report_pdf_render_task.delay(digest)
    deadline = time.monotonic() + (settings.HYDRATA_REPORT_WAIT_SECONDS if wait_seconds is None else wait_seconds)
    while True:
        laid = _laid(digest)
        if laid.pages is not None or laid.failed or time.monotonic() >= deadline:
            return laid
        time.sleep(POLL_SECONDS)


def run_report_summary(*, user: User, run_id: int) -> ReportSummary:
    """What a complete run's report holds and where a person opens it (the PDF laid out if a worker has done it)."""
    report = run_report(user=user, run_id=run_id)
    return ReportSummary(
        id=run_id,
        title=report.title,
        pages=report_laid_out(report=report).pages,
        figures=report.figures,
        sections=report.sections,
        ui_url=report.ui_url,
        pdf_url=report.pdf_url,
    )


def report_pdf_bytes(laid: Laid) -> bytes:
    with get_storage().open(key=laid.pdf_key) as stream:
        return stream.read()


def report_pdf_render(*, digest: str) -> Laid:
    """The worker's part: lay the stored document out in a child process held to its limits, and store the PDF and
    then its page count (which marks it ready), or why it failed. A document already laid out is left as it is."""
    storage = get_storage()
    laid = _laid(digest)
    if laid.pages is not None:
        return laid
    cpu = settings.HYDRATA_REPORT_PDF_CPU_SECONDS
    with tempfile.TemporaryDirectory(prefix="report-pdf-") as folder:
        html, out = Path(folder) / "report.html", Path(folder) / "report.pdf"
        with storage.open(key=_key(digest, "report.html")) as stream:
            html.write_bytes(stream.read())
        try:
            child = subprocess.run(  # noqa: S603  (our own module, on files this task wrote)
                [sys.executable, "-m", "hydrata.reports.pdf", str(html), str(stylesheet_path()), str(out)],
                capture_output=True,
                timeout=2 * cpu + 30,
                preexec_fn=child_preexec(
                    cpu_seconds=cpu,
                    address_space_bytes=settings.HYDRATA_REPORT_PDF_MEMORY_BYTES,
                    file_bytes=PDF_FILE_BYTES,
                ),
            )
            pages = int(json.loads(child.stdout)["pages"]) if child.returncode == 0 else None
        except (subprocess.TimeoutExpired, ValueError, KeyError):
            child, pages = None, None
        if pages is None:
            reason = "The PDF could not be laid out within its time and memory limits."
            tail = child.stderr.decode(errors="replace")[-2000:] if child else "timed out"
            logger.warning(
                "Report document %s: the PDF child failed (%s): %s", digest, child and child.returncode, tail
            )
            storage.save(key=_key(digest, "failed.json"), data=json.dumps({"reason": reason}).encode())
            return Laid(digest, failed=reason)
        with out.open("rb") as stream:
            storage.save(key=_key(digest, "report.pdf"), data=stream, content_type="application/pdf")
    storage.save(key=_key(digest, "pages.json"), data=json.dumps({"pages": pages}).encode())
    return Laid(digest, pages=pages)
