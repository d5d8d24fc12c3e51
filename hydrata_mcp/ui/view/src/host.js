// The view's side of the MCP Apps host protocol: JSON-RPC 2.0 over postMessage with the host window.

var PROTOCOL_VERSION = "2026-01-26";
var pending = {};
var handlers = {};
var nextId = 1;

function post(message) {
  window.parent.postMessage(Object.assign({ jsonrpc: "2.0" }, message), "*");
}

function request(method, params) {
  var id = nextId++;
  return new Promise(function (resolve, reject) {
    pending[id] = { resolve: resolve, reject: reject };
    post({ id: id, method: method, params: params || {} });
  });
}

function notify(method, params) { post({ method: method, params: params || {} }); }

function answered(message) {
  var waiting = pending[message.id];
  if (!waiting) { return; }
  delete pending[message.id];
  if (message.error) { waiting.reject(new Error(message.error.message || "The host refused the request.")); }
  else { waiting.resolve(message.result); }
}

function asked(message) {
  var handler = handlers[message.method];
  var result = handler ? handler(message.params || {}) : undefined;
  if (message.id === undefined) { return; }
  if (handler || message.method === "ping") { post({ id: message.id, result: result || {} }); }
  else { post({ id: message.id, error: { code: -32601, message: "Method not found" } }); }
}

window.addEventListener("message", function (event) {
  var message = event.data;
  if (event.source !== window.parent || !message || message.jsonrpc !== "2.0") { return; }
  if (message.method) { asked(message); } else if (message.id !== undefined) { answered(message); }
});

// The content's own size: scrollHeight would never report less than the frame the host gave us.
function reportSize() {
  var box = document.documentElement.getBoundingClientRect();
  notify("ui/notifications/size-changed", { width: Math.ceil(box.width), height: Math.ceil(box.height) });
}

export function on(method, handler) { handlers[method] = handler; }

export function connect() {
  return request("ui/initialize", {
    protocolVersion: PROTOCOL_VERSION, appInfo: { name: "hydrata-map", version: "1" }, appCapabilities: {}
  }).then(function (result) {
    notify("ui/notifications/initialized", {});
    if (window.ResizeObserver) { new ResizeObserver(reportSize).observe(document.body); }
    reportSize();
    return result;
  });
}

export function callTool(name, args) {
  return request("tools/call", { name: name, arguments: args }).then(function (result) {
    if (result && result.isError) {
      const text = (result.content || []).map(function (block) { return block.text || ""; }).join(" ");
      throw new Error(text || name + " failed.");
    }
    return result;
  });
}

export function openLink(url) { return request("ui/open-link", { url: url }); }
