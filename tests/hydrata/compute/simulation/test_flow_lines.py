"""Flow lines read the solver's own edge fluxes (hydrata/compute/simulation/flow_lines.py chooses the edges, the
recorder in hydrata/compute/simulation/recording.py integrates ANUGA's flux across them every step): a plane under
uniform rain drains i x A across a line near its outlet, a uniform channel carries its inflow across a line, a line
along or beside the outlet agrees with the boundary outflow, and a line drawn the other way reads the same water with
the other sign. The runs are the simulation child's, on the channel of tests/hydrata/compute/channel.py."""

import numpy as np
import pytest

from hydrata.compute.scenario.package import PackageError, load_package
from hydrata.compute.simulation import simulate
from hydrata.compute.simulation.flow_lines import EdgeStates, MeshTopology, central_upwind_mass_flux, crossed_edges
from hydrata.compute.simulation.forcing import import_anuga
from hydrata.compute.simulation.recording import FlowLine, FlowLineVolumes, mesh_topology
from tests.hydrata.compute.channel import FLOW, LENGTH, WIDTH, at, feature, make_channel_package, run_channel

RAIN_MM_PER_HOUR = 200.0
RAIN_LINE_X = 380.0
BESIDE_OUTLET_X = 396.0


def across(x: float, name: str, *, reverse: bool = False) -> dict:
    """A line across the channel at `x`, drawn from its y = 0 bank (its right-hand normal points downstream)."""
    points = [at(x, 0), at(x, WIDTH)]
    return feature("LineString", points[::-1] if reverse else points, name=name)


def volume_through(run, name: str) -> float:
    """The water through a line over the whole run: each recording's discharge times its interval."""
    line = next(line for line in run.series["flow_lines"] if line["name"] == name)
    return float(np.dot(line["discharge"][1:], np.diff(run.series["t"])))


def last_discharge(run, name: str) -> float:
    return next(line for line in run.series["flow_lines"] if line["name"] == name)["discharge"][-1]


@pytest.fixture(scope="module")
def channel(tmp_path_factory):
    base = tmp_path_factory.mktemp("flow_line_channel")
    lines = [
        across(200, "middle"),
        across(200, "middle, drawn upstream", reverse=True),
        across(LENGTH, "along the outlet"),
        across(BESIDE_OUTLET_X, "beside the outlet"),
    ]
    return run_channel(make_channel_package(base / "package", flow_lines=lines), base / "output", yield_seconds=20)


@pytest.fixture(scope="module")
def rain_plane(tmp_path_factory):
    base = tmp_path_factory.mktemp("flow_line_rain")
    package = make_channel_package(
        base / "package",
        duration=2400,
        flow=None,
        rain_mm_per_hour=RAIN_MM_PER_HOUR,
        flow_lines=[across(RAIN_LINE_X, "near the outlet")],
    )
    return run_channel(package, base / "output", yield_seconds=60)


def test_uniform_rain_on_a_plane_at_equilibrium_drains_i_times_a_across_a_line_near_its_outlet(rain_plane):
    upstream_area = RAIN_LINE_X * WIDTH
    rain_rate = RAIN_MM_PER_HOUR / 1000 / 3600

    assert last_discharge(rain_plane, "near the outlet") == pytest.approx(rain_rate * upstream_area, rel=0.01)


def test_a_uniform_channel_at_steady_state_carries_its_inflow_across_a_line(channel):
    assert last_discharge(channel, "middle") == pytest.approx(FLOW, rel=0.005)


def test_a_line_along_the_outlet_boundary_passes_exactly_the_water_the_boundary_let_out(channel):
    boundary_out = channel.statistics["volume_balance"]["boundary_out_m3"]

    assert volume_through(channel, "along the outlet") == pytest.approx(boundary_out, rel=1e-6)


def test_a_line_beside_the_outlet_reads_the_boundarys_outflow_at_steady_state(channel):
    # the line along the outlet passes exactly the boundary's water (the test above), interval by interval
    boundary_outflow = last_discharge(channel, "along the outlet")

    assert last_discharge(channel, "beside the outlet") == pytest.approx(boundary_outflow, rel=0.005)


def test_the_same_line_drawn_the_other_way_reads_the_same_water_with_the_other_sign(channel):
    forward = next(line for line in channel.series["flow_lines"] if line["name"] == "middle")["discharge"]
    backward = next(line for line in channel.series["flow_lines"] if line["name"] == "middle, drawn upstream")

    assert max(forward) > 0.9 * FLOW
    assert backward["discharge"] == [-value for value in forward]


