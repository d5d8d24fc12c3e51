"""The simulation child's MPI ranks: which one this process is, and how per-rank results meet on rank 0.

A run with several ranks is started as `mpiexec -n N python -m hydrata.compute.simulation.simulate ...`;
`anuga.distribute` gives each rank a piece of the mesh (METIS), its own triangles ("full", `tri_full_flag` 1) plus a
layer of ghosts copied from its neighbours. Every per-triangle result is kept for the full triangles only and gathered
to rank 0 in the mesh's own numbering (`tri_l2g`), so rank 0 holds exactly what a serial run holds. A serial run
(no MPI launcher in the environment) never imports mpi4py here. No Django, no ANUGA.
"""

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

ROOT = 0
# What MPICH's Hydra (PMI_SIZE) and Open MPI (OMPI_COMM_WORLD_SIZE) put in each rank's environment.
LAUNCHER_SIZE_VARIABLES = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE")


@dataclass(frozen=True)
class Ranks:
    """This process's place among the run's ranks; with one rank every operation is the identity."""

    rank: int = ROOT
    size: int = 1
    comm: Any = None  # mpi4py's COMM_WORLD when size > 1

    @property
    def is_root(self) -> bool:
        return self.rank == ROOT

    @property
    def parallel(self) -> bool:
        return self.size > 1

    def total(self, value: float) -> float:
        """The sum of `value` over every rank, on every rank (collective)."""
        return float(self.comm.allreduce(float(value))) if self.parallel else float(value)

    def smallest(self, value: float) -> float:
        """The least `value` of any rank, on every rank (collective)."""
        if not self.parallel:
            return float(value)
        from mpi4py import MPI

        return float(self.comm.allreduce(float(value), op=MPI.MIN))

    def broadcast(self, value: Any) -> Any:
        """Rank 0's `value` on every rank (collective)."""
        return self.comm.bcast(value, root=ROOT) if self.parallel else value

    def gather(self, value: Any) -> list[Any]:
        """Every rank's `value` in rank order on rank 0, an empty list elsewhere (collective)."""
        if not self.parallel:
            return [value]
        return self.comm.gather(value, root=ROOT) or []

    def abort(self, exit_code: int) -> None:
        """End every rank at once: the others may be waiting in a collective this rank will never reach."""
        if self.parallel:
            self.comm.Abort(exit_code)


def current_ranks() -> Ranks:
    """The ranks of this process: MPI's world when an MPI launcher started it with more than one, else serial."""
    size = max((int(os.environ.get(name) or 0) for name in LAUNCHER_SIZE_VARIABLES), default=0)
    if size <= 1:
        return Ranks()
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    return Ranks(rank=comm.Get_rank(), size=comm.Get_size(), comm=comm)


@dataclass(frozen=True)
class Ownership:
    """Which of this rank's triangles it owns, and their numbers in the whole mesh."""

    owned: np.ndarray  # (local,) bool: tri_full_flag == 1
    global_index: np.ndarray  # (local,) int: tri_l2g, the triangle's number in the whole mesh
    global_count: int

    @classmethod
    def serial(cls, count: int) -> "Ownership":
        return cls(owned=np.ones(count, dtype=bool), global_index=np.arange(count), global_count=count)

    def local_of(self, global_triangle: int) -> int:
        """This rank's number for an owned triangle of the whole mesh; -1 when another rank owns it."""
        hits = np.flatnonzero(self.owned & (self.global_index == global_triangle))
        return int(hits[0]) if len(hits) else -1


def gather_owned(ranks: Ranks, ownership: Ownership, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each per-triangle array over the whole mesh, in its numbering, on rank 0 (empty elsewhere); ghosts are left
    out, so each triangle's value is its owner's (collective)."""
    owned = ownership.owned
    piece = (ownership.global_index[owned], {name: values[owned] for name, values in arrays.items()})
    pieces = ranks.gather(piece)
    if not ranks.is_root:
        return {}
    return {name: assembled(pieces, name, ownership.global_count) for name in arrays}


def assembled(pieces: Sequence[tuple[np.ndarray, dict[str, np.ndarray]]], name: str, count: int) -> np.ndarray:
    """One array over the whole mesh from each rank's (global numbers, values); every triangle has one owner."""
    first = pieces[0][1][name]
    whole = np.empty(count, dtype=first.dtype)
    seen = np.zeros(count, dtype=np.int64)
    for numbers, values in pieces:
        whole[numbers] = values[name]
        seen[numbers] += 1
    if not (seen == 1).all():
        raise ValueError(f"{name}: {int((seen != 1).sum())} triangles have not exactly one owning rank.")
    return whole
