"""Figures as PNG: pyplot, charts, a report's maps. May import: errors, rasters, simulation."""
