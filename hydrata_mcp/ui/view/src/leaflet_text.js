// The one reviewed place where the view hands Leaflet something it shows. Leaflet parses a string given to a
// tooltip or an attribution as HTML, so a tool result's text would run as markup there: tooltips get an element
// whose text is set with textContent, and the view, which draws no tile layer, turns the attribution off.
// tests/test_html_sinks.py keeps every other script of ours off these calls.
(function (H) {
  "use strict";

  function textElement(text) {
    var node = document.createElement("span");
    node.textContent = String(text);
    return node;
  }

  H.leafletText = {
    map: function (id, options) { return L.map(id, Object.assign({}, options, { attributionControl: false })); },
    // A tooltip showing `text` as it is.
    tooltip: function (layer, text, options) { return layer.bindTooltip(textElement(text), options); }
  };
})(window.Hydrata = window.Hydrata || {});
