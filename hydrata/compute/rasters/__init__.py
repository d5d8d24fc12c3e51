"""The DEM, result grids' codes, web-map tiles, values at points. May import: errors."""
