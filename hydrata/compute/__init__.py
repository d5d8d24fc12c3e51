"""The platform's floor of pure computation: no Django, no database, no other hydrata app (a test enforces it).

One room per trade, each saying in its docstring which rooms it may import (tests/hydrata/compute/test_trades.py):
`inputs` reads what callers send (numbers, GeoJSON, CRSs, input rules), `spatial` turns features into mesh
geometry, `scenario` reads a built package back, `costs` prices a run before it is spent, `rasters` reads the DEM
and draws tiles, `outputs` puts a finished run on the DEM's grid, `simulation` is the child that runs ANUGA,
`figures` draws PNGs, `comparisons` sets runs side by side, `processes` runs children under limits (the fork
server), `arr` reads ARR 2019 design inputs and `calibration` proposes members. Each refusal is one of `errors`
(the one module at the root), mapped to the platform's errors by the service that called in.
"""
