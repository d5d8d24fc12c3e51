import * as dom from "../../map_core/dom.js";
import { titleOf } from "../../map_core/styles.js";
import * as api from "../api.js";
import * as kit from "./common.js";

var PROPERTY_ROWS = 25;

export const title = "Inputs";

export function render(context) {
  var rows = context.base.rows;
  if (context.link.layer) { return one(context, kit.rowById(context, context.link.layer)); }
  kit.showRows(context, rows);
  context.body.appendChild(dom.el("h2", { text: "Inputs" }));
  var withFeatures = rows.filter(function (row) { return row.has_features; });
  Object.keys(context.base.inputs).forEach(function (kind) {
    var items = context.base.inputs[kind].map(function (row) {
      return { href: context.linkTo("inputs", { layer: row.id }), text: row.title,
               meta: row.feature_count + " feature" + (row.feature_count === 1 ? "" : "s") };
    });
    if (items.length) { context.body.appendChild(kit.section(titleOf(kind), [kit.linkList(items)])); }
  });
  kit.frame(context, withFeatures.map(function (row) { return row.bbox_wgs84; }), "inputs");
  if (!withFeatures.length) {
    context.setState("empty", rows.length ? "No input row has features yet. Ask your agent to attach layers " +
      "(attach_input_layer)." : "This project has no input rows yet: they appear once its terrain is imported.");
    return;
  }
  context.setState("ready", "");
}

function one(context, row) {
  if (!row) {
    context.setState("not-found", "Input row " + context.link.layer + " does not exist in this project, or you " +
                     "cannot see it.");
    return;
  }
  kit.showRows(context, context.base.rows);
  context.body.appendChild(dom.el("h2", { text: titleOf(row.kind) + ": " + row.title }));
  context.body.appendChild(dom.facts([
    ["Kind", titleOf(row.kind)], ["Features", String(row.feature_count)],
    ["Default row", row.is_default ? "yes" : "no"], ["Dataset", row.gn_layer ? "#" + row.gn_layer : "none"],
    ["Extent (WGS84)", row.bbox_wgs84 ? row.bbox_wgs84.map(function (v) { return v.toFixed(5); }).join(", ") : ""],
    ["Updated", dom.when(row.updated_at)]
  ]));
  context.body.appendChild(dom.el("p", {}, [dom.el("a", { href: context.linkTo("inputs", { layer: null }),
                                                         text: "All inputs" })]));
  if (!row.has_features) {
    kit.frame(context, [], "inputs:" + row.id);
    context.setState("empty", "This row has no features yet. Ask your agent to attach a layer to it.");
    return;
  }
  kit.frame(context, [row.bbox_wgs84], "inputs:" + row.id);
  var path = api.project(context.project.id) + api.inputPaths[row.kind] + "/" + row.id + "/features/";
  api.get(path).then(function (answer) {
    if (!answer.ok) { context.setState(api.stateOf(answer), api.problem(answer, "This input row")); return; }
    context.body.appendChild(kit.section("Properties", [propertiesTable(answer.data.features)]));
    context.setState("ready", "");
  });
}

function propertiesTable(features) {
  var names = [];
  features.forEach(function (feature) {
    Object.keys(feature.properties || {}).forEach(function (name) { if (names.indexOf(name) < 0) { names.push(name); } });
  });
  var head = dom.el("tr", {}, [dom.el("th", { text: "#" })].concat(names.map(function (name) {
    return dom.el("th", { text: name });
  })));
  var body = features.slice(0, PROPERTY_ROWS).map(function (feature, index) {
    return dom.el("tr", {}, [dom.el("td", { text: feature.id !== undefined && feature.id !== null ? feature.id
                                                                                                 : index })]
      .concat(names.map(function (name) { return dom.el("td", { text: (feature.properties || {})[name] }); })));
  });
  var table = dom.el("table", { "class": "properties" }, [dom.el("thead", {}, [head]), dom.el("tbody", {}, body)]);
  var wrapper = dom.el("div", { "class": "scroll" }, [table]);
  if (features.length > PROPERTY_ROWS) {
    wrapper.appendChild(dom.el("p", { "class": "hint", text: "The first " + PROPERTY_ROWS + " of " +
                                                             features.length + " features." }));
  }
  return wrapper;
}

