// What several panels share: framing on the union of boxes, sections, and link lists.
(function (H) {
  "use strict";

  function union(boxes) {
    var found = boxes.filter(function (box) { return box && box.length === 4; });
    if (!found.length) { return null; }
    return [Math.min.apply(null, found.map(function (b) { return b[0]; })),
            Math.min.apply(null, found.map(function (b) { return b[1]; })),
            Math.max.apply(null, found.map(function (b) { return b[2]; })),
            Math.max.apply(null, found.map(function (b) { return b[3]; }))];
  }

  // Frame the first box there is, else the terrain; `label` says what is framed ("inputs:12").
  function frame(context, boxes, label) {
    var box = union(boxes);
    var terrain = context.base.terrain;
    if (box) {
      context.view.frame(box, label);
    } else if (terrain && terrain.bbox_wgs84) {
      context.view.frame(terrain.bbox_wgs84, "terrain");
    }
  }

  function section(title, children) {
    return H.dom.el("section", { "class": "panel-section" }, [H.dom.el("h3", { text: title })].concat(children));
  }

  function linkList(items) {
    return H.dom.el("ul", { "class": "links" }, items.map(function (item) {
      return H.dom.el("li", {}, [H.dom.el("a", { href: item.href, text: item.text }),
                                 item.meta ? H.dom.el("span", { "class": "meta", text: item.meta }) : null]);
    }));
  }

  function rowById(context, id) {
    return context.base.rows.filter(function (row) { return row.id === id; })[0] || null;
  }

  function showRows(context, rows) {
    rows.forEach(function (row) { context.view.show("input-" + row.id, true); });
  }

  H.panelKit = { union: union, frame: frame, section: section, linkList: linkList, rowById: rowById,
                 showRows: showRows };
})(window.Hydrata = window.Hydrata || {});
