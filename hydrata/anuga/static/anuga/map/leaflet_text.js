// The one reviewed place where the map hands Leaflet something it shows. Leaflet parses a string given to a
// tooltip, a popup, a layer-control name or an attribution as HTML, so a layer's property, a row's title or any other
// string from the API would run as markup there. Tooltips and popups get an element whose text is set with
// textContent; the layer control and the attribution take strings only, so their text is escaped here and nowhere
// else. tests/test_html_sinks.py keeps every other script of ours off these calls.
(function (H) {
  "use strict";

  var ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" };

  // Text as HTML that shows exactly that text (one character class, so linear in the text).
  function escaped(text) {
    return String(text).replace(/[&<>"']/g, function (character) { return ENTITIES[character]; });
  }

  function textElement(text) {
    var node = document.createElement("span");
    node.textContent = String(text);
    return node;
  }

  function elementOnly(node) {
    if (!(node instanceof Element)) { throw new TypeError("Leaflet is handed an element here, never markup"); }
    return node;
  }

  H.leafletText = {
    // A tooltip showing `text` as it is.
    tooltip: function (layer, text, options) { return layer.bindTooltip(textElement(text), options); },
    // A popup showing an element built with H.dom (textContent throughout).
    popup: function (layer, node, options) { return layer.bindPopup(elementOnly(node), options); },
    // The layer switcher, empty: layers join it through overlay().
    layerControl: function (options) { return L.control.layers(null, null, options); },
    overlay: function (control, layer, title) { return control.addOverlay(layer, escaped(title)); },
    // The background map of the page's config ({basemap, attribution}), its credit shown as plain text.
    basemap: function (config, options) {
      return L.tileLayer(config.basemap, Object.assign({}, options, { attribution: escaped(config.attribution || "") }));
    }
  };
})(window.Hydrata = window.Hydrata || {});
