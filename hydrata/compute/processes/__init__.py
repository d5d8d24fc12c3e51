"""Children under limits, the fork server. May import: errors, scenario, outputs, simulation."""
