"""The solver's settings as a report states them, read from ANUGA itself, never written down here: the simulation
(compute/simulation/simulate.py) sets none of ANUGA's algorithm parameters, so a run's domain holds those every ANUGA
Domain starts with (tests/hydrata/compute/simulation/test_solver.py holds the simulation's domain to them). Also the
vertical datum a terrain's CRS names, if it names one. No Django."""

from functools import lru_cache
from typing import Any

from pyproj import CRS
from pyproj.exceptions import CRSError

# The algorithm parameters a report shows, in order: what the solver is and how it treats wet and dry cells.
SHOWN = (
    "flow_algorithm",
    "timestepping_method",
    "CFL",
    "minimum_allowed_height",
    "minimum_storable_height",
    "maximum_allowed_speed",
    "optimise_dry_cells",
    "tight_slope_limiters",
    "extrapolate_velocity_second_order",
    "use_sloped_mannings",
    "low_froude",
    "compute_fluxes_method",
    "g",
)


def _plain(value: Any) -> str | float | int | bool:
    if isinstance(value, bool | int | float | str):
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


def algorithm_parameters(domain: Any) -> dict[str, str | float | int | bool]:
    """The SHOWN parameters of an ANUGA domain as it holds them (`Domain.get_algorithm_parameters`)."""
    held = domain.get_algorithm_parameters()
    return {name: _plain(held[name]) for name in SHOWN if name in held}


def solver_record(domain: Any) -> dict[str, Any]:
    """What a run keeps of its solver (the statistics' `solver`): the ANUGA version and the domain's parameters."""
    from hydrata.compute.simulation.forcing import import_anuga

    return {"anuga_version": str(import_anuga().__version__), "parameters": algorithm_parameters(domain)}


@lru_cache(maxsize=1)
def default_algorithm_parameters() -> dict[str, str | float | int | bool]:
    """The parameters every ANUGA domain starts with in the installed ANUGA (read from a one-cell domain)."""
    from hydrata.compute.simulation.forcing import import_anuga

    return algorithm_parameters(import_anuga().rectangular_cross_domain(1, 1))


def vertical_datum(crs: str) -> str | None:
    """The vertical datum a CRS names (the vertical part of a compound CRS, or a vertical CRS), None when it names
    none or cannot be read."""
    try:
        parsed = CRS.from_user_input(crs)
    except CRSError:
        return None
    parts = parsed.sub_crs_list if parsed.is_compound else [parsed]
    for part in parts:
        if part.is_vertical:
            datum = part.datum
            return datum.name if datum is not None else part.name
    return None
