// Flood observations and comparisons arrive with the observations release; until then these panels say so.
(function (H) {
  "use strict";

  function unavailable(title, what) {
    return {
      title: title,
      render: function (context) {
        context.body.appendChild(H.dom.el("h2", { text: title }));
        H.panelKit.frame(context, [], title.toLowerCase());
        context.setState("unavailable", what + " are not available yet on this platform: they arrive with a " +
                         "later release.");
      }
    };
  }

  H.panels = H.panels || {};
  H.panels.observations = unavailable("Observations", "Flood observations");
  H.panels.comparison = unavailable("Comparison", "Comparisons of runs with observations");
})(window.Hydrata = window.Hydrata || {});
