import { contract, isFinished, runStatus } from "../../map_core/contract.js";
import * as dom from "../../map_core/dom.js";
import * as api from "../api.js";
import * as chart from "../chart.js";
import * as kit from "./common.js";
import * as impact from "./impact.js";
import * as overTime from "./run_time.js";

var POLL_MS = 2000;
var SHOWN_FIRST = contract.firstShownLayer;
var STATISTICS = [
  ["peak_depth_m", "Peak depth", "m"], ["peak_speed_m_s", "Peak speed", "m/s"], ["peak_stage_m", "Peak stage", "m"],
  ["wet_area_m2", "Wet area", "m²"], ["volume_in_m3", "Volume in", "m³"], ["volume_out_m3", "Volume out", "m³"],
  ["final_volume_m3", "Volume at the end", "m³"], ["sim_seconds", "Simulated", "s"],
  ["wall_seconds", "Computed in", "s"]
];

export const title = "Run";

export function render(context) {
  var state = { alive: true, timer: null, stops: [] };
  var stop = function () {
    state.alive = false;
    clearTimeout(state.timer);
    state.stops.forEach(function (stopOne) { stopOne(); });
  };
  if (context.link.run && context.link.compare) {
    impact.render(context, context.link.run, context.link.compare, state);
  } else if (context.link.run) {
    load(context, context.link.run, state);
  } else {
    list(context, state);
  }
  return stop;
}

function list(context, state) {
  var path = api.project(context.project.id) + "runs/?page_size=25";
  api.get(path).then(function (answer) {
    if (!state.alive) { return; }
    if (!answer.ok) { context.setState(api.stateOf(answer), api.problem(answer, "The runs")); return; }
    var runs = answer.data.results.filter(function (run) {
      return !context.link.scenario || run.scenario === context.link.scenario;
    });
    context.body.appendChild(dom.el("h2", { text: "Runs" }));
    kit.frame(context, [], "runs");
    if (!runs.length) {
      context.setState("empty", "No runs yet. Build the scenario, then start a simulation (start_simulation).");
      return;
    }
    context.body.appendChild(kit.linkList(runs.map(function (run) {
      return { href: context.linkTo("run", { run: run.id, scenario: run.scenario }),
               text: "Run #" + run.id + " of " + run.scenario_name, meta: run.status };
    })));
    context.setState("ready", "");
  });
}

function load(context, runId, state) {
  api.get(api.run(runId)).then(function (answer) {
    if (!state.alive) { return; }
    if (!answer.ok) { context.setState(api.stateOf(answer), api.problem(answer, "This run")); return; }
    var run = answer.data;
    context.body.appendChild(dom.el("h2", { text: "Run #" + run.id + " of " + run.scenario_name }));
    var live = dom.el("div", { id: "run-live" });
    context.body.appendChild(live);
    var results = dom.el("div", { id: "run-results" });
    context.body.appendChild(results);
    frameOnScenario(context, run);
    follow(context, run, live, results, state);
  });
}

function frameOnScenario(context, run) {
  api.get(api.project(run.project) + "scenarios/" + run.scenario + "/").then(function (answer) {
    var boundary = answer.ok ? kit.rowById(context, answer.data.boundary) : null;
    if (boundary) { context.view.show("input-" + boundary.id, true); }
    kit.frame(context, [boundary && boundary.bbox_wgs84], "run:" + run.id);
  });
}

// Redraw the status while the run is in flight, polling the light status endpoint; then the results.
function follow(context, run, live, results, state) {
  drawStatus(live, run);
  if (isFinished(run.status)) {
    finished(context, run, results, state);
    return;
  }
  context.setState("ready", "");
  state.timer = setTimeout(function () {
    api.get(api.run(run.id) + "status/").then(function (answer) {
      if (!state.alive) { return; }
      if (!answer.ok) { context.setState(api.stateOf(answer), api.problem(answer, "This run")); return; }
      if (isFinished(answer.data.status)) {
        api.get(api.run(run.id)).then(function (full) {
          if (state.alive && full.ok) { follow(context, full.data, live, results, state); }
        });
        return;
      }
      follow(context, Object.assign({}, run, answer.data), live, results, state);
    });
  }, POLL_MS);
}

