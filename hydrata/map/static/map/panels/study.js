// A design study (#/map/<id>?panel=study&study=<id>): its state, progress and ETA while its members compute, its
// estimate and price, the engineer's sign-off; once complete, an AEP's envelope layers (peak depth, hazard, critical
// duration...) on the map, and the ARR box plot of the patterns' peaks per duration at a gauge or flow line, with
// the same numbers in a table beside it. Without a study, the project's studies.
import { contract } from "../../map_core/contract.js";
import * as dom from "../../map_core/dom.js";
import * as api from "../api.js";
import * as chart from "../chart.js";
import * as kit from "./common.js";

var POLL_MS = 2000;
var WRITE_ROLES = ["owner", "editor"];
var QUANTITIES = contract.ensembleQuantities;

export const title = "Study";

export function render(context) {
  var state = { alive: true, timer: null };
  if (context.link.study) {
    load(context, studyPath(context, context.link.study), state);
  } else {
    list(context, state);
  }
  return function () { state.alive = false; clearTimeout(state.timer); };
}

function studyPath(context, studyId) {
  return api.project(context.project.id) + "design-studies/" + studyId + "/";
}

function isFinished(status) {
  return contract.finishedStudyStates.indexOf(status) >= 0;
}

function list(context, state) {
  api.get(api.project(context.project.id) + "design-studies/").then(function (answer) {
    if (!state.alive) { return; }
    if (!answer.ok) { context.setState(api.stateOf(answer), api.problem(answer, "The design studies")); return; }
    context.body.appendChild(dom.el("h2", { text: "Design studies" }));
    kit.frame(context, [], "studies");
    if (!answer.data.results.length) {
      context.setState("empty", "This project has no design studies yet. Ask your agent to make one " +
                       "(create_design_study).");
      return;
    }
    context.body.appendChild(kit.linkList(answer.data.results.map(function (study) {
      return { href: context.linkTo("study", { study: study.id, scenario: study.base_scenario, run: null }),
               text: study.name, meta: study.progress.members_total + " members, " + study.status };
    })));
    context.setState("ready", "");
  });
}

function load(context, path, state) {
  api.get(path).then(function (answer) {
    if (!state.alive) { return; }
    if (!answer.ok) { context.setState(api.stateOf(answer), api.problem(answer, "This design study")); return; }
    var study = answer.data;
    var parts = { live: dom.el("div", { id: "study-live" }), results: dom.el("div", { id: "study-results" }) };
    context.body.appendChild(dom.el("h2", { text: "Design study: " + study.name }));
    context.body.appendChild(parts.live);
    if (!study.reduced) {  // a public reader is told no price and no sign-off
      context.body.appendChild(estimate(study));
      context.body.appendChild(signOff(context, path, study, state));
    }
    context.body.appendChild(parts.results);
    frameOnBase(context, study);
    follow(context, path, study, parts, state);
  });
}

function frameOnBase(context, study) {
  api.get(api.project(context.project.id) + "scenarios/" + study.base_scenario + "/").then(function (answer) {
    var boundary = answer.ok ? kit.rowById(context, answer.data.boundary) : null;
    if (boundary) { context.view.show("input-" + boundary.id, true); }
    kit.frame(context, [boundary && boundary.bbox_wgs84], "study:" + study.id);
  });
}

// Redraw the state and progress while members compute (the study's own answer, every POLL_MS); then its results.
function follow(context, path, study, parts, state) {
  drawLive(parts.live, study);
  if (isFinished(study.status)) {
    finished(context, path, study, parts.results, state);
    return;
  }
  context.setState("ready", "");
  state.timer = setTimeout(function () {
    api.get(path).then(function (answer) {
      if (!state.alive) { return; }
      if (!answer.ok) { context.setState(api.stateOf(answer), api.problem(answer, "This design study")); return; }
      follow(context, path, answer.data, parts, state);
    });
  }, POLL_MS);
}

