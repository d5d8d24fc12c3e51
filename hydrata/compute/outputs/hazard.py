"""Flood hazard classes of Australian Rainfall and Runoff 2019 (Book 6, Chapter 7; AIDR Guideline 7-3): H1 (safe
for people, vehicles and buildings) to H6 (unsafe for all; all buildings vulnerable to failure).

A class is bounded by three limits: depth x velocity, depth and velocity. A cell is in the lowest class whose three
limits it keeps, which is the highest class any one limit alone puts it in (each limit only grows from class to
class, so the classes one quantity keeps run from its own lowest class upwards).
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
_PRODUCT_LIMITS = np.array([limit[1] for limit in LIMITS])
_DEPTH_LIMITS = np.array([limit[2] for limit in LIMITS])
_SPEED_LIMITS = np.array([limit[3] for limit in LIMITS])


def hazard_class(
    *, depth: np.ndarray, speed: np.ndarray, film_m: float, depth_speed: np.ndarray | None = None
) -> np.ndarray:
    """The hazard class (uint8, 1-6) of each (depth m, speed m/s) pair; 0 where the water is shallower than
    `film_m` (not classified, as speeds are not measured in such films). `depth_speed` (m²/s) defaults to
    depth x speed; a record of peaks passes the peak of the product instead, which is not the product of the
    peaks."""
    depth = np.asarray(depth, dtype=float)
    speed = np.asarray(speed, dtype=float)
    product = depth * speed if depth_speed is None else np.asarray(depth_speed, dtype=float)
    # the lowest class a quantity keeps is 1 + the number of limits it exceeds (a value on a limit keeps it)
    classes = np.searchsorted(_DEPTH_LIMITS, depth, side="left")
    np.maximum(classes, np.searchsorted(_SPEED_LIMITS, speed, side="left"), out=classes)
    np.maximum(classes, np.searchsorted(_PRODUCT_LIMITS, product, side="left"), out=classes)
    classes = (classes + 1).astype(np.uint8)
    classes[~(depth >= film_m)] = DRY
    return classes