function drawStatus(live, run) {
  dom.clear(live);
  live.dataset.status = run.status;
  live.appendChild(dom.facts([
    ["Status", run.status], ["Phase", run.phase], ["Simulated", run.sim_time === null ? "" :
      dom.duration(run.sim_time) + " of " + dom.duration(run.duration)],
    ["Time left", isFinished(run.status) ? "" : run.eta_seconds === null ? "estimating…" :
      "about " + dom.duration(run.eta_seconds)],
    ["Cost", dom.money(run.compute_cost, run.currency)],
    ["Mesh", run.mesh_triangle_count ? dom.number(run.mesh_triangle_count, 0) + " triangles" : ""]
  ]));
  var bar = dom.el("progress", { id: "run-progress", max: "100", value: String(run.progress_pct || 0),
                                 "aria-label": "Progress" });
  live.appendChild(dom.el("div", { "class": "progress" }, [bar, dom.el("span", {
    text: dom.number(run.progress_pct || 0, 1) + " %" })]));
  if (run.worker_silent_seconds !== null && run.worker_silent_seconds !== undefined) {
    live.appendChild(dom.el("p", { "class": "error", role: "alert", id: "run-worker-silent",
      text: "The worker running this simulation stopped reporting " + dom.duration(run.worker_silent_seconds) +
            " ago (it was most likely stopped or lost). The run will be ended in error when a worker next runs " +
            "the stale-run sweep; then retry it." }));
  }
  if (run.status === runStatus.ERROR || run.status === runStatus.CANCELLED) {
    live.appendChild(dom.el("p", { "class": "error", role: "alert", text: run.user_message || run.error_message ||
                                                                          "The run " + run.status + "." }));
  }
}

function finished(context, run, results, state) {
  dom.clear(results);
  if (run.status !== runStatus.COMPLETE) {
    results.appendChild(logTail(run));
    context.setState("ready", "");
    return;
  }
  var statistics = run.statistics || {};
  var layers = dom.el("div", { "class": "result-layers" }, [dom.el("p", { "class": "hint", text: "Loading…" })]);
  results.appendChild(kit.section("Result layers", [layers]));
  results.appendChild(kit.section("Statistics", [dom.facts(STATISTICS.map(function (row) {
    return [row[1], dom.withUnits(statistics[row[0]], row[2], 3)];
  }))]));
  results.appendChild(bandChart(statistics.flooded_area_m2_by_depth_band || {}));
  results.appendChild(healthSection(statistics.health));
  results.appendChild(logTail(run));
  api.get(api.run(run.id) + "tiles/").then(function (answer) {
    if (!state.alive) { return; }
    if (!answer.ok) { context.setState(api.stateOf(answer), api.problem(answer, "The run's results")); return; }
    dom.clear(layers);
    answer.data.results.forEach(function (tiled) { layers.appendChild(resultLayer(context, tiled)); });
    var point = overTime.hydrograph(context, run);
    state.stops.push(point.stop);
    layers.parentNode.after(overTime.timeSlider(context, answer.data.frames), point);
    context.setState("ready", "");
  });
}

function resultLayer(context, tiled) {
  var key = "result-" + tiled.name;
  var shown = tiled.name === SHOWN_FIRST && !tiled.empty;
  if (!tiled.empty) {
    context.view.addTiles(key, tiled, context.base.terrain && context.base.terrain.bbox_wgs84,
                          { opacity: 0.85, zIndex: 5, visible: shown });
  }
  var box = dom.el("input", { type: "checkbox", id: "toggle-" + tiled.name, disabled: tiled.empty ? "disabled" : null });
  context.view.bindSwitch(key, box);
  return dom.el("label", { "class": "switch", "for": "toggle-" + tiled.name }, [
    box, " " + tiled.title + " (" + tiled.units + ")" + (tiled.empty ? ": never wet" : "")
  ]);
}

function bandChart(bands) {
  var items = Object.keys(bands).map(function (label) { return { label: label, value: bands[label] }; });
  var figure = dom.el("figure", { "class": "chart-box", id: "depth-bands" });
  if (!items.length) { return kit.section("Flooded area", [dom.el("p", { text: "Nothing got wet." })]); }
  figure.appendChild(chart.bars(items, { title: "Flooded area per depth band", units: "m²",
                                           xLabel: "maximum depth band (m)" }));
  figure.appendChild(dom.el("figcaption", { text: "Flooded area (m²) per maximum-depth band (m)" }));
  return kit.section("Flooded area", [figure]);
}

var VERDICTS = {
  healthy: "Healthy: nothing in the run's own figures asks for a second look.",
  check: "Check: the run finished, but look at what is listed below before trusting it.",
  unhealthy: "Unhealthy: do not trust these results until what is listed below is fixed."
};

