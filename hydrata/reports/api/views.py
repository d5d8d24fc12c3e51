from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from hydrata.anuga.api.base import RunScopedView
from hydrata.core.answers import answer
from hydrata.core.requests import AuthenticatedRequest
from hydrata.reports.selectors import run_report
from hydrata.reports.services import report_laid_out
from hydrata_contract.answers.reports import ReportSummary


class RunReportView(RunScopedView):
    """The summary of a complete run's report and where a person opens it; the PDF itself downloads on the site."""

    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: ReportSummary})
    def get(self, request: AuthenticatedRequest) -> Response:
        report = run_report(user=request.user, run_id=self.run.pk)
        summary = {
            "id": self.run.pk,
            "title": report.title,
            "pages": report_laid_out(report=report).pages,
            "figures": report.figures,
            "sections": report.sections,
            "ui_url": report.ui_url,
            "pdf_url": report.pdf_url,
        }
        return Response(answer(ReportSummary, summary))
