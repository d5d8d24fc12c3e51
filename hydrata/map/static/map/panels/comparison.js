// A run compared with a flood event's observations (#/map/<id>?panel=comparison&comparison=<id>&run=&event=): its
// figures as compare_run_with_observations gives them, its points on the map, and every run compared with the same
// event ranked as rank_runs_against_observations ranks them. With only an event, its best-ranked comparison.
import * as dom from "../../map_core/dom.js";
import * as api from "../api.js";
import * as kit from "./common.js";
import * as observed from "./observed.js";

export const title = "Comparison";

export function render(context) {
  var state = { alive: true };
  var link = context.link;
  if (link.comparison) {
    show(context, api.get(observed.comparisonPath(link.comparison)), state);
  } else if (link.event) {
    show(context, best(context, link.event), state);
  } else {
    observed.listEvents(context, state, "comparison");
  }
  return function () { state.alive = false; };
}

// The event's best-ranked comparison, as an answer (a 404 with a sentence when no run was compared with it).
function best(context, eventId) {
  return api.get(observed.eventPath(context, eventId) + "comparisons/").then(function (answer) {
    if (!answer.ok) { return answer; }
    var first = answer.data.results[0];
    if (!first) {
      return { ok: false, status: 409, data: { detail: "No run has been compared with '" + answer.data.event_name +
        "' yet. Ask your agent to compare one (compare_run_with_observations)." } };
    }
    return api.get(observed.comparisonPath(first.comparison));
  });
}

function show(context, answered, state) {
  answered.then(function (answer) {
    if (!state.alive) { return null; }
    if (!answer.ok) {
      context.body.appendChild(dom.el("h2", { text: "Comparison" }));
      kit.frame(context, [], "comparison");
      context.setState(answer.status === 409 ? "empty" : api.stateOf(answer), api.problem(answer, "This comparison"));
      return null;
    }
    var comparison = answer.data;
    observed.showRunResult(context, comparison.run);
    var ranking = api.get(observed.eventPath(context, comparison.event) + "comparisons/");
    return Promise.all([ranking, observed.drawPoints(context, comparison.event, comparison)]).then(function (both) {
      if (state.alive) { draw(context, comparison, both[0], both[1]); }
    });
  });
}

function draw(context, comparison, ranking, points) {
  context.body.appendChild(dom.el("h2", { text: "Run #" + comparison.run + " of " + comparison.scenario_name +
                                              " against " + comparison.event_name }));
  if (comparison.is_stale) {
    context.body.appendChild(dom.el("p", { "class": "error", role: "alert", id: "comparison-stale",
      text: "The event's observations changed after this comparison was computed: ask your agent to recompute it " +
            "(recompute_comparison)." }));
  }
  var statistics = dom.el("div", { id: "comparison-statistics" }, [observed.metricsFacts(comparison.metrics),
    dom.facts([["Method", comparison.method], ["Computed", dom.when(comparison.computed_at)]])]);
  context.body.appendChild(kit.section("Statistics", [statistics]));
  context.body.appendChild(rankingSection(context, comparison, ranking));
  context.body.appendChild(observed.legendHint());
  if (points.ok) {
    context.body.appendChild(kit.section("Points", [observed.pointsTable(points.data.features, comparison)]));
  }
  context.body.appendChild(kit.linkList([
    { href: context.linkTo("observations", { event: comparison.event, run: comparison.run, comparison: null }),
      text: "The event's observations" },
    { href: context.linkTo("run", { run: comparison.run, scenario: comparison.scenario, comparison: null,
                                    event: null }), text: "Run #" + comparison.run + " and its results" }
  ]));
  context.setState(points.ok ? "ready" : api.stateOf(points), points.ok ? "" :
                   api.problem(points, "The event's points"));
}

// Every run compared with the event, best first; the one shown is marked.
function rankingSection(context, comparison, ranking) {
  if (!ranking.ok) {
    return kit.section("Ranking of runs", [dom.el("p", { "class": "error", text: api.problem(ranking, "The ranking") })]);
  }
  var headings = ["Rank", "Run", "Scenario", "RMSE (m)", "MAE (m)", "Bias (m)", "Within tolerance"];
  var head = dom.el("tr", {}, headings.map(function (text) { return dom.el("th", { text: text }); }));
  var rows = ranking.data.results.map(function (entry) {
    var metrics = entry.metrics;
    var run = dom.el("a", { href: context.linkTo("comparison", { comparison: entry.comparison, run: entry.run,
                                                                 event: comparison.event }),
                            text: "#" + entry.run });
    var cells = [String(entry.rank), run, entry.scenario_name, dom.number(metrics.rmse, 3), dom.number(metrics.mae, 3),
                 dom.number(metrics.bias, 3), metrics.within_tolerance + " of " + metrics.n];
    var current = entry.comparison === comparison.id;
    return dom.el("tr", { "class": current ? "current" : null, "aria-current": current ? "true" : null },
      cells.map(function (cell) {
        return dom.el("td", {}, [typeof cell === "string" ? (cell === "" ? "—" : cell) : cell]);
      }));
  });
  var table = dom.el("table", { "class": "properties", id: "comparison-ranking" },
                     [dom.el("thead", {}, [head]), dom.el("tbody", {}, rows)]);
  return kit.section("Ranking of runs", [dom.el("p", { "class": "hint", text: "Every run compared with '" +
    comparison.event_name + "', best first: lowest RMSE, ties by MAE." }), dom.el("div", { "class": "scroll" }, [table])]);
}