// Is the model healthy? The verdict and its reasons, then the evidence (compute/health.py).
function healthSection(health) {
  if (!health) {
    return kit.section("Model health", [dom.el("p", { "class": "hint", id: "run-health",
      text: "This run was computed before the model's health was recorded." })]);
  }
  var box = dom.el("div", { id: "run-health", "data-verdict": health.verdict });
  box.appendChild(dom.el("p", { "class": "verdict verdict-" + health.verdict, id: "run-health-verdict",
                                text: VERDICTS[health.verdict] || health.verdict }));
  if (health.reasons.length) {
    box.appendChild(dom.el("ul", { "class": "reasons" }, health.reasons.map(function (reason) {
      return dom.el("li", { text: reason });
    })));
  }
  var step = health.timestep_s, limited = health.steps_limited_by, courant = health.peak_courant;
  var mass = health.mass_error, spikes = health.spikes;
  box.appendChild(dom.facts([
    ["Time step (min / median / max)", step.steps ? [step.min, step.median, step.max].map(function (value) {
      return dom.number(value, 4);
    }).join(" / ") + " s" : ""],
    ["Steps", dom.number(step.steps, 0) + " (" + dom.number(limited.courant, 0) + " set by the Courant condition, " +
              dom.number(limited.maximum_step, 0) + " by the largest step, " +
              dom.number(limited.recording_time, 0) + " cut to a recording time)"],
    ["Peak Courant number", courant ? dom.number(courant.value, 3) + " (CFL " + dom.number(health.cfl, 2) +
      ") at triangle " + courant.triangle + ", " + place(courant) : ""],
    ["Mass error at the end", mass.final_pct === null ? "" : percent(mass.final_pct) + " (healthy within ±" +
      dom.number(mass.healthy_line_pct, 1) + " %)"],
    ["Largest mass error", mass.largest_abs_pct === null ? "" : percent(mass.largest_abs_pct) + " at " +
      dom.duration(mass.largest_at_t)],
    ["Speed spikes", spikes.speed_cells + " triangles over " + dom.number(spikes.speed_jump_threshold_m_s) +
      " m/s, away and back between recordings (largest " + dom.number(spikes.largest_speed_jump_m_s, 3) + " m/s)"],
    ["Depth spikes", spikes.depth_cells + " triangles over " + dom.number(spikes.depth_jump_threshold_m) +
      " m, away and back between recordings (largest " + dom.number(spikes.largest_depth_jump_m, 3) + " m)"]
  ]));
  box.appendChild(placesTable("Where the time step was limited", "run-health-limiting",
    ["Triangle", "x", "y", "Radius (m)", "Share of steps"], health.limiting_triangles.map(function (t) {
      return [t.triangle, dom.number(t.x, 1), dom.number(t.y, 1), dom.number(t.radius_m, 3),
              dom.number(100 * t.share, 1) + " %"];
    })));
  if (spikes.worst.length) {
    box.appendChild(placesTable("Largest spikes", "run-health-spikes", ["Kind", "Triangle", "x", "y", "t", "Jump"],
      spikes.worst.map(function (s) {
        return [s.kind, s.triangle, dom.number(s.x, 1), dom.number(s.y, 1), dom.duration(s.t),
                dom.number(s.jump, 3) + (s.kind === "speed" ? " m/s" : " m")];
      })));
  }
  box.appendChild(massErrorChart(mass));
  return kit.section("Model health", [box]);
}

// A percentage as small as a healthy model's mass error (1e-9 %) is shown, not rounded away to 0.
function percent(value) {
  var size = Math.abs(value);
  return (size && size < 0.001 ? Number(value).toExponential(2) : dom.number(value, 3)) + " %";
}

function place(where) {
  return "(" + dom.number(where.x, 1) + ", " + dom.number(where.y, 1) + ")" +
    (where.t === null ? "" : " at " + dom.duration(where.t));
}

function placesTable(title, id, headings, rows) {
  var head = dom.el("tr", {}, headings.map(function (text) { return dom.el("th", { text: text }); }));
  var body = rows.map(function (cells) {
    return dom.el("tr", {}, cells.map(function (text) { return dom.el("td", { text: text }); }));
  });
  return dom.el("div", { "class": "scroll" }, [dom.el("h4", { text: title }),
    dom.el("table", { "class": "properties", id: id }, [dom.el("thead", {}, [head]), dom.el("tbody", {}, body)])]);
}

function massErrorChart(mass) {
  var points = mass.series.t.map(function (t, index) { return { x: t, y: mass.series.error_pct[index] }; });
  var figure = dom.el("figure", { "class": "chart-box", id: "run-health-mass-error" });
  figure.appendChild(chart.line(points, { title: "Cumulative mass error over time", units: "%",
    xLabel: "seconds from the start", guides: [-mass.healthy_line_pct, mass.healthy_line_pct] }));
  figure.appendChild(dom.el("figcaption", { text: "Cumulative mass error (% of the water that came in) over " +
    "time; the dashed lines are the ±" + dom.number(mass.healthy_line_pct, 1) + " % of a healthy model." }));
  return figure;
}

function logTail(run) {
  var lines = run.log_tail || [];
  return kit.section("Run log (last lines)", [dom.el("pre", { "class": "log", id: "run-log",
                                                              text: lines.length ? lines.join("\n") : "(empty)" })]);
}

