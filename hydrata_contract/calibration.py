"""What a calibration study is made of: what each of its parameters changes in the base scenario, and how it
searches (an optimiser fitting the observations, or a Morris screen of the parameters' influence)."""

from pydantic import BaseModel, ConfigDict

from hydrata_contract.labelled import Labelled


class ParameterTarget(Labelled):
    """What a parameter changes in each member's copy of the base build. `name` picks the features (their `name`,
    else their `id`) for the kinds that name one; the others act on the whole model."""

    FRICTION = "friction", "Manning's n of the friction polygons of this name"
    ALL_FRICTION = "all_friction", "A multiplier on every Manning's n, the default's too"
    SOIL_INITIAL_LOSS = "soil_initial_loss", "Initial loss (mm) of the soil polygons of this name"
    SOIL_CONTINUING_LOSS = "soil_continuing_loss", "Continuing loss (mm/h) of the soil polygons of this name"
    INFLOW = "inflow", "A scale factor on the flow of the inflow lines of this name"
    RAIN = "rain", "A scale factor on all the rain"

    @property
    def named(self) -> bool:
        return self not in (ParameterTarget.ALL_FRICTION, ParameterTarget.RAIN)

    @property
    def layer(self) -> str:
        """The input kind of the base build whose features it changes."""
        return {
            ParameterTarget.FRICTION: "friction",
            ParameterTarget.ALL_FRICTION: "friction",
            ParameterTarget.SOIL_INITIAL_LOSS: "soil",
            ParameterTarget.SOIL_CONTINUING_LOSS: "soil",
            ParameterTarget.INFLOW: "inflow",
            ParameterTarget.RAIN: "rainfall",
        }[self]


class CalibrationMethod(Labelled):
    OPTIMISE = "optimise", "Optimiser (optuna TPE): the parameters that fit the observations best"
    MORRIS = "morris", "Morris screen (SALib): which parameters the peaks and the flooded area depend on"


class ObservedPeak(BaseModel):
    model_config = ConfigDict(extra="forbid")

    observation: int
    modelled: float | None


class MemberOutputs(BaseModel):
    """What an ended member gave (CalibrationMember.outputs, written and read through this model): its comparison
    with the event, its peak at each observation, its peak depth at each gauge and its wet area (m²)."""

    model_config = ConfigDict(extra="forbid")

    comparison: int
    observations: list[ObservedPeak]
    gauges: dict[str, float | None]
    wet_area_m2: float | None
