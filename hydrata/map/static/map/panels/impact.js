// The impact map of one run against another, as compare_runs hands it back (#/map/<id>?panel=run&run=<A>&compare=<B>):
// B's maximum depth and stage minus A's (afflux) on a ramp centred on 0, red wetter and blue drier, with its legend;
// the figures compare_runs gives, and the change at each gauge both runs recorded.
import * as dom from "../../map_core/dom.js";
import * as api from "../api.js";
import * as kit from "./common.js";

var SHOWN_FIRST = "impact_depth";
var STATISTICS = [
  ["max_increase_m", "Largest rise in maximum depth", "m"], ["max_decrease_m", "Largest fall in maximum depth", "m"],
  ["max_stage_increase_m", "Largest rise in maximum stage", "m"],
  ["max_stage_decrease_m", "Largest fall in maximum stage", "m"],
  ["area_wetter_m2", "Area wetter", "m²"], ["area_drier_m2", "Area drier", "m²"],
  ["area_newly_wet_m2", "Area newly wet", "m²"], ["area_no_longer_wet_m2", "Area no longer wet", "m²"]
];

export function render(context, runId, otherId, state) {
  var path = api.run(runId) + "impact/" + otherId + "/";
  context.body.appendChild(dom.el("h2", { id: "impact-heading",
                                          text: "Impact of run #" + otherId + " against run #" + runId }));
  Promise.all([api.get(path), api.get(path + "tiles/")]).then(function (answers) {
    if (!state.alive) { return; }
    var failed = answers.filter(function (answer) { return !answer.ok; })[0];
    if (failed) {
      kit.frame(context, [], "impact");
      context.setState(api.stateOf(failed), api.problem(failed, "This comparison of two runs"));
      return;
    }
    draw(context, answers[0].data, answers[1].data, runId, otherId);
  });
}

function draw(context, impact, tiled, runId, otherId) {
  var statistics = impact.statistics;
  var threshold = dom.number(100 * (statistics.change_threshold_m || 0.01), 0);
  context.body.appendChild(dom.el("p", { "class": "hint", id: "impact-explained", text:
    "Afflux: run #" + otherId + "'s maximum minus run #" + runId + "'s, red where it is higher, blue where lower; " +
    "a change under " + threshold + " cm is no change and is not drawn." }));
  var layers = dom.el("div", { "class": "result-layers", id: "impact-layers" }, tiled.results.map(function (layer) {
    return impactLayer(context, layer);
  }));
  context.body.appendChild(kit.section("Impact layers", [layers]));
  context.body.appendChild(kit.section("Figures", [dom.facts(STATISTICS.map(function (row) {
    return [row[1], dom.withUnits(statistics[row[0]], row[2], 3)];
  }))]));
  if (impact.gauges.length) { context.body.appendChild(gaugeTable(impact.gauges)); }
  context.body.appendChild(kit.linkList([
    { href: context.linkTo("run", { run: runId }), text: "Run #" + runId + "'s own results" },
    { href: context.linkTo("run", { run: otherId }), text: "Run #" + otherId + "'s own results" }
  ]));
  api.get(api.project(impact.project) + "scenarios/" + impact.scenario + "/").then(function (answer) {
    var boundary = answer.ok ? kit.rowById(context, answer.data.boundary) : null;
    if (boundary) { context.view.show("input-" + boundary.id, true); }
    kit.frame(context, [boundary && boundary.bbox_wgs84], "impact:" + runId + ":" + otherId);
    context.setState("ready", "");
  });
}

function impactLayer(context, tiled) {
  var key = "impact-" + tiled.name;
  if (!tiled.empty) {
    context.view.addTiles(key, tiled, context.base.terrain && context.base.terrain.bbox_wgs84,
                          { opacity: 0.85, zIndex: 5, visible: tiled.name === SHOWN_FIRST });
  }
  var box = dom.el("input", { type: "checkbox", id: "toggle-" + tiled.name, disabled: tiled.empty ? "disabled" : null });
  context.view.bindSwitch(key, box);
  return dom.el("label", { "class": "switch", "for": "toggle-" + tiled.name }, [
    box, " " + tiled.title + " (" + tiled.units + ")" + (tiled.empty ? ": nowhere to compare" : "")
  ]);
}

function gaugeTable(gauges) {
  var metres = function (value) { return value === null ? "—" : dom.number(value, 3); };
  var head = dom.el("tr", {}, ["Gauge", "Peak (m)", "Other (m)", "Change (m)", "Change"].map(function (text) {
    return dom.el("th", { text: text });
  }));
  var rows = gauges.map(function (gauge) {
    return dom.el("tr", {}, [gauge.name, metres(gauge.run_peak_depth_m), metres(gauge.other_peak_depth_m),
                             metres(gauge.change_m),
                             gauge.change_pct === null ? "—" : dom.number(gauge.change_pct, 1) + " %"]
      .map(function (text) { return dom.el("td", { text: text }); }));
  });
  return kit.section("At the gauges", [dom.el("div", { "class": "scroll" }, [
    dom.el("table", { "class": "properties", id: "impact-gauges" }, [dom.el("thead", {}, [head]),
                                                                     dom.el("tbody", {}, rows)])])]);
}
