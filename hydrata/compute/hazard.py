"""Flood hazard classes of Australian Rainfall and Runoff 2019 (Book 6, Chapter 7; AIDR Guideline 7-3): H1 (safe
for people, vehicles and buildings) to H6 (unsafe for all; all buildings vulnerable to failure).

A class is bounded by three limits: depth x velocity, depth and velocity. A cell is in the lowest class whose three
limits it keeps, which is the highest class any one limit alone puts it in.
"""

import numpy as np

DRY = 0
# (class, depth x velocity m²/s, depth m, velocity m/s), each limit inclusive
LIMITS: tuple[tuple[int, float, float, float], ...] = (
    (1, 0.3, 0.3, 2.0),
    (2, 0.6, 0.5, 2.0),
    (3, 0.6, 1.2, 2.0),
    (4, 1.0, 2.0, 2.0),
    (5, 4.0, 4.0, 4.0),
)
BEYOND = 6
CLASSES = tuple(range(1, BEYOND + 1))


def hazard_class(*, depth: np.ndarray, speed: np.ndarray, film_m: float) -> np.ndarray:
    """The hazard class (uint8, 1-6) of each (depth m, speed m/s) pair; 0 where the water is shallower than
    `film_m` (not classified, as speeds are not measured in such films)."""
    depth = np.asarray(depth, dtype=float)
    speed = np.asarray(speed, dtype=float)
    product = depth * speed
    classes = np.full(depth.shape, BEYOND, dtype=np.uint8)
    for number, product_limit, depth_limit, speed_limit in reversed(LIMITS):
        keeps = (product <= product_limit) & (depth <= depth_limit) & (speed <= speed_limit)
        classes[keeps] = number
    classes[~(depth >= film_m)] = DRY
    return classes
