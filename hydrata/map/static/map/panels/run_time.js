// A finished run over time: a slider over the depth at the times the run saved, and a hydrograph (depth and
// stage over time) at a point clicked on the map, both from the platform's REST answers.
import { contract } from "../../map_core/contract.js";
import * as dom from "../../map_core/dom.js";
import * as api from "../api.js";
import * as chart from "../chart.js";
import * as kit from "./common.js";

var FRAME_KEY = "result-depth-at-time";
var PEAK = contract.firstShownLayer;  // the maximum depth, hidden while a saved time is shown

function frameUrl(frames, index) { return frames.tiles.replace("{frame}", String(index)); }

function timeLabel(frames, index) {
  return "t = " + dom.duration(frames.times[index]) + " (saved time " + (index + 1) + " of " +
         frames.times.length + ")";
}

// The slider, or a short word why there is none (a run from before the depth at saved times was kept).
export function timeSlider(context, frames) {
  if (!frames || !frames.times.length) {
    return kit.section("Depth over time", [dom.el("p", { "class": "hint", id: "run-frames-note",
      text: frames ? frames.note : "This run has no depth at saved times." })]);
  }
  var last = frames.times.length - 1;
  var bbox = context.base.terrain && context.base.terrain.bbox_wgs84;
  var slider = dom.el("input", { type: "range", id: "run-frame-slider", min: "0", max: String(last), step: "1",
                                 value: String(last), "aria-label": "Saved time of the depth shown" });
  var shown = dom.el("output", { id: "run-frame-time", "for": "run-frame-slider", text: timeLabel(frames, last) });
  var box = dom.el("input", { type: "checkbox", id: "toggle-depth-at-time" });
  // A new tile layer for each time, not setUrl: Leaflet's redraw asks for tiles at the map's fractional zoom.
  function place(index, visible) {
    var tiled = { name: frames.name, title: frames.title, units: frames.units, legend: frames.legend,
                  tiles: frameUrl(frames, index) };
    context.view.addTiles(FRAME_KEY, tiled, bbox, { opacity: 0.85, zIndex: 6, visible: visible });
  }
  function choose(index) {
    var text = timeLabel(frames, index);
    shown.textContent = text;
    slider.setAttribute("aria-valuetext", text);
    context.view.element.dataset.frame = String(index);
    place(index, true);
    box.checked = true;
    hidePeak();
  }
  function show(visible) {
    context.view.show(FRAME_KEY, visible);
    if (visible) { hidePeak(); }
  }
  function hidePeak() {
    context.view.show("result-" + PEAK, false);
    var peak = document.getElementById("toggle-" + PEAK);
    if (peak) { peak.checked = false; }
  }
  place(last, false);
  slider.setAttribute("aria-valuetext", timeLabel(frames, last));
  slider.addEventListener("input", function () { choose(Number(slider.value)); });
  box.addEventListener("change", function () { show(box.checked); });
  var children = [
    dom.el("label", { "class": "switch", "for": "toggle-depth-at-time" }, [box, " " + frames.title +
                                                                          " (" + frames.units + ")"]),
    dom.el("div", { "class": "frame-slider" }, [slider, shown])
  ];
  if (frames.note) { children.push(dom.el("p", { "class": "hint", id: "run-frames-note", text: frames.note })); }
  return kit.section("Depth over time", children);
}

// Click the map: the depth and stage over time at that point, read back from the run's output.
export function hydrograph(context, run) {
  var figure = dom.el("figure", { "class": "chart-box", id: "run-hydrograph" });
  var hint = dom.el("p", { "class": "hint", id: "run-hydrograph-hint",
                           text: "Click the map to chart the depth and stage over time at that point." });
  var marker = null;
  var asked = 0;
  function clicked(event) {
    var point = { x: event.latlng.lng, y: event.latlng.lat };
    asked += 1;
    var thisClick = asked;
    if (marker) { context.view.map.removeLayer(marker); }
    marker = L.circleMarker(event.latlng, { radius: 6, color: "#b91c1c", weight: 2 }).addTo(context.view.map);
    hint.textContent = "Reading the run's output at that point…";
    api.post(api.run(run.id) + "time-series/", { points: [point], crs: "EPSG:4326" }).then(function (answer) {
      if (thisClick !== asked) { return; }
      if (!answer.ok) { hint.textContent = api.problem(answer, "The series at that point"); return; }
      draw(figure, hint, answer.data.series[0]);
    });
  }
  context.view.map.on("click", clicked);
  var section = kit.section("Hydrograph at a point", [hint, figure]);
  section.stop = function () {
    context.view.map.off("click", clicked);
    if (marker) { context.view.map.removeLayer(marker); }
  };
  return section;
}

function draw(figure, hint, series) {
  dom.clear(figure);
  figure.dataset.x = String(series.x);
  figure.dataset.y = String(series.y);
  if (series.depth === null) {
    hint.textContent = "That point is outside the run's mesh: click inside it.";
    return;
  }
  hint.textContent = "At " + dom.number(series.y, 5) + ", " + dom.number(series.x, 5) +
                     " (click elsewhere for another point).";
  var depth = series.t.map(function (t, i) { return { x: t, y: series.depth[i] }; });
  var stage = series.t.map(function (t, i) { return { x: t, y: series.stage[i] }; });
  figure.appendChild(chart.line(depth, { title: "Depth over time at the point", units: "m",
                                          xLabel: "seconds from the start" }));
  figure.appendChild(chart.line(stage, { title: "Stage (water level) over time at the point", units: "m",
                                          xLabel: "seconds from the start", fromZero: false }));
  figure.appendChild(dom.el("figcaption", { text: "Depth and stage (m) over time at the point; the peak depth is " +
    dom.number(Math.max.apply(null, series.depth), 3) + " m." }));
  figure.appendChild(valuesTable(series));
}

function valuesTable(series) {
  var rows = series.t.map(function (t, i) {
    return dom.el("tr", {}, [t, series.depth[i], series.stage[i]].map(function (value) {
      return dom.el("td", { text: String(value) });
    }));
  });
  var head = dom.el("tr", {}, ["t (s)", "depth (m)", "stage (m)"].map(function (text) {
    return dom.el("th", { text: text });
  }));
  return dom.el("details", {}, [dom.el("summary", { text: "The values" }),
    dom.el("table", { "class": "properties", id: "run-hydrograph-values" },
           [dom.el("thead", {}, [head]), dom.el("tbody", {}, rows)])]);
}
