"""The water's start and the stage edges against a plain ANUGA script of the same model: the child's gauges equal, at
every yield, what ANUGA's own set_quantity (with polygons), Transmissive_momentum_set_stage_boundary, Dirichlet and
Reflective boundaries give on the same mesh, bed and friction."""

import contextlib
import io

import numpy as np
import pytest
import rasterio

from tests.hydrata.compute.flume import X0, Y0, Flume, FlumeRun, at, rectangle
from tests.hydrata.compute.test_stage_edges import ramp

GAUGES = (2.0, 8.0, 22.0, 28.0)
DURATION, YIELD = 60.0, 10.0
SEA = 1.4


def flume() -> Flume:
    return Flume(
        length=30.0,
        width=6.0,
        bed=lambda x: np.where((x > 10) & (x < 20), 3.0, 0.1 * np.sin(x)),
        upstream={"boundary": "Dirichlet", "stage": "lake"},
        downstream={"boundary": "DirichletZeroMomentum", "stage": SEA},
        mannings=0.03,
        layers={"initial_condition": [rectangle(-1, -1, 15, 7, stage=0.8), rectangle(-1, -1, 31, 7, depth=1.2)]},
        gauges_x=GAUGES,
        time_series={"lake": ramp(0.8, 1.0)},
    )


@pytest.fixture(scope="module")
def ours(tmp_path_factory) -> FlumeRun:
    return flume().run(tmp_path_factory.mktemp("ours"), resolution=1.0, duration=DURATION, yield_seconds=YIELD)


def plain_anuga(run: FlumeRun) -> dict[float, list[float]]:
    """The same model written with ANUGA's API alone; each gauge's centroid stage at every yield."""
    with contextlib.redirect_stdout(io.StringIO()):
        import anuga

    package = run.output.parent / "package"
    domain = anuga.Domain(str(package / "mesh.msh"))
    domain.set_store(False)
    centroids = domain.get_centroid_coordinates(absolute=True)
    with rasterio.open(package / "inputs" / "dem.tif") as dem:
        bed = np.array([value[0] for value in dem.sample([tuple(point) for point in centroids])])
    domain.set_quantity("elevation", bed, location="centroids")
    domain.set_quantity("friction", 0.03, location="centroids")
    domain.set_quantity("stage", expression="elevation", location="centroids")
    # the later polygon first, so that the first one wins where they overlap
    whole = [at(-1, -1), at(31, -1), at(31, 7), at(-1, 7)]
    west = [at(-1, -1), at(15, -1), at(15, 7), at(-1, 7)]
    wet = anuga.Region(domain, polygon=whole).indices
    domain.set_quantity("stage", bed[wet] + 1.2, indices=wet, location="centroids")
    domain.set_quantity("stage", 0.8, polygon=west, location="centroids")
    stage = domain.quantities["stage"].centroid_values
    stage[:] = np.maximum(stage, bed)
    lake = anuga.Transmissive_momentum_set_stage_boundary(
        domain=domain, function=lambda t: float(np.interp(t, [0, 100], [0.8, 1.0]))
    )
    boundaries = {"Reflective": anuga.Reflective_boundary(domain)}
    for tag in domain.get_boundary_tags():
        if tag.startswith("Dirichlet_"):
            boundaries[tag] = lake
        elif tag.startswith("DirichletZeroMomentum_"):
            boundaries[tag] = anuga.Dirichlet_boundary([SEA, 0.0, 0.0])
    domain.set_boundary(boundaries)
    domain.set_evolve_max_timestep(10.0)  # a tenth of the stage series' rows, as the child caps it
    triangles = {x: domain.get_triangle_containing_point([X0 + x, Y0 + 3.0]) for x in GAUGES}
    series: dict[float, list[float]] = {x: [] for x in GAUGES}
    for _ in domain.evolve(yieldstep=YIELD, finaltime=DURATION):
        for x, triangle in triangles.items():
            series[x].append(float(domain.quantities["stage"].centroid_values[triangle]))
    return series


def test_the_childs_initial_water_and_stage_edges_equal_a_plain_anuga_script_at_every_yield(ours):
    plain = plain_anuga(ours)

    for x in GAUGES:
        assert np.allclose(ours.gauge(x)["stage"], plain[x], rtol=0, atol=5e-7), x  # series are kept to 1e-6 m
    assert ours.gauge(2.0)["stage"][0] == pytest.approx(0.8) and ours.gauge(28.0)["stage"][0] > 1.0
