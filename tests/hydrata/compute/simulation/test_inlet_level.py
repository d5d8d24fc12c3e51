"""The level a culvert inlet's water finds, solved in closed form (hydrata/compute/simulation/inlet_level.py), against
ANUGA's own bisection (`anuga.structures.inlet.level_stages_to_average`) on any inlet: filling, drawing down, drained
dry, and no transfer at all; and a culvert the platform builds levels its inlets that way, never by the bisection."""

import contextlib
import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hydrata.compute.simulation.culverts import add_culverts
from hydrata.compute.simulation.forcing import import_anuga
from hydrata.compute.simulation.inlet_level import level_by_volume

anuga = import_anuga()
from anuga.structures.inlet import level_stages_to_average as anuga_level  # noqa: E402

MAX_CELLS = 60
ROUND_OFF = 1e-9  # m: the two agree to about 2e-13 m on stages near 10 m


@st.composite
def inlets(draw):
    """Cells on a bed near 10 m, some dry, some deep, of unequal areas; and an average depth to move to: a little
    or a lot more water, a little or a lot less, all of it gone, or none."""
    cells = draw(st.integers(min_value=1, max_value=MAX_CELLS))
    floats = st.floats(allow_nan=False, allow_infinity=False)
    beds = np.array(draw(st.lists(floats.filter(lambda z: 9.0 <= z <= 11.0), min_size=cells, max_size=cells)))
    depths = np.array(
        draw(
            st.lists(st.one_of(st.just(0.0), floats.filter(lambda d: 0.0 <= d <= 3.0)), min_size=cells, max_size=cells)
        )
    )
    areas = np.array(draw(st.lists(floats.filter(lambda a: 0.5 <= a <= 20.0), min_size=cells, max_size=cells)))
    old = float(np.dot(areas, depths) / areas.sum())
    change = draw(st.sampled_from([0.0, 1e-6, -1e-6, 0.01, -0.01, 0.5, -0.5, -old, -2 * old - 1.0]))
    return beds + depths, beds, areas, old, max(old + change, 0.0)


def given_volume(stages, new, areas, beds):
    """The volume the new stages hold above the bed, less the old."""
    return float(np.dot(areas, np.maximum(new - beds, 0.0) - np.maximum(stages - beds, 0.0)))


@settings(max_examples=400, deadline=None)
@given(inlets())
def test_the_closed_form_level_is_anugas_bisection_to_round_off_and_moves_the_volume_asked(inlet):
    stages, beds, areas, old, new = inlet
    ours = level_by_volume(stages, beds, areas, volume=(new - old) * areas.sum())
    theirs = anuga_level(stages, beds, areas, old, new)
    assert np.abs(ours - theirs).max() < ROUND_OFF
    asked = (new - old) * areas.sum()
    held = float(np.dot(areas, np.maximum(stages - beds, 0.0)))
    moved = given_volume(stages, ours, areas, beds)
    assert moved == pytest.approx(max(asked, -held), abs=1e-9 * (areas.sum() + abs(asked)))
    if asked >= 0:
        assert (ours >= stages).all()  # filling never lowers a cell
    else:
        assert (ours <= np.maximum(stages, beds)).all() and (ours >= np.minimum(stages, beds)).all()


def test_no_transfer_leaves_every_stage_as_it_was_to_the_bit():
    stages = np.array([10.3, 10.1, 10.7, 10.2])
    beds = np.array([10.0, 9.9, 10.5, 10.2])
    same = level_by_volume(stages, beds, np.ones(4), volume=0.0)
    assert np.array_equal(same, stages) and same is not stages


def test_filling_raises_the_lowest_stages_to_one_level_and_drawing_down_lowers_the_highest_clamped_at_their_beds():
    stages, beds, areas = np.array([10.0, 10.2, 11.0]), np.array([10.0, 10.0, 10.9]), np.array([1.0, 1.0, 2.0])
    filled = level_by_volume(stages, beds, areas, volume=0.6)
    assert filled == pytest.approx([10.4, 10.4, 11.0])  # 0.6 m3 fills the two low cells to 10.4 m
    drawn = level_by_volume(stages, beds, areas, volume=-0.3)
    assert drawn == pytest.approx([10.0, 10.1, 10.9])  # 0.3 m3: 0.2 drains the top cell to its bed, 0.1 the next
    dry = level_by_volume(stages, beds, areas, volume=-1.0)
    assert dry == pytest.approx(beds)


def culvert_domain():
    """A 40 m x 10 m flume, water 1 m deep upstream of a ridge and dry beyond, and one box culvert through it."""
    domain = anuga.rectangular_cross_domain(40, 10, len1=40.0, len2=10.0)
    domain.set_store(False)
    x = domain.get_centroid_coordinates()[:, 0]
    ground = np.where(np.abs(x - 20.0) < 2.0, 2.0, 0.0)
    domain.set_quantity("elevation", ground, location="centroids")
    domain.set_quantity("friction", 0.03, location="centroids")
    domain.set_quantity("stage", np.where(x < 18.0, 1.0, ground), location="centroids")
    domain.set_boundary({tag: anuga.Reflective_boundary(domain) for tag in domain.get_boundary_tags()})
    line = {"type": "LineString", "coordinates": [[10.0, 5.0], [30.0, 5.0]]}
    properties = {"name": "under the ridge", "shape": "box", "width": 1.0, "height": 0.5}
    culverts = add_culverts(
        domain, [{"type": "Feature", "geometry": line, "properties": properties}], anuga=anuga, log=lambda _: None
    )
    return domain, culverts


def test_a_culvert_the_platform_builds_levels_its_inlets_in_closed_form_never_by_anugas_bisection(monkeypatch):
    import anuga.structures.inlet as inlet

    def bisection(*args, **kwargs):
        raise AssertionError("ANUGA's bisection ran")

    monkeypatch.setattr(inlet, "level_stages_to_average", bisection)
    domain, culverts = culvert_domain()
    with contextlib.redirect_stdout(io.StringIO()):
        for _ in domain.evolve(yieldstep=2.0, finaltime=10.0):
            pass
    [(_, operator)] = culverts
    assert operator.accumulated_flow > 0.1  # the culvert ran, every step leveling both its inlets


def test_a_culvert_leveled_in_closed_form_gives_the_flume_anugas_bisection_gives():
    ours, [(_, culvert)] = culvert_domain()
    plain, [(_, theirs)] = culvert_domain()
    for inlet in theirs.inlets:
        del inlet.set_average_depth  # ANUGA's Inlet.set_average_depth, with its bisection
    with contextlib.redirect_stdout(io.StringIO()):
        for _ in zip(
            ours.evolve(yieldstep=2.0, finaltime=20.0), plain.evolve(yieldstep=2.0, finaltime=20.0), strict=True
        ):
            stage, other = (d.quantities["stage"].centroid_values for d in (ours, plain))
            assert np.abs(stage - other).max() < ROUND_OFF
    assert culvert.accumulated_flow == pytest.approx(theirs.accumulated_flow, rel=1e-9)
    assert ours.get_water_volume() == pytest.approx(plain.get_water_volume(), rel=1e-12)
