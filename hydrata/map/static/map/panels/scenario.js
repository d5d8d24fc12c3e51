import * as dom from "../../map_core/dom.js";
import { titleOf } from "../../map_core/styles.js";
import * as api from "../api.js";
import * as kit from "./common.js";

var INPUTS = ["boundary", "friction", "inflow", "rainfall", "structure", "breakline", "culvert", "weir",
              "mesh_region", "initial_condition", "soil"];
var WRITE_ROLES = ["owner", "editor"];

export const title = "Scenario";

export function render(context) {
  var alive = true;
  var path = api.project(context.project.id) + "scenarios/";
  var load = context.link.scenario ? one : list;
  load(context, path, function () { return alive; });
  return function () { alive = false; };
}

function list(context, path, alive) {
  api.get(path).then(function (answer) {
    if (!alive()) { return; }
    if (!answer.ok) { context.setState(api.stateOf(answer), api.problem(answer, "The scenarios")); return; }
    context.body.appendChild(dom.el("h2", { text: "Scenarios" }));
    kit.frame(context, [], "scenarios");
    var items = answer.data.results.map(function (scenario) {
      return { href: context.linkTo("scenario", { scenario: scenario.id, run: null }), text: scenario.name,
               meta: scenario.resolution + " m, " + dom.duration(scenario.duration) + ", " +
                     scenario.computed_status };
    });
    if (!items.length) {
      context.setState("empty", "This project has no scenarios yet. Ask your agent to create one " +
                       "(create_scenario).");
      return;
    }
    context.body.appendChild(kit.linkList(items));
    context.setState("ready", "");
  });
}

function one(context, path, alive) {
  api.get(path + context.link.scenario + "/").then(function (answer) {
    if (!alive()) { return; }
    if (!answer.ok) { context.setState(api.stateOf(answer), api.problem(answer, "This scenario")); return; }
    draw(context, path, answer.data, alive);
  });
}

function draw(context, path, scenario, alive) {
  dom.clear(context.body);
  context.body.appendChild(dom.el("h2", { text: "Scenario: " + scenario.name }));
  if (scenario.description) { context.body.appendChild(dom.el("p", { text: scenario.description })); }
  if (scenario.reduced) {
    context.body.appendChild(dom.facts([["Resolution", scenario.resolution + " m"],
                                        ["Duration", dom.duration(scenario.duration)],
                                        ["Status", scenario.computed_status]]));
    kit.frame(context, [], "scenario:" + scenario.id);
    context.setState("ready", "You see this public scenario's summary only: its inputs, runs and price are its " +
                              "members' to see.");
    return;
  }
  var run = scenario.latest_run;
  context.body.appendChild(dom.facts([
    ["Status", scenario.computed_status + (run && !scenario.latest_run_is_valid ?
      " (" + changedSince(scenario.changed_since_build) + " changed since its build)" : "")],
    ["Resolution", scenario.resolution + " m"], ["Duration", dom.duration(scenario.duration)],
    ["Model start", dom.when(scenario.model_start)],
    ["Mesh estimate", scenario.mesh_triangle_count_estimate === null ? "none: " +
      ((scenario.mesh_estimate_problem || {}).detail || "inputs missing") :
      dom.number(scenario.mesh_triangle_count_estimate, 0) + " triangles"],
    ["Mesh built", run && run.mesh_triangle_count ? dom.number(run.mesh_triangle_count, 0) + " triangles" : "not yet"],
    ["Price of a run", scenario.compute_cost_estimate === null ? "" :
      dom.money(scenario.compute_cost_estimate, scenario.currency) + " (estimate, " +
      dom.number(scenario.vcpu_hours_estimate, 4) + " vCPU-hours)"]
  ]));
  (scenario.mesh_estimate_warnings || []).forEach(function (warning) {
    context.body.appendChild(dom.el("p", { "class": "panel-notice empty", text: warning.detail }));
  });
  var used = uses(context, scenario);
  context.body.appendChild(kit.section("Layers it uses", [used.list]));
  context.body.appendChild(signOff(context, path, scenario, alive));
  if (run) {
    context.body.appendChild(dom.el("p", {}, [dom.el("a", { href: context.linkTo("run", { run: run.id }),
                                                           text: "Latest run: #" + run.id + " (" + run.status + ")" })]));
  }
  kit.showRows(context, used.rows);
  var boundary = kit.rowById(context, scenario.boundary);
  kit.frame(context, [boundary && boundary.bbox_wgs84], "scenario:" + scenario.id);
  if (run && run.mesh_triangle_count) {
    addMesh(context, scenario, alive);
  } else {
    context.view.remove("mesh");
    context.setState("ready", "");
  }
}

