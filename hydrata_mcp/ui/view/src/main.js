// The flood map inside the conversation: what the full map's panel shows, at a chat's scale. It draws with the
// site's map core (map_core/: the contract's words, the DOM helpers, the colour table, the legend, the one
// reviewed Leaflet helper), which build.py inlines with this file.
import { isFinished, runStatus } from "../map_core/contract.js";
import { blank, el, number } from "../map_core/dom.js";
import { boundsOf, latLngs } from "../map_core/geo.js";
import { mapWithoutCredits, tooltip } from "../map_core/leaflet_text.js";
import { legendBlock } from "../map_core/legend.js";
import { labelOf, OUTLINE_COLOUR, pointColour, pointLabel, styleOf, titleOf } from "../map_core/styles.js";
import * as host from "./host.js";

const POLL_MS = 2000;
// A comparison's point: red where the model is high, blue where it is low, grey where it is dry or off the model.
const state = { input: {}, map: null, link: null, timer: null, bounds: null };

function shown(value, digits) {
  return blank(value) ? "–" : number(value, digits);
}

function say(text, isError) {
  const box = document.getElementById("message");
  box.textContent = text;
  box.className = isError ? "error" : "";
  box.hidden = !text;
}

function setTitle(text) { document.getElementById("title").textContent = text; }

function setLink(url) {
  state.link = url;
  document.getElementById("open-map").hidden = !url;
}

function map() {
  if (!state.map) {
    state.map = mapWithoutCredits("map", { zoomControl: true });
    state.map.setView([0, 0], 2);
  }
  return state.map;
}

function frame(bbox) {
  if (!bbox) { return; }
  const bounds = L.latLngBounds(boundsOf(bbox));
  state.bounds = state.bounds ? state.bounds.extend(bounds) : bounds;
  map().fitBounds(state.bounds, { padding: [12, 12], animate: false });
}

// --- what each tool's result shows -------------------------------------------------------------------------

function showScenario(projectId, scenarioId) {
  return host.callTool("get_map_scenario_layers", { project_id: projectId, scenario_id: scenarioId })
    .then(function (result) {
      const data = result.structuredContent;
      data.layers.forEach(drawLayer);
      if (data.mesh_outline.length) {
        L.polyline(data.mesh_outline.map(latLngs), { color: OUTLINE_COLOUR, weight: 1.5, className: "mesh-outline" })
          .addTo(map());
        document.getElementById("map").dataset.mesh = "outline";
      }
      frame(data.bbox_wgs84 || boundsOfLayers(data.layers));
      if (!state.link) { setLink(data.ui_url); }
      fact("Layers", data.layers.map(function (layer) { return titleOf(layer.kind); }).join(", ") || "none");
      fact("Mesh", data.mesh_triangle_count ? data.mesh_triangle_count + " triangles" : "not built yet");
      return data;
    });
}

function drawLayer(layer) {
  const kind = layer.kind;
  const shapes = L.geoJSON(layer.collection, {
    style: function (feature) { return styleOf(kind, feature.properties || {}); },
    pointToLayer: function (feature, latlng) {
      return L.circleMarker(latlng, { radius: 4, color: styleOf(kind, feature.properties || {}).color });
    },
    onEachFeature: function (feature, shape) {
      const label = labelOf(kind, feature.properties || {});
      tooltip(shape, titleOf(kind) + (label ? ": " + label : ""));
    }
  });
  shapes.addTo(map());
}

function boundsOfLayers(layers) {
  const group = L.featureGroup(layers.map(function (layer) { return L.geoJSON(layer.collection); }));
  const bounds = group.getBounds();
  return bounds.isValid() ? [bounds.getWest(), bounds.getSouth(), bounds.getEast(), bounds.getNorth()] : null;
}

function showDepth(runId) {
  return host.callTool("get_map_depth_overlay", { run_id: runId }).then(function (result) {
    const data = result.structuredContent;
    setLink(data.ui_url);
    const image = (result.content || []).filter(function (block) { return block.type === "image"; })[0];
    if (data.empty || !image) {
      say("Nothing got wet in this run.");
      return data;
    }
    const overlay = L.imageOverlay("data:" + image.mimeType + ";base64," + image.data, boundsOf(data.bounds_wgs84),
                                   { opacity: 0.85, className: "depth-overlay" });
    overlay.on("load", function () { document.getElementById("map").dataset.overlay = "drawn"; });
    overlay.addTo(map());
    frame(data.bounds_wgs84);
    legend(data);
    return data;
  });
}

