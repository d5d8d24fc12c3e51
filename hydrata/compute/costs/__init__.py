"""A run's price and mesh size, before anything is spent. May import: errors, inputs, spatial."""