function uses(context, scenario) {
  var rows = [];
  var items = INPUTS.map(function (kind) {
    var row = kit.rowById(context, scenario[kind]);
    if (row) { rows.push(row); }
    return { href: row ? context.linkTo("inputs", { layer: row.id }) : "#",
             text: titleOf(kind) + ": " + (row ? row.title : "none"),
             meta: row ? row.feature_count + " features" : "" };
  }).filter(function (item) { return item.href !== "#"; });
  var terrain = context.base.terrains.filter(function (t) { return t.id === scenario.terrain; })[0];
  items.unshift({ href: context.linkTo("terrain", { layer: scenario.terrain }),
                  text: "Terrain: " + (terrain ? terrain.title : "none"), meta: terrain ? terrain.crs : "" });
  return { rows: rows, list: kit.linkList(items) };
}

function addMesh(context, scenario, alive) {
  var path = api.project(context.project.id) + "scenarios/" + scenario.id + "/mesh/";
  api.get(path).then(function (answer) {
    if (!alive()) { return; }
    if (!answer.ok) { context.setState("error", api.problem(answer, "The mesh")); return; }
    var note = dom.el("p", { "class": "hint", id: "mesh-note" });
    context.body.appendChild(note);
    context.view.addMesh(answer.data, true, function (bbox) {
      return api.get(path + "?bbox=" + bbox.map(function (v) { return v.toFixed(6); }).join(",")).then(
        function (view) {
          if (!view.ok) { return null; }
          note.textContent = view.data.view.truncated
            ? "The mesh has " + dom.number(view.data.triangle_count, 0) + " triangles: zoom in to see them (" +
              dom.number(view.data.view.triangle_count, 0) + " in this view)."
            : "Showing the " + dom.number(view.data.view.triangle_count, 0) + " triangles in view.";
          return view.data.view;
        });
    });
    context.setState("ready", "");
  });
}

// What changed since a build or a sign-off, by name.
function changedSince(changes) {
  return kit.changedParts(changes, "the scenario or its inputs");
}

// The sign-off: who approved the scenario as it is now, and the button for owners and editors.
function signOff(context, path, scenario, alive) {
  var approval = scenario.approval;
  var box = dom.el("section", { "class": "panel-section sign-off", id: "sign-off",
                                "data-approved": String(approval.approved_by_you) }, [
    dom.el("h3", { text: "Sign-off" })
  ]);
  approval.approvals.forEach(function (entry) {
    box.appendChild(dom.el("p", { "class": "approved", text: "Approved for a run by " + entry.by + " on " +
                                                             dom.when(entry.at) + "." }));
  });
  if (!approval.approved) {
    box.appendChild(dom.el("p", { text: approval.stale_approval
      ? "Approved by " + approval.stale_approval.by + " on " + dom.when(approval.stale_approval.at) + ", but " +
        changedSince(approval.stale_approval.changed) + " changed since: it needs a new approval."
      : "Not approved for a run yet." }));
  }
  if (approval.required_for_your_agents) {
    box.appendChild(dom.el("p", { "class": "hint", text: "Your agents need your approval before they start a " +
      "run (the switch on the Agents page)." }));
  }
  if (WRITE_ROLES.indexOf(context.project.role) < 0) {
    box.appendChild(dom.el("p", { "class": "hint", text: "Only the project's owners and editors can approve." }));
    return box;
  }
  if (approval.approved_by_you) { return box; }
  var button = dom.el("button", { type: "button", id: "approve", text: "Approve for a run" });
  var message = dom.el("p", { "class": "error", role: "alert", hidden: "hidden" });
  button.addEventListener("click", function () {
    button.disabled = true;
    api.post(path + scenario.id + "/approve/").then(function (answer) {
      if (!alive()) { return; }
      if (!answer.ok) {
        button.disabled = false;
        message.textContent = api.problem(answer, "This scenario");
        message.hidden = false;
        return;
      }
      scenario.approval = answer.data;
      box.replaceWith(signOff(context, path, scenario, alive));
    });
  });
  box.appendChild(button);
  box.appendChild(message);
  return box;
}

