// The map behind every ui_url: #/map/<base_map>?panel=&layer=&scenario=&run=&compare=&study= opens the project's map
// with the panel the link names, framed on the object it names (run and compare: the impact map of the two; study:
// a design study in the Study panel, a calibration study in the Calibration panel). The project list is the page's
// content without a link.
import { terrainStatus } from "../map_core/contract.js";
import * as dom from "../map_core/dom.js";
import { KIND_TITLES } from "../map_core/styles.js";
import * as api from "./api.js";
import { MapView } from "./layers.js";
import * as calibration from "./panels/calibration.js";
import * as hydrology from "./panels/hydrology.js";
import * as inputs from "./panels/inputs.js";
import * as comparison from "./panels/comparison.js";
import * as observations from "./panels/observations.js";
import * as run from "./panels/run.js";
import * as scenario from "./panels/scenario.js";
import * as study from "./panels/study.js";
import * as terrain from "./panels/terrain.js";

var LINK = /^#\/map\/(\d+)\/?(?:\?(.*))?$/;
var PANEL_NAMES = { "terrain": "terrain", "inputs": "inputs", "time-series": "hydrology", "hydrology": "hydrology",
                    "scenario": "scenario", "run": "run", "observations": "observations",
                    "comparison": "comparison", "study": "study", "calibration": "calibration" };
// The tabs, in their order.
const PANELS = { terrain: terrain, inputs: inputs, hydrology: hydrology, scenario: scenario, run: run,
                 observations: observations, comparison: comparison, study: study, calibration: calibration };
// The panels whose `study` is an id of their own kind: a design study's id means nothing to the Calibration panel.
var STUDY_PANELS = ["study", "calibration"];

var page = {
  listView: document.getElementById("project-list"),
  listNotice: document.getElementById("list-notice"),
  mapView: document.getElementById("map-view"),
  heading: document.getElementById("map-heading"),
  meta: document.getElementById("map-meta"),
  status: document.getElementById("map-status"),
  tabs: document.getElementById("panel-tabs"),
  panel: document.getElementById("panel"),
  mapElement: document.getElementById("map"),
  title: document.title
};
var config = JSON.parse(document.getElementById("map-config").textContent);
var current = { mapId: null, project: null, view: null, base: null, cleanup: null, request: 0 };

function parse(hash) {
  var match = LINK.exec(hash);
  if (match === null) { return null; }
  var params = new URLSearchParams(match[2] || "");
  var number = function (key) { var value = params.get(key); return value && /^\d+$/.test(value) ? +value : null; };
  return { mapId: match[1], panelName: params.get("panel") || "", layer: number("layer"),
           scenario: number("scenario"), run: number("run"), event: number("event"),
           comparison: number("comparison"), compare: number("compare"), study: number("study") };
}

// A link to another panel of the same map, keeping the scenario, run, flood event and design study it names.
function linkTo(panel, extra) {
  var link = current.link || {};
  var params = new URLSearchParams();
  params.set("panel", panel);
  var merged = Object.assign({ scenario: link.scenario, run: link.run, event: link.event, study: link.study },
                             extra || {});
  ["layer", "scenario", "run", "event", "comparison", "study"].forEach(function (key) {
    if (merged[key] !== null && merged[key] !== undefined) { params.set(key, merged[key]); }
  });
  return "#/map/" + current.mapId + "?" + params.toString();
}

function showList(notice) {
  current.request += 1;
  page.mapView.hidden = true;
  page.listView.hidden = false;
  page.listNotice.textContent = notice || "";
  page.listNotice.hidden = !notice;
  document.title = page.title;
}

function showMapStatus(message, state) {
  page.status.textContent = message;
  page.status.hidden = !message;
  page.mapView.dataset.state = state;
}

function open(link) {
  page.listView.hidden = true;
  page.mapView.hidden = false;
  current.link = link;
  if (current.mapId === link.mapId && current.base) {
    renderPanel();
    return;
  }
  current.request += 1;
  var thisRequest = current.request;
  current.mapId = link.mapId;
  current.base = null;
  page.heading.textContent = "Map #" + link.mapId;
  dom.clear(page.panel);
  showMapStatus("Loading the map…", "loading");
  api.get(api.map(link.mapId)).then(function (answer) {
    if (thisRequest !== current.request) { return null; }
    if (!answer.ok) {
      showMapStatus(api.problem(answer, "This map"), api.stateOf(answer));
      return null;
    }
    current.project = answer.data.project;
    page.heading.textContent = answer.data.project.name;
    page.meta.textContent = [answer.data.project.projection, answer.data.project.visibility,
                             "your role: " + (answer.data.project.role || "none")].join(" · ");
    document.title = answer.data.project.name + " · " + page.title;
    return loadBase(thisRequest);
  }).catch(function () {
    showMapStatus("The map could not be drawn. Reload the page to try again.", "error");
  });
}

