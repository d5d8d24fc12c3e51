"""The child's run on ANUGA. May import: errors, inputs, spatial, scenario, rasters, outputs."""
