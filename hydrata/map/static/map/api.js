// The platform's REST API as the map page uses it: same-origin, the session cookie, JSON, worded failures.
const ANUGA = "/api/v2/anuga/";

function csrfToken() {
  var match = /(?:^|;\s*)csrftoken=([^;]+)/.exec(document.cookie);
  return match ? decodeURIComponent(match[1]) : "";
}

function request(method, path, body) {
  var headers = { "Accept": "application/json" };
  if (method !== "GET") {
    headers["X-CSRFToken"] = csrfToken();
  }
  var init = { method: method, credentials: "same-origin", headers: headers };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  return fetch(path, init).then(function (response) {
    return response.json().catch(function () { return null; }).then(function (data) {
      return { ok: response.ok, status: response.status, data: data };
    });
  }, function () {
    return { ok: false, status: 0, data: null };
  });
}

// One sentence a person can act on, for a failed answer about `what` ("This scenario", "The run", ...).
export function problem(result, what) {
  var detail = result.data && result.data.detail ? " " + result.data.detail : "";
  if (result.status === 404) {
    return what + " does not exist, or you cannot see it.";
  }
  if (result.status === 401) {
    return "You are signed out. Sign in again, then reload this page.";
  }
  if (result.status === 403) {
    return "You are not allowed to do that." + detail;
  }
  if (result.status === 409 || result.status === 400) {
    return detail.trim() || what + " cannot be shown yet.";
  }
  if (result.status === 0) {
    return what + " could not be loaded: the server did not answer. Check your connection and try again.";
  }
  return what + " could not be loaded (HTTP " + result.status + "). Try again in a moment.";
}

// The panel state an answer puts a panel in.
export function stateOf(result) {
  if (result.status === 404) { return "not-found"; }
  if (result.status === 403 || result.status === 401) { return "forbidden"; }
  return "error";
}

export function get(path) { return request("GET", path); }
export function post(path, body) { return request("POST", path, body); }
export function project(projectId) { return ANUGA + "projects/" + projectId + "/"; }
export function map(mapId) { return ANUGA + "maps/" + mapId + "/"; }
export function run(runId) { return ANUGA + "runs/" + runId + "/"; }

// The route of each kind of input row under its project.
export const inputPaths = { boundary: "boundaries", friction: "frictions", inflow: "inflows", rainfall: "rainfalls",
                            structure: "structures", breakline: "breaklines", culvert: "culverts", weir: "weirs",
                            mesh_region: "mesh-regions", gauge: "gauges",
                            flow_line: "flow-lines", initial_condition: "initial-conditions", soil: "soils" };