def test_a_flow_lines_discharge_is_the_mean_over_each_recording_interval_and_zero_at_the_start(channel):
    discharge = next(line for line in channel.series["flow_lines"] if line["name"] == "middle")["discharge"]

    assert len(discharge) == len(channel.series["t"]) and discharge[0] == 0.0
    # the water that crossed the middle is what came in less what the upper half still holds: below the inflow
    assert 0 < volume_through(channel, "middle") < FLOW * channel.statistics["sim_seconds"]


def test_the_edge_fluxes_a_line_reads_are_the_solvers_own_every_triangles_add_up_to_its_stage_update(tmp_path):
    """Read across every edge of the mesh after each step, the fluxes out of each triangle add up to the stage
    update ANUGA applied to it (to rounding): the recorder sees the solver's fluxes, not an estimate of them."""
    package = load_package(make_channel_package(tmp_path / "package", duration=60))
    (tmp_path / "output").mkdir()
    model = simulate.build_model(package=package, output_dir=tmp_path / "output", threads=1)
    domain = model.domain
    count = domain.number_of_triangles
    every_edge = FlowLineVolumes(
        domain, [FlowLine(name="every edge", slots=np.arange(3 * count), weights=np.ones(3 * count))]
    )
    mismatches: list[float] = []
    updates: list[float] = []

    class CompareWithTheSolver(import_anuga().Operator):
        def __call__(self) -> None:
            out_of_each = (every_edge.edge_fluxes(domain) * every_edge.lengths).reshape(count, 3).sum(axis=1)
            stage_update = domain.quantities["stage"].explicit_update * domain.areas
            mismatches.append(float(np.abs(out_of_each + stage_update).max()))
            updates.append(float(np.abs(stage_update).max()))

    CompareWithTheSolver(domain)
    for _ in domain.evolve(yieldstep=30, finaltime=60):
        pass

    assert len(mismatches) > 50 and max(updates) > 1.0  # m3/s out of a triangle: the channel is flowing
    assert max(mismatches) < 1e-12 * max(updates)


# --- choosing the edges ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def square():
    """A 4 x 4 m square of ANUGA's crossed rectangles, 1 m cells."""
    return import_anuga().rectangular_cross_domain(4, 4, len1=4.0, len2=4.0)


def test_a_line_across_a_mesh_counts_each_edge_between_its_sides_once_signed_by_the_side_it_is_read_from(square):
    mesh = mesh_topology(square)
    edges = crossed_edges(mesh=mesh, parts=[np.array([[2.1, -1.0], [2.1, 5.0]])])  # walked north: right is east
    near = edges.slots // 3
    far = square.neighbours.reshape(-1)[edges.slots]
    west = mesh.centroids[:, 0] < 2.1

    assert len(edges.slots) == len(set(map(frozenset, zip(near, far, strict=True)))) > 0
    assert np.all(far >= 0)  # a line that ends outside the mesh crosses no boundary edge
    assert np.all(west[near] != west[far])
    assert np.array_equal(edges.weights, np.where(west[near], 1.0, -1.0))  # west of it is its left


def test_a_line_drawn_the_other_way_crosses_the_same_edges_with_the_other_sign(square):
    mesh = mesh_topology(square)
    forward = crossed_edges(mesh=mesh, parts=[np.array([[0.3, -1.0], [3.3, 5.0]])])
    backward = crossed_edges(mesh=mesh, parts=[np.array([[3.3, 5.0], [0.3, -1.0]])])

    assert np.array_equal(forward.slots, backward.slots) and np.array_equal(forward.weights, -backward.weights)


def test_a_line_along_the_boundary_crosses_the_boundary_edges_under_it(square):
    mesh = mesh_topology(square)
    east_side = crossed_edges(mesh=mesh, parts=[np.array([[4.0, 0.0], [4.0, 4.0]])])  # inside is on its left

    assert np.all(square.neighbours.reshape(-1)[east_side.slots] < 0)
    assert len(east_side.slots) == 4 and np.all(east_side.weights == 1.0)


def test_a_line_that_crosses_back_over_an_edge_counts_it_not_at_all(square):
    mesh = mesh_topology(square)
    there_and_back = crossed_edges(mesh=mesh, parts=[np.array([[2.1, -1.0], [2.1, 5.0], [2.11, -1.0]])])

    assert len(there_and_back.slots) == 0


