// Small DOM and formatting helpers. Text always goes in through textContent: nothing from the API is parsed as HTML.

export function el(tag, attributes, children) {
  const node = document.createElement(tag);
  Object.keys(attributes || {}).forEach(function (name) {
    const value = attributes[name];
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

export function clear(node) {
  while (node.firstChild) { node.removeChild(node.firstChild); }
  return node;
}

// A definition list of [label, value] rows; empty values show as a dash.
export function facts(rows) {
  const list = el("dl", { "class": "facts" });
  rows.forEach(function (row) {
    list.appendChild(el("dt", { text: row[0] }));
    list.appendChild(el("dd", { text: blank(row[1]) ? "—" : row[1] }));
  });
  return list;
}

export function blank(value) {
  return value === null || value === undefined || value === "";
}

export function number(value, digits) {
  if (blank(value)) { return ""; }
  return Number(value).toLocaleString("en", { maximumFractionDigits: digits === undefined ? 2 : digits });
}

export function withUnits(value, units, digits) {
  return blank(value) ? "" : number(value, digits) + " " + units;
}

export function duration(seconds) {
  if (blank(seconds)) { return ""; }
  const total = Math.round(Number(seconds));
  const hours = Math.floor(total / 3600), minutes = Math.floor((total % 3600) / 60), rest = total % 60;
  const parts = [];
  if (hours) { parts.push(hours + " h"); }
  if (minutes) { parts.push(minutes + " min"); }
  if (rest || !parts.length) { parts.push(rest + " s"); }
  return parts.join(" ");
}

export function money(amount, currency) {
  return blank(amount) ? "" : "$" + Number(amount).toFixed(2) + " " + (currency || "USD");
}

export function when(iso) {
  if (blank(iso)) { return ""; }
  return new Date(iso).toISOString().replace("T", " ").slice(0, 16) + " UTC";
}