// What every panel draws on: the terrain (hillshade as the background) and every input row with features.
function loadBase(thisRequest) {
  var project = api.project(current.project.id);
  if (!current.view) { current.view = new MapView(page.mapElement, config); }
  return Promise.all([api.get(project + "terrain/"), api.get(project + "inputs/")]).then(function (answers) {
    if (thisRequest !== current.request) { return null; }
    var terrains = answers[0].ok ? answers[0].data.results : [];
    var inputs = answers[1].ok ? answers[1].data : {};
    current.base = { terrains: terrains, inputs: inputs, rows: [] };
    Object.keys(inputs).forEach(function (kind) { current.base.rows = current.base.rows.concat(inputs[kind]); });
    showMapStatus("", "ready");
    return Promise.all([addTerrain(pickTerrain(terrains)), addInputs(current.base.rows)]).then(function () {
      if (thisRequest === current.request) { renderPanel(); }
    });
  });
}

function pickTerrain(terrains) {
  var link = current.link;
  var named = link.panelName === "terrain" && link.layer
    ? terrains.filter(function (t) { return t.id === link.layer; })[0] : null;
  return named || terrains.filter(function (t) { return t.status === terrainStatus.READY; })[0] || null;
}

function addTerrain(terrain) {
  current.base.terrain = terrain;
  if (!terrain || terrain.status !== terrainStatus.READY) { return Promise.resolve(); }
  var path = api.project(current.project.id) + "terrain/" + terrain.id + "/tiles/";
  return api.get(path).then(function (answer) {
    if (!answer.ok) { return; }
    answer.data.results.forEach(function (tiled) {
      var hillshade = tiled.name === "hillshade";
      current.view.addTiles("terrain-" + tiled.name, tiled, terrain.bbox_wgs84,
                            { opacity: hillshade ? 1 : 0.5, zIndex: hillshade ? 1 : 2, visible: hillshade });
    });
  });
}

function addInputs(rows) {
  var project = api.project(current.project.id);
  // The map draws the kinds it has a style for (KIND_TITLES); gauges and flow lines are listed, not drawn.
  var withFeatures = rows.filter(function (row) { return row.has_features && KIND_TITLES[row.kind]; });
  return Promise.all(withFeatures.map(function (row) {
    var path = project + api.inputPaths[row.kind] + "/" + row.id + "/features/";
    return api.get(path).then(function (answer) {
      if (answer.ok) { current.view.addFeatures(row, answer.data, { visible: false }); }
    });
  }));
}

function renderTabs(active) {
  dom.clear(page.tabs);
  Object.keys(PANELS).forEach(function (name) {
    var other = name !== active && STUDY_PANELS.indexOf(name) >= 0 && STUDY_PANELS.indexOf(active) >= 0;
    var link = dom.el("a", { href: linkTo(name, other ? { study: null } : undefined), role: "tab",
                               "aria-selected": String(name === active),
                               "class": name === active ? "tab active" : "tab", text: PANELS[name].title });
    page.tabs.appendChild(link);
  });
}

function renderPanel() {
  if (current.cleanup) { current.cleanup(); current.cleanup = null; }
  var link = current.link;
  var name = PANEL_NAMES[link.panelName] || (link.panelName ? null : "terrain");
  renderTabs(name);
  dom.clear(page.panel);
  var body = dom.el("div", { "class": "panel-body" });
  page.panel.appendChild(body);
  if (name === null) {
    setState(body, "not-found", "This link names a panel ('" + link.panelName + "') this page does not have. " +
             "Choose one of the tabs above.");
    return;
  }
  page.panel.dataset.panel = name;
  Object.keys(current.view.layers).forEach(function (key) {
    if (key !== "terrain-hillshade") { current.view.show(key, false); }
  });
  var context = { link: link, project: current.project, base: current.base, view: current.view, body: body,
                  linkTo: linkTo, setState: function (state, message) { setState(body, state, message); } };
  context.setState("loading", "Loading…");
  current.cleanup = PANELS[name].render(context) || null;
}

// Every panel is in one of: loading, ready, empty, not-found, forbidden, error.
function setState(body, state, message) {
  page.panel.dataset.state = state;
  var notice = body.querySelector(".panel-notice");
  if (!notice) {
    notice = dom.el("p", { "class": "panel-notice", role: "status" });
    body.insertBefore(notice, body.firstChild);
  }
  notice.textContent = message || "";
  notice.hidden = !message;
  notice.className = "panel-notice " + state;
}

function route() {
  var hash = window.location.hash;
  if (hash === "" || hash === "#" || hash === "#/") {
    showList("");
    current.mapId = null;
    return;
  }
  var link = parse(hash);
  if (link === null) {
    showList("That link does not point at a map. Choose a project below.");
    return;
  }
  open(link);
}

window.addEventListener("hashchange", route);
document.addEventListener("DOMContentLoaded", route);
