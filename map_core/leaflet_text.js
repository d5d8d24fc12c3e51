// The one reviewed place where either map hands Leaflet something it shows. Leaflet parses a string given to a
// tooltip, a popup, a layer-control name or an attribution as HTML, so a layer's property, a row's title or any
// other string from the API or a tool result would run as markup there. Tooltips and popups get an element whose
// text is set with textContent; the layer control and the attribution take strings only, so their text is escaped
// here and nowhere else (the MCP App, which draws no tile layer, turns the attribution off). tests/test_html_sinks.py
// keeps every other script of ours off these calls.

const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" };

// Text as HTML that shows exactly that text (one character class, so linear in the text).
function escaped(text) {
  return String(text).replace(/[&<>"']/g, function (character) { return ENTITIES[character]; });
}

function textElement(text) {
  const node = document.createElement("span");
  node.textContent = String(text);
  return node;
}

function elementOnly(node) {
  if (!(node instanceof Element)) { throw new TypeError("Leaflet is handed an element here, never markup"); }
  return node;
}

// A map with no attribution control, for a map that shows no one's tiles.
export function mapWithoutCredits(element, options) {
  return L.map(element, Object.assign({}, options, { attributionControl: false }));
}

// A tooltip showing `text` as it is.
export function tooltip(layer, text, options) {
  return layer.bindTooltip(textElement(text), options);
}

// A popup showing an element built with dom.el (textContent throughout).
export function popup(layer, node, options) {
  return layer.bindPopup(elementOnly(node), options);
}

// The layer switcher, empty: layers join it through overlay().
export function layerControl(options) {
  return L.control.layers(null, null, options);
}

export function overlay(control, layer, title) {
  return control.addOverlay(layer, escaped(title));
}

// The background map of the page's config ({basemap, attribution}), its credit shown as plain text.
export function basemap(config, options) {
  return L.tileLayer(config.basemap, Object.assign({}, options, { attribution: escaped(config.attribution || "") }));
}
