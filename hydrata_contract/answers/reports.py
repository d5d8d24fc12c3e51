"""A report's summary: what the report of a run holds and where a person opens it (the page and its PDF are on the
site, for people signed in; no signed storage link is ever handed out)."""

from pydantic import Field

from hydrata_contract.answers.base import Answer


class ReportSummary(Answer):
    """RunReportView."""

    id: int = Field(description="The run.")
    title: str
    pages: int | None = Field(description="Pages of the PDF; null while a worker is still laying it out.")
    figures: list[str] = Field(description="The titles of its maps and charts, in order.")
    sections: list[str]
    ui_url: str = Field(description="The report page; give it to the person.")
    pdf_url: str = Field(description="The PDF, downloaded on the site by a person signed in.")
