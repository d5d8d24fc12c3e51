"""One pyproj Transformer per pair of coordinate reference systems for the life of the process.

Making one costs about 37 ms of CPU (PROJ looks the operation up in its database), and a dataset import, a map
layer, a point's series and an observation each need one. A Transformer is safe to share between threads (pyproj
3.1 and later make PROJ's object per thread).
"""

from functools import lru_cache

from pyproj import CRS, Transformer


@lru_cache(maxsize=64)
def transformer_between(source: CRS | str, target: CRS | str) -> Transformer:
    """x, y order (longitude first) whatever the CRS's axis order."""
    return Transformer.from_crs(source, target, always_xy=True)
