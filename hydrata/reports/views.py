"""The report pages and their PDFs on the site, for a person signed in who may see the project (404 otherwise; a
calibration study, as the API, only for the project's members); a run or a calibration study that is not complete is a
409 page saying so. A PDF a worker has not laid out yet is a 503 with Retry-After."""

from collections.abc import Callable

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse

from hydrata.core.errors import Conflict, NotFound
from hydrata.core.requests import AuthenticatedHttpRequest
from hydrata.reports.selectors import Report, calibration_report, comparison_report, run_report
from hydrata.reports.services import report_html, report_laid_out, report_pdf_bytes

RETRY_SECONDS = 5


def _serve(
    request: AuthenticatedHttpRequest, read: Callable[[], Report], show: Callable[[Report], HttpResponse]
) -> HttpResponse:
    try:
        report = read()
    except NotFound as missing:
        raise Http404(missing.detail) from None
    except Conflict as refused:
        return HttpResponse(refused.detail, status=409, content_type="text/plain; charset=utf-8")
    return show(report)


def _page(request: AuthenticatedHttpRequest) -> Callable[[Report], HttpResponse]:
    return lambda report: HttpResponse(report_html(report=report, request=request, pdf=False))


def _pdf(request: AuthenticatedHttpRequest) -> Callable[[Report], HttpResponse]:
    def download(report: Report) -> HttpResponse:
        laid = report_laid_out(report=report)
        if laid.pages is None:
            detail = laid.failed or "The PDF is still being laid out; try again in a few seconds."
            waiting = HttpResponse(detail, status=503, content_type="text/plain; charset=utf-8")
            waiting["Retry-After"] = str(RETRY_SECONDS)
            return waiting
        response = HttpResponse(report_pdf_bytes(laid), content_type="application/pdf")
        response["Content-Disposition"] = f'attachment; filename="hydrata-{report.kind}-{report.object_id}.pdf"'
        return response

    return download


@login_required
def run_report_page(request: AuthenticatedHttpRequest, run_id: int) -> HttpResponse:
    return _serve(request, lambda: run_report(user=request.user, run_id=run_id), _page(request))


@login_required
def run_report_pdf(request: AuthenticatedHttpRequest, run_id: int) -> HttpResponse:
    return _serve(request, lambda: run_report(user=request.user, run_id=run_id), _pdf(request))


@login_required
def comparison_report_page(request: AuthenticatedHttpRequest, comparison_id: int) -> HttpResponse:
    return _serve(request, lambda: comparison_report(user=request.user, comparison_id=comparison_id), _page(request))


@login_required
def comparison_report_pdf(request: AuthenticatedHttpRequest, comparison_id: int) -> HttpResponse:
    return _serve(request, lambda: comparison_report(user=request.user, comparison_id=comparison_id), _pdf(request))


@login_required
def calibration_report_page(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    return _serve(request, lambda: calibration_report(user=request.user, study_id=study_id), _page(request))


@login_required
def calibration_report_pdf(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    return _serve(request, lambda: calibration_report(user=request.user, study_id=study_id), _pdf(request))
