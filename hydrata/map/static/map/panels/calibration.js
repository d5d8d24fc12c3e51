// A calibration study (#/map/<id>?panel=calibration&study=<id>): its state, progress and ETA while its members
// compute, its estimate and the engineer's sign-off; its parameters (each range, and the best value once there is
// one); the convergence of its members' objective (RMSE against the event's observations) with the running best;
// the best fit at every observation; for a Morris screen, mu* against sigma of each parameter for one output and
// the parameters' ranking. Without a study, the project's calibration studies. Every name is text (dom.el's
// `text`, or a string child: a text node), never markup.
//
// Numbers: values, ranges, objectives (m), observed, modelled and errors (m), mu*, sigma and influence are written
// with 3 decimals (Number.toFixed(3)), as the tools write them; a missing one as a dash.
import { contract } from "../../map_core/contract.js";
import * as dom from "../../map_core/dom.js";
import * as api from "../api.js";
import * as chart from "../chart.js";
import * as kit from "./common.js";

var POLL_MS = 2000;
var WRITE_ROLES = ["owner", "editor"];
var DASH = "—";

export const title = "Calibration";

export function render(context) {
  var state = { alive: true, timer: null };
  if (context.link.study) {
    load(context, studyPath(context, context.link.study), state);
  } else {
    list(context, state, null);
  }
  return function () { state.alive = false; clearTimeout(state.timer); };
}

function studiesPath(context) {
  return api.project(context.project.id) + "calibration-studies/";
}

function studyPath(context, studyId) {
  return studiesPath(context) + studyId + "/";
}

function isFinished(status) {
  return contract.finishedStudyStates.indexOf(status) >= 0;
}

// The one number format of the panel (see the top): 3 decimals, a dash for none.
export function fixed(value) {
  return value === null || value === undefined || !isFinite(value) ? DASH : Number(value).toFixed(3);
}

function methodName(method) {
  return method === "morris" ? "Morris screen" : "optimiser";
}

// The project's calibration studies as links; `current` (a study's id) marks the one shown, and then an empty
// list says nothing (the study itself is there).
function list(context, state, current) {
  api.get(studiesPath(context)).then(function (answer) {
    if (!state.alive) { return; }
    if (!answer.ok) {
      if (current === null) { context.setState(api.stateOf(answer), api.problem(answer, "The calibration studies")); }
      return;
    }
    var studies = answer.data.results;
    var box = dom.el("section", { "class": "panel-section", id: "calibration-studies" }, [
      dom.el(current === null ? "h2" : "h3", { text: "Calibration studies" })
    ]);
    context.body.appendChild(box);
    if (current === null) {
      kit.frame(context, [], "calibration");
      if (!studies.length) {
        context.setState("empty", "This project has no calibration studies yet. Ask your agent to make one " +
                         "(create_calibration_study).");
        return;
      }
    }
    var links = kit.linkList(studies.map(function (study) {
      return { href: context.linkTo("calibration", { study: study.id, scenario: study.base_scenario, run: null }),
               text: study.name,
               meta: methodName(study.method) + ", " + study.members_planned + " members, " +
                     study.status.replace(/_/g, " ") };
    }));
    Array.prototype.forEach.call(links.children, function (item, index) {
      item.dataset.study = String(studies[index].id);
      if (studies[index].id === current) { item.className = "current"; }
    });
    box.appendChild(links);
    if (current === null) { context.setState("ready", ""); }
  });
}

function load(context, path, state) {
  api.get(path).then(function (answer) {
    if (!state.alive) { return; }
    if (!answer.ok) { context.setState(api.stateOf(answer), api.problem(answer, "This calibration study")); return; }
    var study = answer.data;
    var parts = { live: dom.el("div", { id: "calibration-live" }),
                  results: dom.el("div", { id: "calibration-results" }) };
    context.body.appendChild(dom.el("h2", {}, ["Calibration study: ", study.name]));
    context.body.appendChild(parts.live);
    context.body.appendChild(estimate(study));
    context.body.appendChild(signOff(context, path, study, state));
    context.body.appendChild(parts.results);
    frameOnBase(context, study);
    follow(context, path, study, parts, state);
    list(context, state, study.id);
  });
}

