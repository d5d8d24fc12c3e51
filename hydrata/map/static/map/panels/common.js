// What several panels share: framing on the union of boxes, sections, link lists, and what changed in words.
import * as dom from "../../map_core/dom.js";

export function union(boxes) {
  var found = boxes.filter(function (box) { return box && box.length === 4; });
  if (!found.length) { return null; }
  return [Math.min.apply(null, found.map(function (b) { return b[0]; })),
          Math.min.apply(null, found.map(function (b) { return b[1]; })),
          Math.max.apply(null, found.map(function (b) { return b[2]; })),
          Math.max.apply(null, found.map(function (b) { return b[3]; }))];
}

// Frame the first box there is, else the terrain; `label` says what is framed ("inputs:12").
export function frame(context, boxes, label) {
  var box = union(boxes);
  var terrain = context.base.terrain;
  if (box) {
    context.view.frame(box, label);
  } else if (terrain && terrain.bbox_wgs84) {
    context.view.frame(terrain.bbox_wgs84, "terrain");
  }
}

export function section(title, children) {
  return dom.el("section", { "class": "panel-section" }, [dom.el("h3", { text: title })].concat(children));
}

export function linkList(items) {
  return dom.el("ul", { "class": "links" }, items.map(function (item) {
    return dom.el("li", {}, [dom.el("a", { href: item.href, text: item.text }),
                               item.meta ? dom.el("span", { "class": "meta", text: item.meta }) : null]);
  }));
}

// What changed since a build, a sign-off or a start, as the platform names the parts ("the rainfall layer and the
// time series 'storm'"); `none` when it names none (an approval or a start from before it did).
export function changedParts(changes, none) {
  if (!changes || !changes.length) { return none; }
  return changes.length === 1 ? changes[0] : changes.slice(0, -1).join(", ") + " and " + changes[changes.length - 1];
}

export function rowById(context, id) {
  return context.base.rows.filter(function (row) { return row.id === id; })[0] || null;
}

export function showRows(context, rows) {
  rows.forEach(function (row) { context.view.show("input-" + row.id, true); });
}

