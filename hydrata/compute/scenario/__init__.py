"""A built scenario package read back, its series' units. May import: errors, inputs, spatial."""
