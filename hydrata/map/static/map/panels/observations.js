// A flood event's observations on the map (#/map/<id>?panel=observations&event=<id>[&run=<id>]): each point
// labelled with what was observed and, where the run named was compared with the event, what it modelled there.
import * as dom from "../../map_core/dom.js";
import * as api from "../api.js";
import * as kit from "./common.js";
import * as observed from "./observed.js";

export const title = "Observations";

export function render(context) {
  var state = { alive: true };
  if (context.link.event) {
    show(context, context.link.event, state);
  } else {
    observed.listEvents(context, state, "observations");
  }
  return function () { state.alive = false; };
}

function show(context, eventId, state) {
  var path = observed.eventPath(context, eventId);
  Promise.all([api.get(path), api.get(path + "comparisons/")]).then(function (answers) {
    if (!state.alive) { return null; }
    if (!answers[0].ok) { context.setState(api.stateOf(answers[0]), api.problem(answers[0], "This flood event")); return null; }
    var ranked = answers[1].ok ? answers[1].data.results : [];
    var mine = ranked.filter(function (entry) { return entry.run === context.link.run; })[0] || null;
    var comparison = mine ? api.get(observed.comparisonPath(mine.comparison)) : Promise.resolve(null);
    return comparison.then(function (compared) {
      if (!state.alive) { return null; }
      var detail = compared && compared.ok ? compared.data : null;
      if (detail) { observed.showRunResult(context, detail.run); }
      return observed.drawPoints(context, eventId, detail).then(function (points) {
        if (state.alive) { draw(context, answers[0].data, ranked, detail, points); }
      });
    });
  });
}

function draw(context, event, ranked, comparison, points) {
  context.body.appendChild(dom.el("h2", { text: "Observations: " + event.name }));
  context.body.appendChild(dom.facts([
    ["Started", dom.when(event.started_at)], ["Ended", dom.when(event.ended_at)],
    ["Observations", String(event.observation_count)], ["Description", event.description]
  ]));
  context.body.appendChild(runSection(context, event, ranked, comparison));
  if (!points.ok) { context.setState(api.stateOf(points), api.problem(points, "The event's points")); return; }
  if (!points.data.features.length) {
    context.setState("empty", "This event has no observations yet. Ask your agent to add them (create_observation, " +
                     "or import_observations for a file of points).");
    return;
  }
  context.body.appendChild(observed.legendHint());
  context.body.appendChild(kit.section("Points", [observed.pointsTable(points.data.features, comparison)]));
  context.setState("ready", "");
}

// Which run the points are labelled with, and the runs that could label them.
function runSection(context, event, ranked, comparison) {
  var children = [];
  var run = context.link.run;
  if (comparison) {
    children.push(dom.el("p", { id: "observations-run", text: "Labelled with run #" + comparison.run + " of " +
      comparison.scenario_name + ": observed against modelled at each point." }));
    children.push(observed.metricsFacts(comparison.metrics));
    children.push(kit.linkList([{ href: context.linkTo("comparison", { comparison: comparison.id, event: event.id }),
                                  text: "This comparison, with the ranking of runs" }]));
  } else if (run) {
    children.push(dom.el("p", { id: "observations-run", "class": "hint", text: "Run #" + run + " has not been " +
      "compared with this event yet, so only what was observed is shown. Ask your agent to compare them " +
      "(compare_run_with_observations)." }));
  }
  var others = ranked.filter(function (entry) { return entry.run !== run; });
  if (others.length) {
    children.push(dom.el("p", { "class": "hint", text: comparison || run ? "Other runs compared with this event:" :
      "Label the points with a run compared with this event:" }));
    children.push(kit.linkList(others.map(function (entry) {
      return { href: context.linkTo("observations", { run: entry.run, event: event.id, comparison: null }),
               text: "Run #" + entry.run + " of " + entry.scenario_name,
               meta: "RMSE " + dom.withUnits(entry.metrics.rmse, "m", 3) };
    })));
  } else if (!comparison) {
    children.push(dom.el("p", { "class": "hint", text: "No run has been compared with this event yet " +
      "(compare_run_with_observations)." }));
  }
  return kit.section("Compared with a run", children);
}
