"""A complete run's report: the page and PDF a person hands on (model, forcing, health, results, observations,
provenance). The tool hands back where to open it; the PDF downloads on the site for people signed in."""

from mcp.server.mcpserver import Context

from hydrata_contract import paths
from hydrata_contract.answers.reports import ReportSummary
from hydrata_mcp.client import PlatformClient
from hydrata_mcp.handback import HandBack
from hydrata_mcp.tools.projections import Projection
from hydrata_mcp.tools.registry import tool
from hydrata_mcp.tools.runs import RunId


class ReportFigures(Projection, of=ReportSummary, fields=("pages", "figures", "pdf_url")):
    """What the report holds and where its PDF downloads."""


class RunReport(HandBack):
    id: int
    summary: ReportFigures  # type: ignore[assignment]  # the hand-back's summary, typed


@tool(
    title="Get run report",
    read_only=True,
    idempotent=True,
    relied_on=("id", "summary.pages", "summary.figures", "summary.pdf_url"),
)
async def get_run_report(ctx: Context, run_id: RunId) -> RunReport:
    """A complete run's report (page and PDF) to hand to a client or council."""
    api = PlatformClient.for_context(ctx)
    report = ReportSummary.model_validate((await api.get(paths.RUN_REPORT.url(run_id=run_id))).data)
    pages = f"{report.pages} pages, " if report.pages is not None else "its PDF still being laid out, "
    return RunReport(
        id=report.id,
        ui_url=report.ui_url,
        summary=ReportFigures.from_answer(report),
        say_to_user=f"The report of run {report.id} ({pages}{len(report.figures)} figures) opens at "
        f"{report.ui_url}; its PDF downloads there once signed in.",
    )