def test_edges_shared_with_a_ghost_triangle_count_half_so_that_the_processes_add_up_to_the_line(square):
    mesh = mesh_topology(square)
    owned_west = MeshTopology(
        centroids=mesh.centroids,
        edge_midpoints=mesh.edge_midpoints,
        neighbours=mesh.neighbours,
        full=mesh.centroids[:, 0] < 2.0,  # this process owns the west half, its neighbour the east
    )
    owned_east = MeshTopology(**{**owned_west.__dict__, "full": ~owned_west.full})
    line = [np.array([[2.0, -1.0], [2.0, 5.0]])]  # along the seam between the two halves
    everything = crossed_edges(mesh=mesh, parts=line)
    west, east = crossed_edges(mesh=owned_west, parts=line), crossed_edges(mesh=owned_east, parts=line)

    assert np.all(np.abs(west.weights) == 0.5) and np.all(np.abs(east.weights) == 0.5)
    assert abs(west.weights).sum() + abs(east.weights).sum() == pytest.approx(abs(everything.weights).sum())


@pytest.mark.parametrize("low_froude", [0, 1, 2])  # ANUGA's low-Froude modes scale only the momentum fluxes
def test_the_mass_flux_is_anugas_own_flux_function_edge_by_edge_wet_dry_and_both_ways(low_froude):
    from anuga.shallow_water.sw_domain_openmp_ext import flux_function_central

    import_anuga()
    random = np.random.default_rng(25)
    count, g, epsilon = 400, 9.8, 1e-12
    angle = random.uniform(0, 2 * np.pi, count)
    normals = np.column_stack([np.cos(angle), np.sin(angle)])
    bed_left, bed_right = random.uniform(0, 1, count), random.uniform(0, 1, count)
    height_left = np.where(random.random(count) < 0.2, 0.0, random.uniform(0, 2, count))
    height_right = np.where(random.random(count) < 0.2, 0.0, random.uniform(0, 2, count))
    left = np.column_stack([bed_left + height_left, random.normal(0, 1, (count, 2)) * height_left[:, None]])
    right = np.column_stack([bed_right + height_right, random.normal(0, 1, (count, 2)) * height_right[:, None]])
    bed_at_edge = np.maximum(bed_left, bed_right)
    h_left = np.maximum(height_left + bed_left - bed_at_edge, 0.0)
    h_right = np.maximum(height_right + bed_right - bed_at_edge, 0.0)
    states = EdgeStates(
        stage_left=left[:, 0],
        stage_right=right[:, 0],
        normal_momentum_left=(normals * left[:, 1:]).sum(axis=1),
        normal_momentum_right=(normals * right[:, 1:]).sum(axis=1),
        height_left=height_left,
        height_right=height_right,
        h_left=h_left,
        h_right=h_right,
        bed_at_edge=bed_at_edge,
    )
    anugas = np.zeros(count)
    edgeflux = np.zeros(3)
    for j in range(count):
        if h_left[j] > 0 or h_right[j] > 0:  # the kernel skips a dry edge
            flux_function_central(
                normals[j].copy(), left[j].copy(), right[j].copy(), h_left[j], h_right[j], height_left[j],
                height_right[j], edgeflux, epsilon, bed_at_edge[j], g, 1e-5, height_left[j], height_right[j],
                low_froude,
            )  # fmt: skip
            anugas[j] = edgeflux[0]

    ours = central_upwind_mass_flux(states, g=g, epsilon=epsilon)

    assert (anugas > 0).sum() > 50 and (anugas < 0).sum() > 50 and (anugas == 0).sum() > 10
    assert np.allclose(ours, anugas, rtol=1e-13, atol=1e-15)


def test_flow_lines_refuse_a_model_stepped_other_than_by_euler_saying_which_it_is():
    """The recorder reads the edge states the step's fluxes came from, which only Euler stepping (DE0) leaves."""
    domain = import_anuga().rectangular_cross_domain(2, 2)
    domain.set_flow_algorithm("DE1")
    line = crossed_edges(mesh=mesh_topology(domain), parts=[np.array([[0.5, -1.0], [0.5, 2.0]])])

    with pytest.raises(PackageError, match="'rk2' \\(DE1\\)"):
        FlowLineVolumes(domain, [FlowLine(name="across", slots=line.slots, weights=line.weights)])