function drawLive(live, study) {
  var progress = study.progress;
  dom.clear(live);
  live.dataset.status = study.status;
  live.appendChild(dom.facts([
    ["Status", study.status.replace(/_/g, " ") + (study.status_message ? ": " + study.status_message : "")],
    ["Members ended", progress.members_done + " of " + progress.members_total + " (" + progress.members_complete +
      " complete, " + progress.members_failed + " in error, " + progress.members_cancelled + " cancelled)"],
    ["Time left", isFinished(study.status) || study.status === contract.studyStatus.DRAFT ? "" :
      progress.eta_seconds === null ? "estimating…" : "about " + dom.duration(progress.eta_seconds)],
    ["AEPs", study.aeps.join(", ")],
    ["Durations", study.durations_min.map(function (minutes) { return minutes + " min"; }).join(", ")],
    ["Central value", study.central_statistic + " of each duration's patterns"],
    ["Started", dom.when(study.started_at)], ["Finished", dom.when(study.finished_at)]
  ]));
  var bar = dom.el("progress", { id: "study-progress", max: "100", value: String(progress.progress_pct || 0),
                                 "aria-label": "Members done" });
  live.appendChild(dom.el("div", { "class": "progress" }, [bar, dom.el("span", {
    text: progress.members_done + " / " + progress.members_total + " members · " +
          dom.number(progress.progress_pct || 0, 1) + " %" })]));
}

function estimate(study) {
  var priced = study.estimate;
  return kit.section("Estimate", [dom.facts([
    ["Members", dom.number(priced.members, 0) + " (AEPs x durations x patterns)"],
    ["Mesh", dom.number(priced.mesh_triangle_count_estimate, 0) + " triangles (estimate)"],
    ["Triangle-steps", dom.number(priced.triangle_steps, 0)],
    ["Compute", dom.number(priced.vcpu_hours_estimate, 4) + " vCPU-hours"],
    ["Price", dom.money(priced.compute_cost_estimate) + " (estimate)"],
    ["Charged", study.compute_cost === null ? "nothing yet" : dom.money(study.compute_cost)]
  ])]);
}

// The sign-off, as the Scenario panel's. A draft: who signed it off as it is now, what is signed (its fingerprint
// over every member's storm and the base scenario, and its estimate), and the button for the project's owners and
// editors. A started study: the sign-off it ran under (or that it ran without one, and whether one was asked),
// and what changed since. The site's session only: agents are refused by the platform.
function signOff(context, path, study, state) {
  var approval = study.approval;
  var draft = study.status === contract.studyStatus.DRAFT;
  var box = dom.el("section", { "class": "panel-section sign-off", id: "study-sign-off",
                                "data-approved": String(approval.approved_by_you) }, [
    dom.el("h3", { text: "Sign-off" })
  ]);
  (draft ? asItIsNow(approval) : asItRan(approval)).forEach(function (line) { box.appendChild(line); });
  box.appendChild(dom.facts([
    ["Members", dom.number(study.estimate.members, 0) + " storms"],
    ["Price", dom.money(study.estimate.compute_cost_estimate) + " (estimate)"]
  ]));
  box.appendChild(dom.el("p", { "class": "fingerprint" }, [
    (draft || !approval.started_fingerprint ? "Fingerprint" : "Fingerprint it ran with") +
      " (every member's storm and the base scenario): ",
    dom.el("code", { id: "study-fingerprint", text: approval.started_fingerprint || approval.fingerprint })
  ]));
  if (!draft) { return box; }
  if (WRITE_ROLES.indexOf(context.project.role) < 0) {
    box.appendChild(dom.el("p", { "class": "hint", text: "Only the project's owners and editors can sign it off." }));
    return box;
  }
  if (approval.approved_by_you) { return box; }
  var button = dom.el("button", { type: "button", id: "study-approve", text: "Sign the study off for its runs" });
  var message = dom.el("p", { "class": "error", role: "alert", hidden: "hidden" });
  button.addEventListener("click", function () {
    button.disabled = true;
    api.post(path + "approve/").then(function (answer) {
      if (!state.alive) { return; }
      if (!answer.ok) {
        button.disabled = false;
        message.textContent = api.problem(answer, "This design study");
        message.hidden = false;
        return;
      }
      study.approval = answer.data;
      box.replaceWith(signOff(context, path, study, state));
    });
  });
  box.appendChild(dom.el("p", { "class": "hint", text: "Signing off lets your agents start this study's " +
    dom.number(study.estimate.members, 0) + " runs as they are now; any change to a storm or the base scenario " +
    "needs a new sign-off." }));
  box.appendChild(button);
  box.appendChild(message);
  return box;
}

function asItIsNow(approval) {
  var lines = approval.approvals.map(function (entry) {
    return dom.el("p", { "class": "approved", text: "Signed off for its runs by " + entry.by + " on " +
                                                    dom.when(entry.at) + "." });
  });
  if (!approval.approved) { lines.push(dom.el("p", { text: "Not signed off as it is now." })); }
  return lines;
}

