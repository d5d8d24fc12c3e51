// A raster layer's legend, the same in both maps: its title and units, the colour ramp, and its values.
import { el, number } from "./dom.js";

export function legendBlock(legend, attributes) {
  const stops = legend.stops;
  const ramp = el("div", { "class": "legend-ramp" });
  ramp.style.background = "linear-gradient(to right, " + stops.map(function (stop, index) {
    return stop.colour + " " + Math.round(100 * index / Math.max(1, stops.length - 1)) + "%";
  }).join(", ") + ")";
  const labels = el("div", { "class": "legend-labels" }, [
    el("span", { text: number(stops[0].value, 2) }),
    el("span", { text: number(stops[Math.floor(stops.length / 2)].value, 2) }),
    el("span", { text: number(stops[stops.length - 1].value, 2) })
  ]);
  const heading = legend.title + (legend.units ? " (" + legend.units + ")" : "");
  return el("div", Object.assign({ "class": "legend-block" }, attributes), [
    el("div", { "class": "legend-title", text: heading }), ramp, labels
  ]);
}
