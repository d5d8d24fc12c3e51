// A raster layer's legend, the same in both maps: its title and units, then the colour ramp with its values, or for
// the hazard class raster one swatch per class with ARR's label, in the colours its tiles are drawn in (both from
// hydrata_contract/hazard.py), or for another class raster (a study's critical duration) one swatch per labelled stop.
import { contract } from "./contract.js";
import { el, number } from "./dom.js";

export function legendBlock(legend, attributes) {
  const hazard = legend.name === contract.hazardLayer;
  const labelled = !hazard && legend.stops.length > 0 && legend.stops.every(function (stop) {
    return Boolean(stop.label);
  });
  const classes = hazard || labelled;
  const heading = legend.title + (legend.units && !classes ? " (" + legend.units + ")" : "");
  const key = hazard ? classSwatches(contract.hazardClasses) : labelled ? classSwatches(labelledClasses(legend.stops))
    : ramp(legend.stops);
  return el("div", Object.assign({ "class": "legend-block" }, attributes), [
    el("div", { "class": "legend-title", text: heading })
  ].concat(key));
}

function ramp(stops) {
  const bar = el("div", { "class": "legend-ramp" });
  bar.style.background = "linear-gradient(to right, " + stops.map(function (stop, index) {
    return stop.colour + " " + Math.round(100 * index / Math.max(1, stops.length - 1)) + "%";
  }).join(", ") + ")";
  const labels = el("div", { "class": "legend-labels" }, [
    el("span", { text: number(stops[0].value, 2) }),
    el("span", { text: number(stops[Math.floor(stops.length / 2)].value, 2) }),
    el("span", { text: number(stops[stops.length - 1].value, 2) })
  ]);
  return [bar, labels];
}

function labelledClasses(stops) {
  return stops.map(function (stop) { return { code: String(stop.value), label: stop.label, colour: stop.colour }; });
}

function classSwatches(classes) {
  return [el("ul", { "class": "legend-classes" }, classes.map(function (item) {
    const swatch = el("span", { "class": "legend-swatch", "data-class": item.code });
    swatch.style.background = item.colour;
    return el("li", { "data-class": item.code }, [swatch, el("span", { "class": "legend-class", text: item.label })]);
  }))];
}