function frameOnBase(context, study) {
  api.get(api.project(context.project.id) + "scenarios/" + study.base_scenario + "/").then(function (answer) {
    var boundary = answer.ok ? kit.rowById(context, answer.data.boundary) : null;
    if (boundary) { context.view.show("input-" + boundary.id, true); }
    kit.frame(context, [boundary && boundary.bbox_wgs84], "calibration:" + study.id);
  });
}

// Redraw the state, progress and what the members gave so far (the study's own answer, every POLL_MS) until it
// ends.
function follow(context, path, study, parts, state) {
  drawLive(parts.live, study);
  drawResults(context, parts.results, study);
  context.setState("ready", "");
  if (isFinished(study.status) || study.status === contract.studyStatus.DRAFT) { return; }
  state.timer = setTimeout(function () {
    api.get(path).then(function (answer) {
      if (!state.alive) { return; }
      if (!answer.ok) { context.setState(api.stateOf(answer), api.problem(answer, "This calibration study")); return; }
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
    ["Method", methodName(study.method)],
    ["Members ended", progress.members_done + " of " + progress.members_total + " (" + progress.members_started +
      " started)"],
    ["Time left", isFinished(study.status) || study.status === contract.studyStatus.DRAFT ? "" :
      progress.eta_seconds === null ? "estimating…" : "about " + dom.duration(progress.eta_seconds)],
    ["Budget", study.budget + " members, " + study.in_flight + " at once"],
    ["Started", dom.when(study.started_at)], ["Finished", dom.when(study.finished_at)]
  ]));
  var bar = dom.el("progress", { id: "calibration-progress", max: "100", value: String(progress.progress_pct || 0),
                                 "aria-label": "Members done" });
  live.appendChild(dom.el("div", { "class": "progress" }, [bar, dom.el("span", {
    text: progress.members_done + " / " + progress.members_total + " members · " +
          dom.number(progress.progress_pct, 1) + " %" })]));
}

function estimate(study) {
  var priced = study.estimate;
  return kit.section("Estimate", [dom.facts([
    ["Members", dom.number(priced.members, 0)],
    ["Compute", dom.number(priced.vcpu_hours_estimate, 4) + " vCPU-hours"],
    ["Price", dom.money(priced.compute_cost_estimate) + " (estimate)"],
    ["Charged", study.compute_cost === null ? "nothing yet" : dom.money(study.compute_cost)]
  ])]);
}

// The sign-off, as the Study panel's: whether a person signed it off as it is now (its fingerprint over the base
// scenario, the parameters and their ranges, the budget and the event's observations), and for a draft the button
// for the project's owners and editors. The site's session only: agents are refused by the platform.
function signOff(context, path, study, state) {
  var approval = study.approval;
  var draft = study.status === contract.studyStatus.DRAFT;
  var box = dom.el("section", { "class": "panel-section sign-off", id: "calibration-sign-off",
                                "data-approved": String(approval.approved_by_you) }, [
    dom.el("h3", { text: "Sign-off" }),
    dom.el("p", { "class": approval.approved ? "approved" : null,
                  text: approval.approved_by_you ? "Signed off by you as it is now." :
                    approval.approved ? "Signed off as it is now." : "Not signed off as it is now." }),
    dom.el("p", { "class": "fingerprint" }, [
      "Fingerprint (the base scenario, the parameters, the budget and the event's observations): ",
      dom.el("code", { id: "calibration-fingerprint", text: approval.fingerprint })
    ])
  ]);
  if (!draft || approval.approved_by_you) { return box; }
  if (WRITE_ROLES.indexOf(context.project.role) < 0) {
    box.appendChild(dom.el("p", { "class": "hint", text: "Only the project's owners and editors can sign it off." }));
    return box;
  }
  var button = dom.el("button", { type: "button", id: "calibration-approve",
                                  text: "Sign the calibration study off for its runs" });
  var message = dom.el("p", { "class": "error", role: "alert", hidden: "hidden" });
  button.addEventListener("click", function () {
    button.disabled = true;
    api.post(path + "approve/").then(function (answer) {
      if (!state.alive) { return; }
      if (!answer.ok) {
        button.disabled = false;
        message.textContent = api.problem(answer, "This calibration study");
        message.hidden = false;
        return;
      }
      box.replaceWith(signOff(context, path, answer.data, state));
    });
  });
  box.appendChild(dom.el("p", { "class": "hint", text: "Signing off lets your agents start this study's " +
    dom.number(study.members_planned, 0) + " runs as it is now; any change to its parameters, the event's " +
    "observations or the base scenario needs a new sign-off." }));
  box.appendChild(button);
  box.appendChild(message);
  return box;
}

function drawResults(context, box, study) {
  dom.clear(box);
  var results = study.results;
  var best = results && results.best ? results.best : null;
  box.appendChild(parameterTable(study.parameters, best));
  box.appendChild(convergence(study.members));
  if (best) { box.appendChild(bestFit(context, best)); }
  if (results && results.morris) { box.appendChild(morris(results.morris)); }
}

function table(id, headings, rows) {
  return dom.el("div", { "class": "scroll" }, [dom.el("table", { "class": "properties", id: id }, [
    dom.el("thead", {}, [dom.el("tr", {}, headings.map(function (text) { return dom.el("th", { text: text }); }))]),
    dom.el("tbody", {}, rows)])]);
}

// A row of text cells; a number (or a dash for none) is kept on one line.
function row(cells, data) {
  var tr = dom.el("tr", {}, cells.map(function (cell) {
    return dom.el("td", { text: cell, "class": /^(-?[\d.]+|—)$/.test(cell) ? "number" : null });
  }));
  Object.keys(data || {}).forEach(function (name) { tr.dataset[name] = String(data[name]); });
  return tr;
}

function parameterTable(parameters, best) {
  var rows = parameters.map(function (parameter) {
    var value = best && best.values[parameter.label] !== undefined ? best.values[parameter.label] : null;
    return row([parameter.label, fixed(parameter.low), fixed(parameter.high), fixed(value)],
               { label: parameter.label });
  });
  return kit.section("Parameters", [table("calibration-parameters", ["Parameter", "Low", "High", "Best"], rows)]);
}

// Each member's objective by its index (a member that gave none is left out), and the lowest so far.
function convergence(members) {
  var scored = members.filter(function (member) { return member.objective !== null; })
    .sort(function (a, b) { return a.index - b.index; });
  var figure = dom.el("figure", { "class": "chart-box", id: "calibration-convergence",
                                  "data-points": String(scored.length) });
  if (!scored.length) {
    figure.appendChild(dom.el("p", { "class": "hint", text: "No member has been compared with the observations " +
                                                            "yet." }));
    return kit.section("Convergence", [figure]);
  }
  var lowest = Infinity;
  var running = scored.map(function (member) {
    lowest = Math.min(lowest, member.objective);
    return { x: member.index, y: lowest };
  });
  var points = scored.map(function (member, position) {
    return { x: member.index, y: member.objective, highlight: member.objective === running[position].y,
             title: "Member " + member.index + ": RMSE " + fixed(member.objective) + " m",
             data: { index: member.index, objective: member.objective } };
  });
  figure.appendChild(chart.scatter(points, { title: "Each member's RMSE, and the best so far", line: running,
                                             xLabel: "member", yLabel: "RMSE (m)" }));
  figure.appendChild(dom.el("figcaption", { text: scored.length + " of " + members.length + " members compared; " +
    "the line is the lowest RMSE so far, " + fixed(running[running.length - 1].y) + " m at the end." }));
  return kit.section("Convergence", [figure]);
}

function bestFit(context, best) {
  var metrics = best.metrics || {};
  var facts = dom.facts([
    ["Best member", String(best.member)],
    ["RMSE", fixed(best.objective) + " m"],
    ["Bias", fixed(metrics.bias) + " m"], ["Mean absolute error", fixed(metrics.mae) + " m"],
    ["Observations", dom.blank(metrics.n) ? "" : String(metrics.n)]
  ]);
  var rows = best.fit.map(function (fit) {
    var within = fit.within_tolerance === null ? DASH : fit.within_tolerance ? "yes" : "no";
    return row([String(fit.observation_id), fixed(fit.observed), fixed(fit.modelled), fixed(fit.error), within],
               { observation: fit.observation_id });
  });
  var children = [facts];
  if (best.run !== null) {
    children.push(dom.el("p", {}, [dom.el("a", { id: "calibration-best-run", text: "Open the calibrated run #" +
      best.run, href: context.linkTo("run", { run: best.run }) })]));
  }
  children.push(table("calibration-fit", ["Observation", "Observed (m)", "Modelled (m)", "Error (m)",
                                          "Within tolerance"], rows));
  return kit.section("Best fit", children);
}

// Morris: one output's mu* against sigma (one point per parameter; the first output unless another is chosen),
// its effects in a table, and the parameters' ranking over every output.
function morris(screen) {
  var section = kit.section("Morris screen", []);
  if (screen.outputs.length) {
    var choice = dom.el("select", { id: "calibration-output", "aria-label": "Output" }, screen.outputs.map(
      function (output, index) {
        return dom.el("option", { value: String(index), text: output.name + " (" + output.output + ")" });
      }));
    var figure = dom.el("div", { id: "calibration-morris-output" });
    section.appendChild(dom.el("label", { "for": "calibration-output", text: "Output " }));
    section.appendChild(choice);
    section.appendChild(figure);
    var show = function () { drawEffects(figure, screen.outputs[Number(choice.value)]); };
    choice.addEventListener("change", show);
    show();
  }
  var ranking = screen.ranking.map(function (rank, index) {
    return row([String(index + 1), rank.parameter, fixed(rank.influence)], { parameter: rank.parameter });
  });
  section.appendChild(dom.el("h3", { text: "Ranking" }));
  section.appendChild(table("calibration-ranking", ["Rank", "Parameter", "Influence"], ranking));
  return section;
}

function drawEffects(figure, output) {
  dom.clear(figure);
  var box = dom.el("figure", { "class": "chart-box", id: "calibration-morris", "data-output": output.name });
  box.appendChild(chart.scatter(output.effects.map(function (effect) {
    return { x: effect.mu_star, y: effect.sigma, label: effect.parameter,
             title: effect.parameter + ": mu* " + fixed(effect.mu_star) + " ± " + fixed(effect.mu_star_conf) +
                    ", sigma " + fixed(effect.sigma),
             data: { parameter: effect.parameter, "mu-star": effect.mu_star, sigma: effect.sigma } };
  }), { title: "mu* against sigma at " + output.name, xLabel: "mu* (influence)", yLabel: "sigma" }));
  box.appendChild(dom.el("figcaption", { text: output.trajectories + " whole trajectories. Right: more " +
    "influence; up: more interaction or non-linearity." }));
  figure.appendChild(box);
  figure.appendChild(table("calibration-effects", ["Parameter", "mu*", "± (95 %)", "sigma"],
    output.effects.map(function (effect) {
      return row([effect.parameter, fixed(effect.mu_star), fixed(effect.mu_star_conf), fixed(effect.sigma)],
                 { parameter: effect.parameter });
    })));
}
