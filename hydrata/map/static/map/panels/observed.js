// What the Observations and Comparison panels share: a project's flood events, an event's points on the map
// labelled observed against modelled, the table of those points, and a comparison's figures.
import { contract } from "../../map_core/contract.js";
import * as dom from "../../map_core/dom.js";
import { pointColour, pointLabel } from "../../map_core/styles.js";
import * as api from "../api.js";
import * as kit from "./common.js";

export const METRICS = [
  ["n", "Compared", "points on the model", 0], ["bias", "Bias (modelled − observed)", "m", 3],
  ["mae", "Mean absolute error (MAE)", "m", 3], ["rmse", "Root mean square error (RMSE)", "m", 3],
  ["max_abs_error", "Largest error", "m", 3], ["within_tolerance", "Within tolerance", "points", 0],
  ["dry", "Never wetted by the model", "points", 0], ["outside_model", "Off the model", "points", 0]
];

export function eventPath(context, eventId) {
  return api.project(context.project.id) + "events/" + eventId + "/";
}

export function comparisonPath(comparisonId) {
  return "/api/v2/anuga/comparisons/" + comparisonId + "/";
}

// The project's flood events as links to `panel`, or the state that says there are none.
export function listEvents(context, state, panel) {
  api.get(api.project(context.project.id) + "events/").then(function (answer) {
    if (!state.alive) { return; }
    if (!answer.ok) { context.setState(api.stateOf(answer), api.problem(answer, "The flood events")); return; }
    var events = answer.data.results;
    context.body.appendChild(dom.el("h2", { text: "Flood events" }));
    kit.frame(context, [], panel);
    if (!events.length) {
      context.setState("empty", "This project has no flood events yet. Ask your agent to record one " +
                       "(create_flood_event), then its observations (create_observation or import_observations).");
      return;
    }
    context.body.appendChild(dom.el("p", { "class": "hint", text: "Choose a flood event:" }));
    context.body.appendChild(kit.linkList(events.map(function (event) {
      return { href: context.linkTo(panel, { event: event.id, comparison: null }), text: event.name,
               meta: event.observation_count + " observation(s), from " + dom.when(event.started_at) };
    })));
    context.setState("ready", "");
  });
}

// The event's points on the map, each labelled with what was observed and, from `comparison` (or null), what the
// run modelled there. Resolves to the points' GeoJSON.
export function drawPoints(context, eventId, comparison) {
  return api.get(eventPath(context, eventId) + "points/").then(function (answer) {
    if (!answer.ok) { return answer; }
    var compared = comparedById(comparison);
    context.view.addPoints("observations", "Observations", answer.data, function (feature) {
      var point = compared[feature.properties.observation_id] || null;
      var error = point ? point.error : null;
      return { text: pointLabel(feature.properties.value_m, point), colour: pointColour(error),
               radius: error === null ? 5 : 5 + Math.min(8, Math.abs(error) * 10) };
    });
    // The whole model with the points on it, not the points alone: where they lie is half of what they say.
    var terrain = context.base.terrain;
    kit.frame(context, [answer.data.bbox_wgs84, terrain && terrain.bbox_wgs84], "observations:" + eventId);
    return answer;
  });
}

// The run's first result layer (its maximum depth) under the points it was compared at.
export function showRunResult(context, runId) {
  return api.get(api.run(runId) + "tiles/").then(function (answer) {
    if (!answer.ok) { return; }
    var first = answer.data.results.filter(function (tiled) {
      return tiled.name === contract.firstShownLayer && !tiled.empty;
    })[0];
    if (first) {
      context.view.addTiles("result-" + first.name, first, context.base.terrain && context.base.terrain.bbox_wgs84,
                            { opacity: 0.85, zIndex: 5, visible: true });
    }
  });
}

function comparedById(comparison) {
  var byId = {};
  (comparison ? comparison.points : []).forEach(function (point) { byId[point.observation_id] = point; });
  return byId;
}

// One row per observation: observed (± its tolerance), and modelled and its error where the run was compared.
export function pointsTable(features, comparison) {
  var compared = comparedById(comparison);
  var headings = ["#", "Quantity", "Observed (m)", "± (m)", "Modelled (m)", "Error (m)", "Within ±"];
  var rows = features.map(function (feature) {
    var p = feature.properties, point = compared[p.observation_id];
    return [p.observation_id, p.quantity.replace("_", " "), dom.number(p.value_m, 3), dom.number(p.tolerance_m, 3),
            point ? modelled(point) : "", point ? dom.number(point.error, 3) : "",
            point && point.within_tolerance !== null ? (point.within_tolerance ? "yes" : "no") : ""];
  });
  var head = dom.el("tr", {}, headings.map(function (text) { return dom.el("th", { text: text }); }));
  var body = rows.map(function (cells) {
    return dom.el("tr", {}, cells.map(function (text) { return dom.el("td", { text: dom.blank(text) ? "—" : text }); }));
  });
  return dom.el("div", { "class": "scroll" }, [dom.el("table", { "class": "properties", id: "observation-points" },
    [dom.el("thead", {}, [head]), dom.el("tbody", {}, body)])]);
}

function modelled(point) {
  if (!point.in_model) { return "off the model"; }
  return dom.number(point.modelled, 3) + (point.wet === false ? " (dry)" : "");
}

// A comparison's figures, as compare_run_with_observations gives them.
export function metricsFacts(metrics) {
  return dom.facts(METRICS.map(function (row) {
    var value = metrics[row[0]];
    var shown = dom.blank(value) ? "" : dom.number(value, row[3]) + " " + row[2];
    if (row[0] === "within_tolerance" && metrics.within_tolerance_share !== null) {
      shown += " (" + dom.number(100 * metrics.within_tolerance_share, 1) + " %)";
    }
    return [row[1], shown];
  }));
}

export function legendHint() {
  return dom.el("p", { "class": "hint", text: "On the map: red where the model is high, blue where it is low, grey " +
    "where nothing was compared; the larger the circle, the larger the error." });
}
