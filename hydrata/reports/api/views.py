from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from hydrata.anuga.api.base import RunScopedView
from hydrata.core.answers import sent
from hydrata.core.requests import AuthenticatedRequest
from hydrata.reports.services import run_report_summary
from hydrata_contract.answers.reports import ReportSummary


class RunReportView(RunScopedView):
    """The summary of a complete run's report and where a person opens it; the PDF itself downloads on the site."""

    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: ReportSummary})
    def get(self, request: AuthenticatedRequest) -> Response:
        return Response(sent(run_report_summary(user=request.user, run_id=self.run.pk)))
