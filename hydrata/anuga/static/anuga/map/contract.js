// The contract's words (run states, layers, hazard classes, panels) as the page gives them: hydrata_contract is
// their one spelling, so no script here writes a state or a layer name of its own.
(function (H) {
  "use strict";

  H.contract = JSON.parse(document.getElementById("hydrata-contract").textContent);
})(window.Hydrata = window.Hydrata || {});
