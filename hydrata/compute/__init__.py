"""The platform's floor of pure computation: no Django, no database, no other hydrata app (a test enforces it).

`geojson` checks an uploaded FeatureCollection, `geometry` reads a scenario's features as mesh geometry,
`estimate` predicts the triangle count and `mesh` builds the mesh file with ANUGA; `package`, `forcing`,
`simulate` and `results` run a built scenario in a child process. Each refusal is one of `errors`, mapped to
the platform's errors by the service that called in.
"""
