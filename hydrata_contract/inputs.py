"""What a scenario is built from: its input kinds, time-series types and boundary types."""

from hydrata_contract.labelled import Labelled


class InputKind(Labelled):
    BOUNDARY = "boundary", "Boundary"
    FRICTION = "friction", "Friction"
    INFLOW = "inflow", "Inflow"
    RAINFALL = "rainfall", "Rainfall"
    STRUCTURE = "structure", "Structure"
    BREAKLINE = "breakline", "Breakline"
    CULVERT = "culvert", "Culvert"
    WEIR = "weir", "Weir"
    MESH_REGION = "mesh_region", "Mesh region"
    GAUGE = "gauge", "Gauge"
    FLOW_LINE = "flow_line", "Flow line"
    INITIAL_CONDITION = "initial_condition", "Initial condition"
    SOIL = "soil", "Soil"


class SeriesType(Labelled):
    HYETOGRAPH = "hyetograph", "Hyetograph (rainfall)"
    HYDROGRAPH = "hydrograph", "Hydrograph (flow)"
    STAGE = "stage", "Stage (water level)"
    GENERIC = "generic", "Generic"


class BoundaryType(Labelled):
    """ANUGA's boundary conditions a boundary feature may name (its `type`, matched without regard to case)."""

    REFLECTIVE = "Reflective", "Reflective (a wall)"
    TRANSMISSIVE = "Transmissive", "Transmissive (water leaves freely)"
    DIRICHLET = "Dirichlet", "Dirichlet (a stage the edge holds; the flow passes through)"
    NORMAL_DEPTH = "NormalDepth", "Normal depth (an outflow at the slope's depth)"
    DIRICHLET_ZERO_MOMENTUM = "DirichletZeroMomentum", "Dirichlet with zero momentum (a still wall of water)"


class StructureMethod(Labelled):
    """How a structure polygon (a building) is modelled, by the names Hydrata's engine uses."""

    REFLECTIVE = "Reflective", "Reflective (a hole in the mesh, walled)"
    RAISED = "Raised", "Raised (the ground inside raised by its height)"
    MANNINGS = "Mannings", "Mannings (a high Manning's n inside)"


class CulvertShape(Labelled):
    BOX = "box", "Box (width and height)"
    PIPE = "pipe", "Pipe (diameter)"
