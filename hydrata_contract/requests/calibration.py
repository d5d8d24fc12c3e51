from pydantic import Field, model_validator

from hydrata_contract.calibration import CalibrationMethod, ParameterTarget
from hydrata_contract.requests.base import NAME_MAX_LENGTH, Body, object_id

MAX_PARAMETERS = 8
# The widest range each target may be searched over: n and the factors are positive, losses are depths and rates.
TARGET_BOUNDS = {
    ParameterTarget.FRICTION: (0.001, 1.0),
    ParameterTarget.ALL_FRICTION: (0.05, 20.0),
    ParameterTarget.SOIL_INITIAL_LOSS: (0.0, 1000.0),
    ParameterTarget.SOIL_CONTINUING_LOSS: (0.0, 200.0),
    ParameterTarget.INFLOW: (0.0, 20.0),
    ParameterTarget.RAIN: (0.0, 20.0),
}


class CalibrationParameter(Body):
    """One parameter and the range it is searched over."""

    target: ParameterTarget = Field(description="What it changes in each member's copy of the base build.")
    name: str | None = Field(
        None, max_length=NAME_MAX_LENGTH, description="The features' name: for friction, soil_* and inflow only."
    )
    low: float = Field(description="The range's lower end (n, mm, mm/h or a factor).")
    high: float = Field(description="The range's upper end; above low.")

    @model_validator(mode="after")
    def _a_range_the_target_takes(self) -> "CalibrationParameter":
        floor, ceiling = TARGET_BOUNDS[self.target]
        if not floor <= self.low < self.high <= ceiling:
            raise ValueError(f"{self.target.value} takes {floor} <= low < high <= {ceiling}.")
        if self.target.named != bool(self.name):
            raise ValueError(f"{self.target.value} {'needs' if self.target.named else 'takes no'} name.")
        return self

    @property
    def label(self) -> str:
        return f"{self.target.value}:{self.name}" if self.name else self.target.value


class CalibrationStudyCreate(Body):
    """A search over a base scenario's parameters against a flood event's observations."""

    name: str = Field(min_length=1, max_length=NAME_MAX_LENGTH, description="The study's name, as people see it.")
    base_scenario: int = object_id("The scenario each member copies; built as it is now.")
    event: int = object_id("The flood event whose observations the members are compared with.")
    method: CalibrationMethod = Field(CalibrationMethod.OPTIMISE, description="Fit (optimise), or screen (morris).")
    parameters: list[CalibrationParameter] = Field(
        min_length=1, max_length=MAX_PARAMETERS, description="What each member varies, each over its range."
    )
    budget: int = Field(ge=2, le=1000, description="Members at most; morris uses whole trajectories of it.")
    in_flight: int = Field(
        2, ge=1, le=256, description="Optimise: members computing at once, e.g. the workers; morris queues all."
    )
    seed: int = Field(0, ge=0, le=2**31 - 1, description="The optimiser's or the screen's seed: same seed, same study.")

    @model_validator(mode="after")
    def _each_parameter_once(self) -> "CalibrationStudyCreate":
        labels = [parameter.label for parameter in self.parameters]
        if len(set(labels)) != len(labels):
            raise ValueError("names a parameter twice; give each target and name once.")
        if self.method == CalibrationMethod.MORRIS and self.budget < 2 * (len(self.parameters) + 1):
            raise ValueError(
                f"morris needs at least 2 trajectories of {len(self.parameters) + 1} members: a budget of "
                f"{2 * (len(self.parameters) + 1)} or more."
            )
        return self
