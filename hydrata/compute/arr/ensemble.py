"""The members of a design study: for each AEP and duration, every temporal pattern of that duration in the AEP's
bin. The plan names each member and how many time steps its storm has, without building any storm, so a study is
counted (and refused past its limits) before anything is built; `member_storm` builds one member's storm. What the
inputs lack for a member is a problem named, not a member skipped."""

from dataclasses import dataclass

from hydrata.compute.arr.ifd import IfdTable, aep_percent
from hydrata.compute.arr.losses import PreBurst
from hydrata.compute.arr.patterns import TemporalPattern, aep_bin
from hydrata.compute.arr.storm import DesignStorm, burst_initial_loss, design_storm


@dataclass(frozen=True)
class Factors:
    areal_reduction_factor: float
    climate_factor: float
    initial_loss_mm: float  # the storm's, before pre-burst
    continuing_loss_mm_h: float


@dataclass(frozen=True)
class PlannedMember:
    """A member as the inputs define it: its storm is `member_storm`'s, derived from these and the factors."""

    aep: str
    aep_bin: str
    duration_min: int
    pattern: int
    burst_initial_loss_mm: float
    depth_mm: float  # the IFD table's burst depth, before any factor
    time_step_min: int
    increments_pct: tuple[float, ...]

    @property
    def steps(self) -> int:
        return len(self.increments_pct)


def ensemble(
    *,
    ifd: IfdTable,
    patterns: list[TemporalPattern],
    preburst: PreBurst | None,
    aeps: list[str],
    durations_min: list[int],
    factors: Factors,
) -> tuple[list[PlannedMember], list[str]]:
    """Every member, or the problems that keep the inputs from making them (an AEP or duration the IFD table lacks,
    a duration with no patterns in a bin, an AEP the pre-burst table has no column for). No storm is built."""
    by_key: dict[tuple[int, str], list[TemporalPattern]] = {}
    for pattern in patterns:
        by_key.setdefault((pattern.duration_min, pattern.aep_bin), []).append(pattern)
    members: list[PlannedMember] = []
    problems: list[str] = []
    for aep in aeps:
        if aep not in ifd.aeps:
            problems.append(f"the IFD table has no AEP {aep} (it has {', '.join(ifd.aeps)})")
            continue
        percent = aep_percent(aep)
        bin_name = aep_bin(percent)
        for duration in durations_min:
            depth = ifd.depth(aep=aep, duration_min=duration)
            if depth is None:
                problems.append(f"the IFD table has no duration of {duration} min")
                continue
            chosen = by_key.get((duration, bin_name), [])
            if not chosen:
                problems.append(f"the temporal patterns have none of {duration} min in the {bin_name} bin (for {aep})")
                continue
            preburst_mm = 0.0
            if preburst is not None:
                found = preburst.depth(aep_pct=percent, duration_min=duration)
                if found is None:
                    problems.append(f"the pre-burst table has no column for {aep}")
                    continue
                preburst_mm = found
            initial = burst_initial_loss(storm_initial_loss_mm=factors.initial_loss_mm, preburst_mm=preburst_mm)
            members += [
                PlannedMember(aep, bin_name, duration, p.event_id, initial, depth, p.time_step_min, p.increments_pct)
                for p in chosen
            ]
    return members, sorted(set(problems), key=problems.index)


def member_storm(member: PlannedMember, *, factors: Factors) -> DesignStorm:
    """The member's design storm: its IFD depth times the factors, spread by its pattern, less its losses."""
    return design_storm(
        depth_mm=member.depth_mm,
        areal_reduction_factor=factors.areal_reduction_factor,
        climate_factor=factors.climate_factor,
        increments_pct=member.increments_pct,
        time_step_min=member.time_step_min,
        initial_loss_mm=member.burst_initial_loss_mm,
        continuing_loss_mm_h=factors.continuing_loss_mm_h,
    )
