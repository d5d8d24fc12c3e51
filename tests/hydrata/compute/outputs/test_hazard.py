"""The hazard classes of ARR 2019 (Book 6 Ch 7), at and just beyond every limit of the table."""

import numpy as np
import pytest

from hydrata.compute.outputs.hazard import LIMITS, hazard_class

FILM = 0.01


def classes(*pairs: tuple[float, float]) -> list[int]:
    depth, speed = zip(*pairs, strict=True)
    return hazard_class(depth=np.array(depth), speed=np.array(speed), film_m=FILM).tolist()


@pytest.mark.parametrize(("number", "product", "depth", "speed"), LIMITS)
def test_slow_water_as_deep_as_a_class_allows_is_at_most_that_class_and_any_deeper_is_above_it(
    number, product, depth, speed
):
    slow = 0.01  # keeps every depth x speed limit at these depths

    assert classes((depth, slow)) <= [number]
    assert classes((depth + 0.001, slow)) > [number]


def test_the_table_gives_each_class_at_its_threshold():
    # (depth, speed) -> class, read off the table: each a point inside one class and no lower one
    cases = {
        (0.3, 1.0): 1,  # D x V = 0.3, D = 0.3: the corner of H1
        (0.31, 0.5): 2,  # just deeper than H1 allows
        (0.2, 1.6): 2,  # D x V 0.32 > 0.3
        (0.5, 1.2): 2,  # D x V 0.6, D 0.5: the corner of H2
        (0.51, 0.1): 3,
        (1.2, 0.5): 3,  # D x V 0.6, D 1.2: the corner of H3
        (1.21, 0.1): 4,
        (0.4, 2.0): 4,  # D x V 0.8 > 0.6
        (2.0, 0.5): 4,  # D x V 1.0, D 2.0: the corner of H4
        (0.1, 2.01): 5,  # faster than 2 m/s
        (2.01, 0.1): 5,
        (1.0, 1.01): 5,  # D x V 1.01 > 1.0
        (4.0, 1.0): 5,  # D x V 4.0, D 4.0
        (1.0, 4.0): 5,  # D x V 4.0, V 4.0
        (4.01, 0.1): 6,
        (0.1, 4.01): 6,
        (2.1, 2.0): 6,  # D x V 4.2 > 4.0
    }

    assert classes(*cases) == list(cases.values())


def test_water_shallower_than_the_film_is_not_classified_however_fast():
    assert classes((0.0, 0.0), (0.009, 10.0), (0.01, 0.0)) == [0, 0, 1]
    assert hazard_class(depth=np.array([np.nan]), speed=np.array([0.0]), film_m=FILM).tolist() == [0]


def test_every_cell_is_in_the_lowest_class_whose_three_limits_it_keeps():
    generator = np.random.default_rng(14)
    depth, speed = generator.uniform(0, 5, 20_000), generator.uniform(0, 5, 20_000)

    def lowest_kept(d: float, v: float) -> int:
        return next(
            (
                number
                for number, product, depth_limit, speed_limit in LIMITS
                if d * v <= product and d <= depth_limit and v <= speed_limit
            ),
            6,
        )

    expected = [lowest_kept(d, v) if d >= FILM else 0 for d, v in zip(depth, speed, strict=True)]
    assert hazard_class(depth=depth, speed=speed, film_m=FILM).tolist() == expected