function legend(data) {
  const box = document.getElementById("legend");
  box.textContent = "";
  box.hidden = !data.legend.length;
  if (data.legend.length) {
    box.appendChild(legendBlock({ title: data.title, units: data.units, stops: data.legend }));
  }
}

function showRun(run) {
  setTitle("Run #" + run.id + (run.scenario_name ? " of " + run.scenario_name : ""));
  progress(run);
  showScenario(run.project, run.scenario).catch(problem);
  if (run.status === runStatus.COMPLETE) { return showDepth(run.id); }
  if (!isFinished(run.status)) { follow(run); }
  return Promise.resolve();
}

function follow(run) {
  clearTimeout(state.timer);
  state.timer = setTimeout(function () {
    host.callTool("get_run_status", { run_id: run.id }).then(function (result) {
      const status = result.structuredContent;
      progress(status);
      if (status.status === runStatus.COMPLETE) { showDepth(run.id).catch(problem); }
      else if (!isFinished(status.status)) { follow(run); }
      else { say(status.error_message || "The run " + status.status + ".", status.status === runStatus.ERROR); }
    }).catch(problem);
  }, POLL_MS);
}

function progress(status) {
  const box = document.getElementById("progress-box");
  const bar = document.getElementById("progress");
  bar.value = status.progress_pct || 0;
  box.dataset.status = status.status;
  document.getElementById("progress-text").textContent = status.status + " · " + status.phase + " · " +
    shown(status.progress_pct || 0, 1) + " %";
  box.hidden = false;
}

function showRunResults(results) {
  setTitle("Run #" + results.id + ": maximum depth");
  const statistics = results.statistics || {};
  fact("Peak depth", shown(statistics.peak_depth_m, 2) + " m");
  fact("Wet area", shown(statistics.wet_area_m2, 0) + " m²");
  return showDepth(results.id).then(function (data) {
    return showScenario(data.project_id, data.scenario_id);
  });
}

function showComparison(comparison) {
  setTitle("Comparison #" + comparison.id + ": " + comparison.scenario_name + " vs " + comparison.event_name);
  const metrics = comparison.metrics;
  fact("Compared", metrics.n + " points");
  fact("Bias", shown(metrics.bias, 3) + " m");
  fact("RMSE", shown(metrics.rmse, 3) + " m");
  return host.callTool("get_map_comparison_points", { comparison_id: comparison.id }).then(function (result) {
    const data = result.structuredContent;
    setLink(data.ui_url);
    data.points.forEach(drawPoint);
    fact("Points", "red: model high · blue: model low · grey: dry or off the model" +
                   (data.truncated ? " (the first " + data.points.length + ")" : ""));
    document.getElementById("map").dataset.points = String(data.points.length);
    showDepth(comparison.run).catch(problem);
    showScenario(comparison.project, comparison.scenario).catch(problem);
  });
}

function drawPoint(point) {
  const colour = pointColour(point.error);
  const radius = point.error === null ? 4 : 4 + Math.min(8, Math.abs(point.error) * 10);
  const marker = L.circleMarker([point.lat, point.lon], { radius: radius, color: OUTLINE_COLOUR, weight: 1,
                                                          fillColor: colour, fillOpacity: 0.9, className: "observation" });
  tooltip(marker, pointLabel(point.observed, point));
  marker.addTo(map());
}

function fact(name, value) {
  document.getElementById("facts").appendChild(el("div", {}, [el("dt", { text: name }), el("dd", { text: value })]));
}

function problem(error) { say(error.message || String(error), true); }

function show(result) {
  const data = (result && result.structuredContent) || {};
  if (result && result.isError) { say("The tool failed, so there is nothing to map.", true); return; }
  let drawn;
  if (data.metrics && data.points) { drawn = showComparison(data); }
  else if (data.statistics && data.result_layers && data.scenario === undefined) { drawn = showRunResults(data); }
  else if (data.progress_pct !== undefined && data.scenario !== undefined) { drawn = showRun(data); }
  else if (data.computed_status !== undefined) {
    setTitle("Scenario " + data.name);
    drawn = showScenario(state.input.project_id, data.id);
  } else { say("This result has nothing to map."); return; }
  Promise.resolve(drawn).catch(problem);
}

host.on("ui/notifications/tool-input", function (params) { state.input = params.arguments || {}; });
host.on("ui/notifications/tool-result", show);
host.on("ui/resource-teardown", function () { clearTimeout(state.timer); return {}; });

document.addEventListener("DOMContentLoaded", function () {
  document.getElementById("open-map").addEventListener("click", function () {
    if (state.link) { host.openLink(state.link).catch(problem); }
  });
  map();
  host.connect().catch(problem);
});
