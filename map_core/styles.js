// How both maps draw an input row's features: the one colour table, each kind's title and each feature's label.

const BOUNDARY_COLOURS = { Reflective: "#4b5563", Transmissive: "#1f6feb", Dirichlet: "#d92d20",
                           DirichletZeroMomentum: "#9f1239" };
const KIND_STYLES = {
  friction: { color: "#2e7d32", weight: 1, fillColor: "#66bb6a", fillOpacity: 0.25 },
  inflow: { color: "#0b5cad", weight: 4 },
  rainfall: { color: "#0e7490", weight: 1, dashArray: "4 3", fillColor: "#67e8f9", fillOpacity: 0.12 },
  structure: { color: "#b45309", weight: 2, fillColor: "#f59e0b", fillOpacity: 0.35 },
  breakline: { color: "#57534e", weight: 2, dashArray: "2 3" },
  culvert: { color: "#0f766e", weight: 5, dashArray: "10 4" },
  weir: { color: "#7f1d1d", weight: 4 },
  mesh_region: { color: "#7c3aed", weight: 2, dashArray: "6 4", fillOpacity: 0 },
  initial_condition: { color: "#1d4ed8", weight: 1, fillColor: "#3b82f6", fillOpacity: 0.3 },
  soil: { color: "#92400e", weight: 1, dashArray: "2 3", fillColor: "#d6a46b", fillOpacity: 0.2 }
};
const UNSTYLED = { color: "#374151", weight: 2 };
// The dark line of the mesh's outline, and the rim of a marker.
export const OUTLINE_COLOUR = "#111827";

// The kinds either map draws, by title; gauges and flow lines are listed, not drawn.
export const KIND_TITLES = { boundary: "Boundary", friction: "Friction", inflow: "Inflow", rainfall: "Rainfall",
                             structure: "Structures", breakline: "Breaklines", culvert: "Culverts", weir: "Weirs",
                             mesh_region: "Mesh regions", initial_condition: "Initial water", soil: "Soils" };

export function titleOf(kind) {
  return KIND_TITLES[kind] || kind;
}

// Leaflet's path style for a feature of `kind` with these properties (a boundary is coloured by its type).
export function styleOf(kind, properties, highlight) {
  let style;
  if (kind === "boundary") {
    style = { color: BOUNDARY_COLOURS[properties.boundary] || "#6b21a8", weight: 4,
              dashArray: properties.location === "Internal" ? "6 5" : null };
  } else {
    style = Object.assign({}, KIND_STYLES[kind] || UNSTYLED);
  }
  if (highlight) { style.weight = (style.weight || 2) + 2; }
  return style;
}

// The label an engineer checks on a feature: its boundary type, Manning's n, flow, rain, method or resolution.
export function labelOf(kind, properties) {
  if (kind === "boundary") {
    return properties.boundary + (properties.location ? " · " + properties.location : "") +
      (properties.stage !== undefined && properties.stage !== null ? " · stage " + flow(properties.stage, "m") : "");
  }
  if (kind === "friction") { return "n = " + properties.mannings; }
  if (kind === "inflow") { return "Q = " + flow(properties.data, "m³/s"); }
  if (kind === "rainfall") { return "Rain " + flow(properties.data, "mm/h"); }
  if (kind === "structure") { return properties.method ? "Structure · " + properties.method : "Structure"; }
  if (kind === "culvert") { return "Culvert " + properties.name + " · " + properties.shape; }
  if (kind === "weir") {
    return properties.crest_elevation != null ? "Weir crest " + properties.crest_elevation + " m"
                                              : "Weir " + properties.height + " m high";
  }
  if (kind === "mesh_region") {
    return "Mesh " + properties.resolution + " " + (properties.resolution_units || "");
  }
  if (kind === "initial_condition") {
    return properties.depth !== undefined && properties.depth !== null ? "Depth " + properties.depth + " m"
      : "Stage " + properties.stage + " m";
  }
  if (kind === "soil") {
    return "IL " + properties.initial_loss_mm + " mm · CL " + properties.continuing_loss_mm_h + " mm/h" +
      (properties.impervious_fraction ? " · " + properties.impervious_fraction + " impervious" : "");
  }
  return "";
}

// A number with its units, or the name of the time series that drives it.
function flow(value, units) {
  return isFinite(Number(value)) && String(value).trim() !== "" ? value + " " + units : "series '" + value + "'";
}

// An observation point by how the model met it: red where the model is high, blue where it is low, grey where
// nothing was compared (dry, off the model, or no run chosen).
export const POINT_COLOURS = { high: "#dc2626", low: "#2563eb", none: "#6b7280" };

export function pointColour(error) {
  if (error === null || error === undefined) { return POINT_COLOURS.none; }
  return error > 0 ? POINT_COLOURS.high : POINT_COLOURS.low;
}

// "observed 1.20 m · modelled 1.05 m · error -0.15 m", or only what was observed when nothing was compared.
export function pointLabel(observed, compared) {
  const metres = function (value) {
    return value === null || value === undefined ? "—" : Number(value).toFixed(2) + " m";
  };
  if (!compared) { return "observed " + metres(observed); }
  return "observed " + metres(observed) + " · modelled " + metres(compared.modelled) + " · error " +
    metres(compared.error);
}
