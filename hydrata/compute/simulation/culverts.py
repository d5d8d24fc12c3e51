"""Culverts and pipes on ANUGA's own operators: `anuga.Boyd_box_operator` and `anuga.Boyd_pipe_operator` (their
parallel forms under MPI, which anuga exports under the same names), one per culvert feature, drawn from inlet to
outlet. The hydraulics, the losses (ANUGA's default, none), the apron and the enquiry points are ANUGA's. Only the
level each inlet's water finds after a transfer is solved in closed form (compute/simulation/inlet_level.py) instead of
by ANUGA's 100-step bisection: the same equation and the same answer to round-off, in 6 to 12 us a call instead of
about 200.

Each culvert's discharge is recorded like a flow line's: the volume the operator moved at every step (its own
`accumulated_flow`, signed: positive from inlet to outlet), integrated between recordings, divided by the time
between them. So the recorded series integrates exactly to the water the culvert moved."""

from collections.abc import Callable
from typing import Any

import numpy as np

from hydrata.compute.inputs.site_rules import Culvert, CulvertShape, culvert_of
from hydrata.compute.simulation.inlet_level import level_by_volume

Log = Callable[[str], None]
LOSSES = 0.0  # ANUGA's default for both operators


def add_culverts(domain: Any, features: list[dict], *, anuga: Any, log: Log) -> list[tuple[Culvert, Any]]:
    """One operator per culvert; under MPI a rank the culvert does not touch gets None for it."""
    built = []
    for feature in features:
        culvert = culvert_of(feature)
        common = {
            "losses": LOSSES,
            "barrels": culvert.barrels,
            "blockage": culvert.blockage,
            "end_points": [list(culvert.inlet), list(culvert.outlet)],
            "invert_elevations": list(culvert.invert_elevations) if culvert.invert_elevations else None,
            "manning": culvert.manning,
            "label": culvert.name,
            "verbose": False,
        }
        if culvert.shape == CulvertShape.BOX:
            operator = anuga.Boyd_box_operator(domain, width=culvert.width, height=culvert.height, **common)
        else:
            operator = anuga.Boyd_pipe_operator(domain, diameter=culvert.width, **common)
        for inlet in getattr(operator, "inlets", None) or []:
            if inlet is not None:
                level_in_closed_form(inlet)
        built.append((culvert, operator))
    if built:
        log(
            f"Culverts: {len(built)} (" + ", ".join(f"{c.name!r} {c.shape}" for c, _ in built) + "), ANUGA's Boyd "
            f"operators, losses {LOSSES:g}."
        )
    return built


def level_in_closed_form(inlet: Any) -> None:
    """Give this inlet ANUGA's `set_average_depth` with its level solved in closed form. The change of average
    depth times the inlet's area (of this rank's share under MPI, whose `get_global_average_depth` gives the whole
    inlet's old average when the caller does not) is the volume to level in, as in ANUGA's `Inlet` and
    `Parallel_Inlet`. The triangles' areas are read once: they never change."""
    areas = inlet.get_areas()
    area = float(areas.sum())
    old_depth = getattr(inlet, "get_global_average_depth", inlet.get_average_depth)

    def set_average_depth(new_average_depth: float, old_average_depth: float | None = None) -> None:
        old = old_depth() if old_average_depth is None else old_average_depth
        stages = inlet.get_stages()
        volume = (new_average_depth - old) * area
        inlet.set_stages(level_by_volume(stages, inlet.get_elevations(), areas, volume=volume))

    inlet.set_average_depth = set_average_depth


def _counts_here(operator: Any) -> bool:
    """Whether this process's operator reports the culvert's flow: in a serial run, always; under MPI, only on
    the culvert's master rank (the others hold none of its bookkeeping)."""
    if operator is None:
        return False
    return getattr(operator, "myid", 0) == getattr(operator, "master_proc", 0)


class CulvertVolumes:
    """The signed volume each culvert has moved so far, read after every step from its operator."""

    def __init__(self, culverts: list[tuple[Culvert, Any]]) -> None:
        self.names = [culvert.name for culvert, _ in culverts]
        self.operators = [operator if _counts_here(operator) else None for _, operator in culverts]
        self.volumes = np.zeros(len(culverts))
        self.seen = np.zeros(len(culverts))

    def __getstate__(self) -> dict[str, Any]:
        """What a rank sends rank 0 with its recordings (compute/simulation/ranks.py gathers them): the volumes, not the
        operators (they hold the domain)."""
        return {"names": self.names, "operators": [None] * len(self.names), "volumes": self.volumes, "seen": self.seen}

    def update(self) -> None:
        for index, operator in enumerate(self.operators):
            if operator is None:
                continue
            moved = float(operator.accumulated_flow)
            forward = _forward(operator)
            self.volumes[index] += (moved - self.seen[index]) * (1.0 if forward else -1.0)
            self.seen[index] = moved


def _forward(operator: Any) -> bool:
    """Whether the culvert's last step moved water from inlet to outlet. A serial operator, and a parallel one
    whose culvert lies wholly on its master rank (ANUGA's C path), name the inflow inlet; any other parallel
    operator keeps its index."""
    inflow = getattr(operator, "inflow", None)
    if inflow is not None:
        return inflow is operator.inlets[0]
    return int(operator.inflow_index) == 0


def culvert_recorder(domain: Any, volumes: CulvertVolumes, *, anuga: Any) -> Any:
    """An operator, registered after the culverts', that reads what they moved in the step."""

    class CulvertRecorder(anuga.Operator):
        def __call__(self) -> None:
            volumes.update()

        def parallel_safe(self) -> bool:
            return True

        def statistics(self) -> str:
            return "culvert recorder"

        def timestepping_statistics(self) -> str:
            return "culvert recorder"

    return CulvertRecorder(domain)


def culvert_ends_check(*, nodes: np.ndarray, triangles: np.ndarray, features: list[dict]) -> None:
    """A culvert whose two ends fall in one triangle of the built mesh moves water from a cell to itself: refused
    (SITE_FEATURE_INVALID), naming it, with what to change."""
    from matplotlib.tri import Triangulation

    from hydrata.compute.errors import ModelGeometryError
    from hydrata_contract.errors import ErrorCode

    if not features:
        return
    finder = Triangulation(nodes[:, 0], nodes[:, 1], triangles).get_trifinder()
    for feature in features:
        culvert = culvert_of(feature)
        inlet, outlet = (int(np.asarray(finder(*end)).item()) for end in (culvert.inlet, culvert.outlet))
        if inlet == outlet:
            raise ModelGeometryError(
                ErrorCode.SITE_FEATURE_INVALID,
                f"Culvert {culvert.name!r} has both ends in one triangle of the mesh; draw it longer, or refine the "
                "mesh around it with a mesh region.",
                name=culvert.name,
            )
