// Flood observations and comparisons arrive with the observations release; until then these panels say so.
import { el } from "../../map_core/dom.js";
import * as kit from "./common.js";

function unavailable(title, what) {
  return {
    title: title,
    render: function (context) {
      context.body.appendChild(el("h2", { text: title }));
      kit.frame(context, [], title.toLowerCase());
      context.setState("unavailable", what + " are not available yet on this platform: they arrive with a " +
                       "later release.");
    }
  };
}

export const observations = unavailable("Observations", "Flood observations");
export const comparison = unavailable("Comparison", "Comparisons of runs with observations");
