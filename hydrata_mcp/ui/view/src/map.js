// The flood map inside the conversation: what the full map's panel shows, at a chat's scale.
(function (H) {
  "use strict";

  var POLL_MS = 2000;
  // The contract's words, inlined into the bundle by build.py from hydrata_contract (their one spelling).
  var CONTRACT = JSON.parse(document.getElementById("hydrata-contract").textContent);
  var STATUS = CONTRACT.runStatus;
  var TERMINAL = CONTRACT.terminalRunStates;
  var KIND_COLOURS = { boundary: "#6b21a8", friction: "#15803d", inflow: "#0369a1", rainfall: "#0891b2",
                       structure: "#b45309", mesh_region: "#be185d" };
  var state = { input: {}, map: null, link: null, timer: null, bounds: null };

  function el(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) {
      if (name === "text") { node.textContent = attributes[name]; } else { node.setAttribute(name, attributes[name]); }
    });
    (children || []).forEach(function (child) {
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function number(value, digits) {
    return value === null || value === undefined ? "–" : Number(value).toFixed(digits);
  }

  function say(text, isError) {
    var box = document.getElementById("message");
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
      state.map = H.leafletText.map("map", { zoomControl: true });
      state.map.setView([0, 0], 2);
    }
    return state.map;
  }

  function frame(bbox) {
    if (!bbox) { return; }
    var bounds = L.latLngBounds([[bbox[1], bbox[0]], [bbox[3], bbox[2]]]);
    state.bounds = state.bounds ? state.bounds.extend(bounds) : bounds;
    map().fitBounds(state.bounds, { padding: [12, 12], animate: false });
  }

  // --- what each tool's result shows -------------------------------------------------------------------------

  function showScenario(projectId, scenarioId) {
    return H.host.callTool("get_map_scenario_layers", { project_id: projectId, scenario_id: scenarioId })
      .then(function (result) {
        var data = result.structuredContent;
        data.layers.forEach(drawLayer);
        if (data.mesh_outline.length) {
          L.polyline(data.mesh_outline.map(latLngs), { color: "#111827", weight: 1.5, className: "mesh-outline" })
            .addTo(map());
          document.getElementById("map").dataset.mesh = "outline";
        }
        frame(data.bbox_wgs84 || boundsOfLayers(data.layers));
        if (!state.link) { setLink(data.ui_url); }
        fact("Layers", data.layers.map(function (layer) { return layer.kind.replace("_", " "); }).join(", ") || "none");
        fact("Mesh", data.mesh_triangle_count ? data.mesh_triangle_count + " triangles" : "not built yet");
        return data;
      });
  }

  function drawLayer(layer) {
    var colour = KIND_COLOURS[layer.kind] || "#374151";
    var shapes = L.geoJSON(layer.collection, {
      style: function () { return { color: colour, weight: 2, fillOpacity: 0.08 }; },
      pointToLayer: function (feature, latlng) { return L.circleMarker(latlng, { radius: 4, color: colour }); }
    });
    H.leafletText.tooltip(shapes, layer.kind.replace("_", " "));
    shapes.addTo(map());
  }

  function boundsOfLayers(layers) {
    var group = L.featureGroup(layers.map(function (layer) { return L.geoJSON(layer.collection); }));
    var bounds = group.getBounds();
    return bounds.isValid() ? [bounds.getWest(), bounds.getSouth(), bounds.getEast(), bounds.getNorth()] : null;
  }

  function latLngs(line) { return line.map(function (point) { return [point[1], point[0]]; }); }

  function showDepth(runId) {
    return H.host.callTool("get_map_depth_overlay", { run_id: runId }).then(function (result) {
      var data = result.structuredContent;
      setLink(data.ui_url);
      var image = (result.content || []).filter(function (block) { return block.type === "image"; })[0];
      if (data.empty || !image) {
        say("Nothing got wet in this run.");
        return data;
      }
      var bounds = data.bounds_wgs84;
      var overlay = L.imageOverlay("data:" + image.mimeType + ";base64," + image.data,
                                   [[bounds[1], bounds[0]], [bounds[3], bounds[2]]],
                                   { opacity: 0.85, className: "depth-overlay" });
      overlay.on("load", function () { document.getElementById("map").dataset.overlay = "drawn"; });
      overlay.addTo(map());
      frame(bounds);
      legend(data);
      return data;
    });
  }

  function legend(data) {
    var stops = data.legend;
    var box = document.getElementById("legend");
    box.textContent = "";
    if (!stops.length) { box.hidden = true; return; }
    var ramp = el("div", { "class": "ramp" });
    ramp.style.background = "linear-gradient(to right, " + stops.map(function (stop, index) {
      return stop.colour + " " + Math.round(100 * index / Math.max(1, stops.length - 1)) + "%";
    }).join(", ") + ")";
    box.appendChild(el("div", { "class": "legend-title", text: data.title + " (" + data.units + ")" }));
    box.appendChild(ramp);
    box.appendChild(el("div", { "class": "legend-labels" }, [
      el("span", { text: number(stops[0].value, 2) }),
      el("span", { text: number(stops[stops.length - 1].value, 2) + " " + data.units })
    ]));
    box.hidden = false;
  }

  function showRun(run) {
    setTitle("Run #" + run.id + (run.scenario_name ? " of " + run.scenario_name : ""));
    progress(run);
    showScenario(run.project, run.scenario).catch(problem);
    if (run.status === STATUS.COMPLETE) { return showDepth(run.id); }
    if (TERMINAL.indexOf(run.status) < 0) { follow(run); }
    return Promise.resolve();
  }

  function follow(run) {
    clearTimeout(state.timer);
    state.timer = setTimeout(function () {
      H.host.callTool("get_run_status", { run_id: run.id }).then(function (result) {
        var status = result.structuredContent;
        progress(status);
        if (status.status === STATUS.COMPLETE) { showDepth(run.id).catch(problem); }
        else if (TERMINAL.indexOf(status.status) < 0) { follow(run); }
        else { say(status.error_message || "The run " + status.status + ".", status.status === STATUS.ERROR); }
      }).catch(problem);
    }, POLL_MS);
  }

  function progress(status) {
    var box = document.getElementById("progress-box");
    var bar = document.getElementById("progress");
    bar.value = status.progress_pct || 0;
    box.dataset.status = status.status;
    document.getElementById("progress-text").textContent = status.status + " · " + status.phase + " · " +
      number(status.progress_pct || 0, 1) + " %";
    box.hidden = false;
  }

  function showRunResults(results) {
    setTitle("Run #" + results.id + ": maximum depth");
    var statistics = results.statistics || {};
    fact("Peak depth", number(statistics.peak_depth_m, 2) + " m");
    fact("Wet area", number(statistics.wet_area_m2, 0) + " m²");
    return showDepth(results.id).then(function (data) {
      return showScenario(data.project_id, data.scenario_id);
    });
  }

  function showComparison(comparison) {
    setTitle("Comparison #" + comparison.id + ": " + comparison.scenario_name + " vs " + comparison.event_name);
    var metrics = comparison.metrics;
    fact("Compared", metrics.n + " points");
    fact("Bias", number(metrics.bias, 3) + " m");
    fact("RMSE", number(metrics.rmse, 3) + " m");
    return H.host.callTool("get_map_comparison_points", { comparison_id: comparison.id }).then(function (result) {
      var data = result.structuredContent;
      setLink(data.ui_url);
      data.points.forEach(drawPoint);
      fact("Points", "red: model high · blue: model low · grey: dry or off the model" +
                     (data.truncated ? " (the first " + data.points.length + ")" : ""));
      document.getElementById("map").dataset.points = String(data.points.length);
      showDepth(comparison.run).catch(problem);
      showScenario(comparison.project, comparison.scenario).catch(problem);
    });
  }

  // Red where the model is high, blue where it is low, grey where it is dry or off the model.
  function drawPoint(point) {
    var colour = point.error === null ? "#6b7280" : point.error > 0 ? "#dc2626" : "#2563eb";
    var radius = point.error === null ? 4 : 4 + Math.min(8, Math.abs(point.error) * 10);
    var marker = L.circleMarker([point.lat, point.lon], { radius: radius, color: "#111827", weight: 1,
                                                          fillColor: colour, fillOpacity: 0.9, className: "observation" });
    H.leafletText.tooltip(marker, "observed " + number(point.observed, 2) + " m · modelled " +
                          number(point.modelled, 2) + " m · error " + number(point.error, 2) + " m");
    marker.addTo(map());
  }

  function fact(name, value) {
    document.getElementById("facts").appendChild(el("div", {}, [el("dt", { text: name }), el("dd", { text: value })]));
  }

  function problem(error) { say(error.message || String(error), true); }

  function show(result) {
    var data = (result && result.structuredContent) || {};
    if (result && result.isError) { say("The tool failed, so there is nothing to map.", true); return; }
    var shown;
    if (data.metrics && data.points) { shown = showComparison(data); }
    else if (data.statistics && data.result_layers && data.scenario === undefined) { shown = showRunResults(data); }
    else if (data.progress_pct !== undefined && data.scenario !== undefined) { shown = showRun(data); }
    else if (data.computed_status !== undefined) {
      setTitle("Scenario " + data.name);
      shown = showScenario(state.input.project_id, data.id);
    } else { say("This result has nothing to map."); return; }
    Promise.resolve(shown).catch(problem);
  }

  H.host.on("ui/notifications/tool-input", function (params) { state.input = params.arguments || {}; });
  H.host.on("ui/notifications/tool-result", show);
  H.host.on("ui/resource-teardown", function () { clearTimeout(state.timer); return {}; });

  document.addEventListener("DOMContentLoaded", function () {
    document.getElementById("open-map").addEventListener("click", function () {
      if (state.link) { H.host.openLink(state.link).catch(problem); }
    });
    map();
    H.host.connect().catch(problem);
  });
})(window.Hydrata = window.Hydrata || {});
