"""Calibration and sensitivity of a model's parameters: each member's copy of the base build's layers and series
with the member's values (`members`), the optimiser that proposes the members (`search`, optuna) and the Morris
screen (`morris`, SALib). No Django: may import numpy, optuna, SALib, hydrata.compute and hydrata_contract.
Of compute, it may import: scenario, simulation."""