// What a started study ran under: an auditor reads this, not whether it is signed off as it is now.
function asItRan(approval) {
  var lines = approval.started_approvals.map(function (entry) {
    return dom.el("p", { "class": "approved", text: "Ran as signed off by " + entry.by + " on " +
                                                    dom.when(entry.at) + "." });
  });
  if (!approval.started_fingerprint) {
    lines.push(dom.el("p", { text: "Started before the sign-off it ran under was recorded." }));
    return lines;
  }
  if (!lines.length) {
    lines.push(dom.el("p", { text: approval.sign_off_required_at_start === false
      ? "Ran without a sign-off (none was required)." : "Ran without a sign-off." }));
  }
  if (approval.changed_since_start) {
    lines.push(dom.el("p", { "class": "changed", id: "study-changed",
                             text: "Changed since it ran: " +
                               kit.changedParts(approval.changes_since_start, "the study or its base scenario") + "." }));
  }
  return lines;
}

function finished(context, path, study, results, state) {
  dom.clear(results);
  if (study.status !== contract.studyStatus.COMPLETE || !study.results) {
    context.setState("ready", "");
    return;
  }
  results.appendChild(leftOut(study.results.members_left_out));
  api.get(path + "tiles/").then(function (answer) {
    if (!state.alive) { return; }
    if (!answer.ok) { context.setState(api.stateOf(answer), api.problem(answer, "The study's envelopes")); return; }
    var choice = dom.el("select", { id: "study-aep", "aria-label": "AEP" }, answer.data.aeps.map(function (aep) {
      return dom.el("option", { value: aep.aep, text: aep.aep + " AEP" });
    }));
    var layers = dom.el("div", { "class": "result-layers", id: "study-layers" });
    var plot = dom.el("div", { id: "study-ensemble" });
    results.appendChild(kit.section("Envelopes", [dom.el("label", { "for": "study-aep", text: "AEP " }), choice,
                                                  layers]));
    results.appendChild(plot);
    var show = function (keep) {
      var tiled = answer.data.aeps.filter(function (aep) { return aep.aep === choice.value; })[0];
      var tables = study.results.aeps.filter(function (aep) { return aep.aep === choice.value; })[0];
      drawLayers(context, tiled, layers, keep);
      drawEnsemble(plot, tables, study.results.central_statistic);
      results.dataset.aep = choice.value;
    };
    choice.addEventListener("change", function () { show(true); });
    show(false);
    context.setState("ready", "");
  });
}

function leftOut(members) {
  if (!members.length) { return dom.el("p", { "class": "hint", text: "Every member completed." }); }
  return dom.el("div", { "class": "panel-notice error", role: "alert", id: "study-left-out" }, [
    dom.el("p", { text: members.length + " members did not complete and are left out of the envelopes:" }),
    dom.el("ul", {}, members.map(function (member) {
      return dom.el("li", { text: member.aep + ", " + member.duration_min + " min, pattern " + member.pattern +
                                  ": " + member.status + (member.reason ? " (" + member.reason + ")" : "") });
    }))
  ]);
}

// The AEP's tiled layers: the first-shown result (peak depth) on, the others a switch away; an AEP chosen after
// another (`keep`) keeps which layers were on.
function drawLayers(context, tiled, box, keep) {
  dom.clear(box);
  var bbox = context.base.terrain && context.base.terrain.bbox_wgs84;
  tiled.layers.forEach(function (layer) {
    var key = "study-" + layer.name;
    var visible = keep && context.view.layers[key] ? context.view.isShown(key)
      : layer.name === contract.firstShownLayer;
    if (layer.empty) {
      context.view.remove(key);
    } else {
      context.view.addTiles(key, layer, bbox, { opacity: 0.85, zIndex: 5, visible: visible });
    }
    var input = dom.el("input", { type: "checkbox", id: "study-toggle-" + layer.name,
                                  disabled: layer.empty ? "disabled" : null });
    context.view.bindSwitch(key, input);
    box.appendChild(dom.el("label", { "class": "switch", "for": "study-toggle-" + layer.name }, [
      input, " " + layer.title + " (" + layer.units + ")" + (layer.empty ? ": never wet" : "")
    ]));
  });
}

