from celery import shared_task

from hydrata.core.task_limits import time_limits


@shared_task(name="reports.render_pdf", **time_limits("report_pdf"))
def report_pdf_render_task(digest: str) -> None:
    from hydrata.reports.services import report_pdf_render

    report_pdf_render(digest=digest)
