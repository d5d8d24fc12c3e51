import * as dom from "../../map_core/dom.js";
import * as api from "../api.js";
import * as chart from "../chart.js";
import * as kit from "./common.js";

var DRIVEN_KINDS = ["rainfall", "inflow"];
// Rain in mm per interval holds over the interval ending at each row; every other unit is linear between rows
// (hydrata/compute/series_units.py, where the model turns a series into the rate it applies).
var PER_INTERVAL = "mm/interval";

export const title = "Hydrology";

export function render(context) {
  var base = api.project(context.project.id) + "time-series/";
  var alive = true;
  api.get(base).then(function (answer) {
    if (!alive) { return; }
    if (!answer.ok) { context.setState(api.stateOf(answer), api.problem(answer, "The time series")); return; }
    var series = answer.data.results;
    var driven = context.base.rows.filter(function (row) { return DRIVEN_KINDS.indexOf(row.kind) >= 0; });
    kit.showRows(context, driven);
    context.body.appendChild(dom.el("h2", { text: "Hydrology" }));
    if (!series.length) {
      kit.frame(context, driven.map(function (row) { return row.bbox_wgs84; }), "hydrology");
      context.setState("empty", "This project has no time series yet. Rain and inflow are constant numbers on " +
                       "their features, or name a series the agent creates with create_time_series.");
      return;
    }
    var wanted = context.link.layer;
    var chosen = wanted ? series.filter(function (s) { return s.id === wanted; })[0] : series[0];
    if (!chosen) {
      context.setState("not-found", "Time series " + wanted + " does not exist in this project, or you cannot " +
                       "see it.");
      return;
    }
    kit.frame(context, driven.map(function (row) { return row.bbox_wgs84; }), "hydrology:" + chosen.id);
    showSeries(context, base, chosen, series, function () { return alive; });
  });
  return function () { alive = false; };
}

function showSeries(context, base, chosen, series, alive) {
  api.get(base + chosen.id + "/").then(function (answer) {
    if (!alive()) { return; }
    if (!answer.ok) { context.setState(api.stateOf(answer), api.problem(answer, "This time series")); return; }
    var detail = answer.data;
    var rows = detail.data.rowData;
    context.body.appendChild(dom.el("h3", { text: detail.name }));
    context.body.appendChild(dom.facts([
      ["Type", detail.series_type], ["Units", detail.units], ["Rows", String(detail.row_count)],
      ["From", dom.when(detail.first_timestamp)], ["To", dom.when(detail.last_timestamp)],
      ["Location", detail.location_name], ["Source", detail.source]
    ]));
    var figure = dom.el("figure", { "class": "chart-box", "data-series": detail.id });
    figure.appendChild(chart.timeSeries(rows, { title: detail.name + " (" + detail.units + ")",
                                                 units: detail.units, ending: detail.units === PER_INTERVAL,
                                                 area: detail.series_type === "hyetograph" }));
    figure.appendChild(dom.el("figcaption", { text: (detail.series_type === "hyetograph" ? "Hyetograph" :
      detail.series_type === "hydrograph" ? "Hydrograph" : "Series") + " in " + detail.units }));
    context.body.appendChild(figure);
    var others = series.filter(function (s) { return s.id !== detail.id; }).map(function (s) {
      return { href: context.linkTo("hydrology", { layer: s.id }), text: s.name, meta: s.series_type + ", " +
               s.units };
    });
    if (others.length) { context.body.appendChild(kit.section("Other series", [kit.linkList(others)])); }
    context.setState("ready", "");
  });
}