// The ARR box plot: at one gauge or flow line, each duration's pattern peaks as a box, the critical duration
// highlighted; a table of the same numbers beside it.
function drawEnsemble(plot, tables, statistic) {
  dom.clear(plot);
  var series = tables ? tables.gauges.concat(tables.flow_lines) : [];
  if (!series.length) {
    plot.appendChild(kit.section("Peaks per duration", [dom.el("p", { "class": "hint", text: "This model has no " +
      "gauges or flow lines, so there is no ensemble to plot. Add gauge points or flow lines to the base scenario's " +
      "project before making a study." })]));
    return;
  }
  var choice = dom.el("select", { id: "study-series", "aria-label": "Gauge or flow line" }, series.map(
    function (table, index) {
      return dom.el("option", { value: String(index), text: QUANTITIES[table.quantity].site + " " + table.name });
    }));
  var figure = dom.el("div", { id: "study-box-plot" });
  plot.appendChild(kit.section("Peaks per duration", [dom.el("label", { "for": "study-series",
                                                                        text: "At " }), choice, figure]));
  var show = function () { drawBoxes(figure, series[Number(choice.value)], statistic); };
  choice.addEventListener("change", show);
  show();
}

function drawBoxes(figure, table, statistic) {
  dom.clear(figure);
  var quantity = QUANTITIES[table.quantity];
  var units = quantity.units;
  var rows = table.durations.map(function (row) {
    var spread = quartiles(row.peaks);
    return { row: row, spread: spread, critical: row.duration_min === table.critical_duration_min };
  });
  var drawn = rows.filter(function (item) { return item.spread; });
  var box = dom.el("figure", { "class": "chart-box", id: "study-boxes", "data-series": table.name,
                               "data-critical": String(table.critical_duration_min) });
  box.appendChild(chart.boxes(drawn.map(function (item) {
    var s = item.spread;
    return { label: item.row.duration_min + " min", min: s.min, q1: s.q1, median: s.median, q3: s.q3, max: s.max,
             central: item.row.central, highlight: item.critical,
             title: item.row.duration_min + " min: " + dom.number(s.min, 3) + " to " + dom.number(s.max, 3) + " " +
                    units + ", " + statistic + " " + dom.number(item.row.central, 3),
             data: { duration: item.row.duration_min, min: s.min, q1: s.q1, median: s.median, q3: s.q3, max: s.max,
                     central: item.row.central === null ? "" : item.row.central, critical: item.critical } };
  }), { title: quantity.title + " at " + table.name + " per duration",
        units: units, xLabel: "storm duration" }));
  box.appendChild(dom.el("figcaption", { text: "Each box: the patterns' peaks of one duration (whiskers the " +
    "lowest and highest, the box the quartiles, the line the median, the dot the " + statistic + "). Highlighted: " +
    "the critical duration" + (table.critical_duration_min === null ? " (none: dry throughout)" :
    ", " + table.critical_duration_min + " min, design value " + dom.withUnits(table.design_value, units, 3) +
    ", representative pattern " + table.pattern) + "." }));
  figure.appendChild(box);
  figure.appendChild(peaksTable(rows, units, statistic));
}

function peaksTable(rows, units, statistic) {
  var head = dom.el("tr", {}, ["Duration", "Pattern peaks (" + units + ")", "Min", "Lower quartile", "Median",
                               "Upper quartile", "Max", statistic.charAt(0).toUpperCase() + statistic.slice(1)]
    .map(function (text) { return dom.el("th", { text: text }); }));
  var body = rows.map(function (item) {
    var s = item.spread || {};
    var peaks = item.row.patterns.map(function (pattern, index) {
      return "#" + pattern + ": " + (item.row.peaks[index] === null ? "—" : dom.number(item.row.peaks[index], 4));
    }).join(", ");
    var cells = [item.row.duration_min + " min", peaks, s.min, s.q1, s.median, s.q3, s.max, item.row.central];
    return dom.el("tr", { "class": item.critical ? "current" : null, "data-duration": item.row.duration_min,
                          "data-peaks": JSON.stringify(item.row.peaks) }, cells.map(function (cell, index) {
      return dom.el("td", { text: index < 2 ? cell : dom.number(cell, 4) });
    }));
  });
  return dom.el("div", { "class": "scroll" }, [dom.el("table", { "class": "properties", id: "study-peaks" }, [
    dom.el("thead", {}, [head]), dom.el("tbody", {}, body)])]);
}

// Min, quartiles, median and max of the peaks there are (a member's missing peak is left out), the quartiles
// interpolated linearly between the sorted values (numpy's default); null when there is none.
function quartiles(peaks) {
  var sorted = peaks.filter(function (value) { return value !== null && isFinite(value); })
    .sort(function (a, b) { return a - b; });
  if (!sorted.length) { return null; }
  var at = function (share) {
    var position = share * (sorted.length - 1), below = Math.floor(position), above = Math.ceil(position);
    return sorted[below] + (sorted[above] - sorted[below]) * (position - below);
  };
  return { min: sorted[0], q1: at(0.25), median: at(0.5), q3: at(0.75), max: sorted[sorted.length - 1] };
}
