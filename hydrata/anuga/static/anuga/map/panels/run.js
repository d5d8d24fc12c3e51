(function (H) {
  "use strict";

  var dom = H.dom, kit = H.panelKit;
  var STATUS = H.contract.runStatus;
  var TERMINAL = H.contract.terminalRunStates;
  var POLL_MS = 2000;
  var SHOWN_FIRST = H.contract.firstShownLayer;
  var STATISTICS = [
    ["peak_depth_m", "Peak depth", "m"], ["peak_speed_m_s", "Peak speed", "m/s"], ["peak_stage_m", "Peak stage", "m"],
    ["wet_area_m2", "Wet area", "m²"], ["volume_in_m3", "Volume in", "m³"], ["volume_out_m3", "Volume out", "m³"],
    ["final_volume_m3", "Volume at the end", "m³"], ["sim_seconds", "Simulated", "s"],
    ["wall_seconds", "Computed in", "s"]
  ];

  function render(context) {
    var state = { alive: true, timer: null };
    var stop = function () { state.alive = false; clearTimeout(state.timer); };
    if (context.link.run) {
      load(context, context.link.run, state);
    } else {
      list(context, state);
    }
    return stop;
  }

  function list(context, state) {
    var path = H.api.project(context.project.id) + "runs/?page_size=25";
    H.api.get(path).then(function (answer) {
      if (!state.alive) { return; }
      if (!answer.ok) { context.setState(H.api.stateOf(answer), H.api.problem(answer, "The runs")); return; }
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
    H.api.get(H.api.run(runId)).then(function (answer) {
      if (!state.alive) { return; }
      if (!answer.ok) { context.setState(H.api.stateOf(answer), H.api.problem(answer, "This run")); return; }
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
    H.api.get(H.api.project(run.project) + "scenarios/" + run.scenario + "/").then(function (answer) {
      var boundary = answer.ok ? kit.rowById(context, answer.data.boundary) : null;
      if (boundary) { context.view.show("input-" + boundary.id, true); }
      kit.frame(context, [boundary && boundary.bbox_wgs84], "run:" + run.id);
    });
  }

  // Redraw the status while the run is in flight, polling the light status endpoint; then the results.
  function follow(context, run, live, results, state) {
    drawStatus(live, run);
    if (TERMINAL.indexOf(run.status) >= 0) {
      finished(context, run, results, state);
      return;
    }
    context.setState("ready", "");
    state.timer = setTimeout(function () {
      H.api.get(H.api.run(run.id) + "status/").then(function (answer) {
        if (!state.alive) { return; }
        if (!answer.ok) { context.setState(H.api.stateOf(answer), H.api.problem(answer, "This run")); return; }
        if (TERMINAL.indexOf(answer.data.status) >= 0) {
          H.api.get(H.api.run(run.id)).then(function (full) {
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
      ["Time left", TERMINAL.indexOf(run.status) >= 0 ? "" : run.eta_seconds === null ? "estimating…" :
        "about " + dom.duration(run.eta_seconds)],
      ["Cost", dom.money(run.compute_cost, run.currency)],
      ["Mesh", run.mesh_triangle_count ? dom.number(run.mesh_triangle_count, 0) + " triangles" : ""]
    ]));
    var bar = dom.el("progress", { id: "run-progress", max: "100", value: String(run.progress_pct || 0),
                                   "aria-label": "Progress" });
    live.appendChild(dom.el("div", { "class": "progress" }, [bar, dom.el("span", {
      text: dom.number(run.progress_pct || 0, 1) + " %" })]));
    if (run.status === STATUS.ERROR || run.status === STATUS.CANCELLED) {
      live.appendChild(dom.el("p", { "class": "error", role: "alert", text: run.user_message || run.error_message ||
                                                                            "The run " + run.status + "." }));
    }
  }

  function finished(context, run, results, state) {
    dom.clear(results);
    if (run.status !== STATUS.COMPLETE) {
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
    results.appendChild(logTail(run));
    H.api.get(H.api.run(run.id) + "tiles/").then(function (answer) {
      if (!state.alive) { return; }
      if (!answer.ok) { context.setState(H.api.stateOf(answer), H.api.problem(answer, "The run's results")); return; }
      dom.clear(layers);
      answer.data.results.forEach(function (tiled) { layers.appendChild(resultLayer(context, tiled)); });
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
    var box = dom.el("input", { type: "checkbox", id: "toggle-" + tiled.name, checked: shown ? "checked" : null,
                                disabled: tiled.empty ? "disabled" : null });
    box.addEventListener("change", function () { context.view.show(key, box.checked); });
    return dom.el("label", { "class": "switch", "for": "toggle-" + tiled.name }, [
      box, " " + tiled.title + " (" + tiled.units + ")" + (tiled.empty ? ": never wet" : "")
    ]);
  }

  function bandChart(bands) {
    var items = Object.keys(bands).map(function (label) { return { label: label, value: bands[label] }; });
    var figure = dom.el("figure", { "class": "chart-box", id: "depth-bands" });
    if (!items.length) { return kit.section("Flooded area", [dom.el("p", { text: "Nothing got wet." })]); }
    figure.appendChild(H.chart.bars(items, { title: "Flooded area per depth band", units: "m²",
                                             xLabel: "maximum depth band (m)" }));
    figure.appendChild(dom.el("figcaption", { text: "Flooded area (m²) per maximum-depth band (m)" }));
    return kit.section("Flooded area", [figure]);
  }

  function logTail(run) {
    var lines = run.log_tail || [];
    return kit.section("Run log (last lines)", [dom.el("pre", { "class": "log", id: "run-log",
                                                                text: lines.length ? lines.join("\n") : "(empty)" })]);
  }

  H.panels = H.panels || {};
  H.panels.run = { title: "Run", render: render };
})(window.Hydrata = window.Hydrata || {});
