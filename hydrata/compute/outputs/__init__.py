"""A finished run's rasters, statistics, depth frames, hazard. May import: errors, rasters, scenario."""
