"""The codes every result raster shares: nodata values and the depth from which a cell counts as wet."""

NODATA = -9999.0  # float32 rasters: outside the mesh, or no value (never inundated)
HAZARD_NODATA = 255  # the uint8 hazard raster outside the mesh; 0 is a cell of the mesh never classified (dry)
WET_DEPTH_M = 0.01  # also the film below which speeds are not measured and hazard is not classified
