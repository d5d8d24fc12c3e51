"""A scenario's features as mesh geometry and its planar graph. May import: errors, inputs."""
