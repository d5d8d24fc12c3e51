"""From a scenario's input features to an ANUGA mesh, and an estimate of its size before it is built.

A plain package of pure functions (no Django models): `geometry` reads the features, `estimate` predicts the
triangle count, `mesh` builds the mesh file with ANUGA. Every refusal is a `ModelGeometryError` with a code.
"""
