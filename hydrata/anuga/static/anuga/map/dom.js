// Small DOM and formatting helpers. Text always goes in through textContent: nothing from the API is parsed as HTML.
(function (H) {
  "use strict";

  function el(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) {
      var value = attributes[name];
      if (value === null || value === undefined || value === false) { return; }
      if (name === "text") { node.textContent = String(value); } else { node.setAttribute(name, String(value)); }
    });
    (children || []).forEach(function (child) {
      if (child !== null && child !== undefined) {
        node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
      }
    });
    return node;
  }

  function clear(node) {
    while (node.firstChild) { node.removeChild(node.firstChild); }
    return node;
  }

  // A definition list of [label, value] rows; empty values show as a dash.
  function facts(rows) {
    var list = el("dl", { "class": "facts" });
    rows.forEach(function (row) {
      list.appendChild(el("dt", { text: row[0] }));
      list.appendChild(el("dd", { text: blank(row[1]) ? "—" : row[1] }));
    });
    return list;
  }

  function blank(value) {
    return value === null || value === undefined || value === "";
  }

  function number(value, digits) {
    if (blank(value)) { return ""; }
    return Number(value).toLocaleString("en", { maximumFractionDigits: digits === undefined ? 2 : digits });
  }

  function withUnits(value, units, digits) {
    return blank(value) ? "" : number(value, digits) + " " + units;
  }

  function duration(seconds) {
    if (blank(seconds)) { return ""; }
    var total = Math.round(Number(seconds));
    var hours = Math.floor(total / 3600), minutes = Math.floor((total % 3600) / 60), rest = total % 60;
    var parts = [];
    if (hours) { parts.push(hours + " h"); }
    if (minutes) { parts.push(minutes + " min"); }
    if (rest || !parts.length) { parts.push(rest + " s"); }
    return parts.join(" ");
  }

  function money(amount, currency) {
    return blank(amount) ? "" : "$" + Number(amount).toFixed(2) + " " + (currency || "USD");
  }

  function when(iso) {
    if (blank(iso)) { return ""; }
    return new Date(iso).toISOString().replace("T", " ").slice(0, 16) + " UTC";
  }

  H.dom = { el: el, clear: clear, facts: facts, number: number, withUnits: withUnits, duration: duration,
            money: money, when: when, blank: blank };
})(window.Hydrata = window.Hydrata || {});
