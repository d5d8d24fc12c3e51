from typing import Annotated, Any

from pydantic import ConfigDict, Field, field_validator, model_validator

from hydrata_contract.requests.base import NAME_MAX_LENGTH, Body, object_id
from hydrata_contract.studies import CentralStatistic, DesignInputKind

MAX_AEPS = 20
MAX_DURATIONS = 40
LONGEST_DURATION_MIN = 10080  # a week: the longest duration the BoM's IFD tables give

Aep = Annotated[str, Field(min_length=1, max_length=20)]
DurationMin = Annotated[int, Field(ge=1, le=LONGEST_DURATION_MIN)]


class DesignInputCreate(Body):
    """A design-input file: as multipart (`base_file`, as an upload sends it) or its text in JSON (`content`, as an
    agent sends it), exactly one of the two."""

    # The multipart file arrives as the server's own file object, which no JSON type describes.
    model_config = ConfigDict(arbitrary_types_allowed=True)

    kind: DesignInputKind = Field(description="What the file is.")
    name: str = Field("", max_length=255, description="A name for people; blank: the file's name, else the kind.")
    base_file: Any = Field(
        None, description="The file (multipart only).", json_schema_extra={"type": "string", "format": "binary"}
    )
    content: str | None = Field(None, description="The file's text (JSON only).")

    @model_validator(mode="after")
    def _one_source(self) -> "DesignInputCreate":
        if (self.base_file is None) == (self.content is None):
            raise ValueError("Send the file as base_file (multipart) or its text as content, once.")
        return self


class DesignStudyCreate(Body):
    """An ARR 2019 design study made from a base scenario: one member per AEP x duration x temporal pattern."""

    name: str = Field(min_length=1, max_length=NAME_MAX_LENGTH, description="The study's name, as people see it.")
    base_scenario: int = object_id("The scenario each member copies.")
    ifd: int = object_id("A design input of kind ifd.")
    temporal_patterns: int = object_id("A design input of kind temporal_patterns.")
    storm_losses: int | None = Field(None, ge=1, description="A design input of kind storm_losses.")
    aeps: list[Aep] = Field(min_length=1, max_length=MAX_AEPS, description='The AEPs, as the IFD spells them: ["1%"].')
    durations_min: list[DurationMin] = Field(min_length=1, max_length=MAX_DURATIONS, description="Storm durations.")
    areal_reduction_factor: float = Field(1.0, ge=0.01, le=1.0, description="Multiplies the IFD depth.")
    climate_factor: float = Field(1.0, ge=0.5, le=3.0, description="Multiplies the IFD depth (climate change).")
    initial_loss_mm: float | None = Field(None, ge=0, le=1000, description="Else the storm-losses file's.")
    continuing_loss_mm_h: float | None = Field(None, ge=0, le=200, description="Else the storm-losses file's.")
    central_statistic: CentralStatistic = Field(
        CentralStatistic.MEDIAN, description="Each duration's design value of its patterns."
    )

    @field_validator("aeps")
    @classmethod
    def _each_aep_once(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(value))

    @field_validator("durations_min")
    @classmethod
    def _each_duration_once_in_order(cls, value: list[int]) -> list[int]:
        return sorted(set(value))
