"""Runs side by side: observed, impact, envelope. May import: errors, rasters, outputs, figures."""
