// Plain SVG charts: a time series as the model applies it (bars over intervals, or a line), labelled bars (areas per band), and box
// plots (an ensemble's spread per category).
import { number } from "../map_core/dom.js";

var SVG = "http://www.w3.org/2000/svg";
var WIDTH = 420, HEIGHT = 220, LEFT = 56, RIGHT = 12, TOP = 14, BOTTOM = 40;

function svg(tag, attributes, text) {
  var node = document.createElementNS(SVG, tag);
  Object.keys(attributes).forEach(function (name) { node.setAttribute(name, String(attributes[name])); });
  if (text !== undefined) { node.textContent = text; }
  return node;
}

function frame(label) {
  var root = svg("svg", { viewBox: "0 0 " + WIDTH + " " + HEIGHT, role: "img", "aria-label": label, "class": "chart" });
  root.appendChild(svg("title", {}, label));
  return root;
}

function ticks(low, high, count) {
  if (high <= low) { high = low + 1; }
  var step = Math.pow(10, Math.floor(Math.log10((high - low) / count)));
  [1, 2, 5, 10].some(function (factor) {
    if ((high - low) / (step * factor) <= count) { step *= factor; return true; }
    return false;
  });
  var values = [];
  for (var value = Math.ceil(low / step) * step; value <= high + step * 1e-9; value += step) {
    values.push(Number(value.toPrecision(12)));
  }
  return values;
}

function axes(root, x, y, yTicks, xTicks, yLabel, xLabel) {
  root.appendChild(svg("line", { x1: LEFT, y1: TOP, x2: LEFT, y2: HEIGHT - BOTTOM, "class": "axis" }));
  root.appendChild(svg("line", { x1: LEFT, y1: HEIGHT - BOTTOM, x2: WIDTH - RIGHT, y2: HEIGHT - BOTTOM,
                                 "class": "axis" }));
  yTicks.forEach(function (value) {
    root.appendChild(svg("line", { x1: LEFT - 4, y1: y(value), x2: WIDTH - RIGHT, y2: y(value), "class": "grid" }));
    root.appendChild(svg("text", { x: LEFT - 6, y: y(value) + 4, "text-anchor": "end", "class": "tick" },
                         number(value, 3)));
  });
  xTicks.forEach(function (tick) {
    root.appendChild(svg("text", { x: x(tick.value), y: HEIGHT - BOTTOM + 14, "text-anchor": "middle",
                                   "class": "tick" }, tick.label));
  });
  root.appendChild(svg("text", { x: 12, y: TOP + (HEIGHT - TOP - BOTTOM) / 2, "text-anchor": "middle",
                                 transform: "rotate(-90 12 " + (TOP + (HEIGHT - TOP - BOTTOM) / 2) + ")",
                                 "class": "axis-label" }, yLabel));
  root.appendChild(svg("text", { x: LEFT + (WIDTH - LEFT - RIGHT) / 2, y: HEIGHT - 6, "text-anchor": "middle",
                                 "class": "axis-label" }, xLabel));
}

// rows: [{timestamp, value}], drawn as the model applies them (hydrata/compute/series_units.py): with
// `options.ending`, each row's value holds over the interval that ends at its row (rain in mm per interval: a bar from
// the row before it to the row; a first row of rain covers an interval as long as the second's, ending at it);
// otherwise linear between rows (an intensity in mm/hr, a flow, a level, cumulative rain), filled under the line
// with `options.area`. Time runs in hours from the first row.
export function timeSeries(rows, options) {
  var root = frame(options.title);
  var start = Date.parse(rows[0].timestamp);
  var points = rows.map(function (row) {
    return { t: (Date.parse(row.timestamp) - start) / 3600000, v: Number(row.value) };
  });
  var ending = Boolean(options.ending) && points.length > 1;
  var begin = ending && points[0].v !== 0 ? points[0].t - (points[1].t - points[0].t) : 0;
  var end = Math.max(points[points.length - 1].t, begin + 1e-6);
  var top = Math.max.apply(null, points.map(function (p) { return p.v; }).concat([0]));
  var bottom = Math.min.apply(null, points.map(function (p) { return p.v; }).concat([0]));
  var yTicks = ticks(bottom, top, 5);
  var low = Math.min(bottom, yTicks[0]), high = Math.max(top, yTicks[yTicks.length - 1]);
  var x = function (t) { return LEFT + ((t - begin) / (end - begin)) * (WIDTH - LEFT - RIGHT); };
  var y = function (v) { return HEIGHT - BOTTOM - ((v - low) / (high - low || 1)) * (HEIGHT - TOP - BOTTOM); };
  var xTicks = ticks(begin, end, 6).map(function (t) { return { value: t, label: number(t, 2) }; });
  axes(root, x, y, yTicks, xTicks, options.units, "hours from " + rows[0].timestamp.replace("T", " "));
  if (ending) {
    points.forEach(function (p, index) {
      var from = index ? points[index - 1].t : begin;
      if (from === p.t) { return; }  // a first row of 0 only marks where the series starts
      root.appendChild(svg("rect", { x: x(from), y: y(Math.max(p.v, 0)), width: x(p.t) - x(from),
                                     height: Math.abs(y(0) - y(p.v)), "class": "bar", "data-row": index }));
    });
    return root;
  }
  var path = points.map(function (p, i) { return (i ? "L" : "M") + x(p.t).toFixed(1) + " " + y(p.v).toFixed(1); });
  if (options.area) {
    var closed = path.concat(["L" + x(end).toFixed(1) + " " + y(0).toFixed(1),
                              "L" + x(points[0].t).toFixed(1) + " " + y(0).toFixed(1), "Z"]);
    root.appendChild(svg("path", { d: closed.join(" "), "class": "area" }));
  }
  root.appendChild(svg("path", { d: path.join(" "), "class": "line" }));
  return root;
}

// bars: [{label, value}] drawn side by side with their labels under them.
export function bars(items, options) {
  var root = frame(options.title);
  var top = Math.max.apply(null, items.map(function (item) { return item.value; }).concat([0]));
  var yTicks = ticks(0, top, 4);
  var high = Math.max(top, yTicks[yTicks.length - 1]) || 1;
  var slot = (WIDTH - LEFT - RIGHT) / items.length;
  var x = function (index) { return LEFT + slot * (index + 0.5); };
  var y = function (v) { return HEIGHT - BOTTOM - (v / high) * (HEIGHT - TOP - BOTTOM); };
  axes(root, x, y, yTicks, items.map(function (item, index) { return { value: index, label: item.label }; }),
       options.units, options.xLabel);
  items.forEach(function (item, index) {
    root.appendChild(svg("rect", { x: x(index) - slot * 0.35, y: y(item.value), width: slot * 0.7,
                                   height: y(0) - y(item.value), "class": "bar" }));
  });
  return root;
}

// points: [{x, y}] in numbers (a null y is left out), as a line; guides: y values drawn as dashed lines, always
// in range (a ±1 % healthy band stays visible around an error far smaller than it); fromZero: false lets the
// y axis start near the lowest value (a water level hundreds of metres up).
export function line(points, options) {
  var root = frame(options.title);
  var shown = points.filter(function (p) { return p.y !== null && p.y !== undefined && isFinite(p.y); });
  var guides = options.guides || [];
  var values = shown.map(function (p) { return p.y; }).concat(guides, options.fromZero === false ? [] : [0]);
  var xs = points.map(function (p) { return p.x; }).concat([0]);
  var end = Math.max(Math.max.apply(null, xs), 1e-6);
  var yTicks = ticks(Math.min.apply(null, values), Math.max.apply(null, values), 5);
  var low = Math.min(Math.min.apply(null, values), yTicks[0]);
  var high = Math.max(Math.max.apply(null, values), yTicks[yTicks.length - 1]);
  var x = function (t) { return LEFT + (t / end) * (WIDTH - LEFT - RIGHT); };
  var y = function (v) { return HEIGHT - BOTTOM - ((v - low) / (high - low || 1)) * (HEIGHT - TOP - BOTTOM); };
  var xTicks = ticks(0, end, 6).map(function (t) { return { value: t, label: number(t, 2) }; });
  axes(root, x, y, yTicks, xTicks, options.units, options.xLabel);
  guides.forEach(function (value) {
    root.appendChild(svg("line", { x1: LEFT, y1: y(value), x2: WIDTH - RIGHT, y2: y(value), "class": "guide" }));
  });
  if (shown.length) {
    var path = shown.map(function (p, i) { return (i ? "L" : "M") + x(p.x).toFixed(1) + " " + y(p.y).toFixed(1); });
    root.appendChild(svg("path", { d: path.join(" "), "class": "line" }));
  }
  return root;
}


// The spread of an ensemble per category (a study's pattern peaks per storm duration), one box each: the whisker
// from min to max, the box from the lower to the upper quartile with the median across it, the central value (the
// study's median or mean) as a dot, and a highlighted box (the critical duration). items: [{label, min, q1, median,
// q3, max, central, highlight, data}], `data` written on the box's group as data-* attributes.
export function boxes(items, options) {
  var root = frame(options.title);
  var values = [0];
  items.forEach(function (item) { values.push(item.min, item.max); });
  var yTicks = ticks(Math.min.apply(null, values), Math.max.apply(null, values), 5);
  var low = Math.min(Math.min.apply(null, values), yTicks[0]);
  var high = Math.max(Math.max.apply(null, values), yTicks[yTicks.length - 1]);
  var slot = (WIDTH - LEFT - RIGHT) / Math.max(1, items.length);
  var x = function (index) { return LEFT + slot * (index + 0.5); };
  var y = function (v) { return HEIGHT - BOTTOM - ((v - low) / (high - low || 1)) * (HEIGHT - TOP - BOTTOM); };
  axes(root, x, y, yTicks, items.map(function (item, index) { return { value: index, label: item.label }; }),
       options.units, options.xLabel);
  items.forEach(function (item, index) {
    var group = svg("g", { "class": item.highlight ? "box critical" : "box" });
    Object.keys(item.data || {}).forEach(function (name) {
      group.setAttribute("data-" + name, String(item.data[name]));
    });
    var middle = x(index), half = Math.min(slot * 0.3, 18);
    group.appendChild(svg("title", {}, item.title || item.label));
    group.appendChild(svg("line", { x1: middle, y1: y(item.min), x2: middle, y2: y(item.max), "class": "whisker" }));
    [item.min, item.max].forEach(function (end) {
      group.appendChild(svg("line", { x1: middle - half / 2, y1: y(end), x2: middle + half / 2, y2: y(end),
                                      "class": "whisker" }));
    });
    group.appendChild(svg("rect", { x: middle - half, y: y(item.q3), width: 2 * half,
                                    height: Math.max(1, y(item.q1) - y(item.q3)), "class": "quartiles" }));
    group.appendChild(svg("line", { x1: middle - half, y1: y(item.median), x2: middle + half, y2: y(item.median),
                                    "class": "median" }));
    if (item.central !== null && item.central !== undefined) {
      group.appendChild(svg("circle", { cx: middle, cy: y(item.central), r: 3.5, "class": "central" }));
    }
    root.appendChild(group);
  });
  return root;
}

// A scatter of numbers (a calibration's members' objectives by index, or Morris's mu* against sigma): each point a
// circle with its `title` as a tooltip and `data` as data-* attributes, a `label` written beside it when given;
// `options.line` ([{x, y}]) is drawn through as a step line (a running best). Both axes start at zero or below.
export function scatter(points, options) {
  var root = frame(options.title);
  var line = options.line || [];
  var xs = points.map(function (p) { return p.x; }).concat(line.map(function (p) { return p.x; }), [0]);
  var ys = points.map(function (p) { return p.y; }).concat(line.map(function (p) { return p.y; }), [0]);
  var xTicks = ticks(Math.min.apply(null, xs), Math.max.apply(null, xs), 6);
  var yTicks = ticks(Math.min.apply(null, ys), Math.max.apply(null, ys), 5);
  var left = Math.min(Math.min.apply(null, xs), xTicks[0]);
  var right = Math.max(Math.max.apply(null, xs), xTicks[xTicks.length - 1]);
  right += (right - left) * 0.04;  // a point at the largest x stays whole inside the frame
  var low = Math.min(Math.min.apply(null, ys), yTicks[0]);
  var high = Math.max(Math.max.apply(null, ys), yTicks[yTicks.length - 1]);
  var x = function (v) { return LEFT + ((v - left) / (right - left || 1)) * (WIDTH - LEFT - RIGHT); };
  var y = function (v) { return HEIGHT - BOTTOM - ((v - low) / (high - low || 1)) * (HEIGHT - TOP - BOTTOM); };
  axes(root, x, y, yTicks, xTicks.map(function (t) { return { value: t, label: number(t, 3) }; }),
       options.yLabel, options.xLabel);
  if (line.length) {
    var path = line.map(function (p, i) {
      var step = i ? "L" + x(p.x).toFixed(1) + " " + y(line[i - 1].y).toFixed(1) + " " : "";
      return step + (i ? "L" : "M") + x(p.x).toFixed(1) + " " + y(p.y).toFixed(1);
    });
    root.appendChild(svg("path", { d: path.join(" "), "class": "line running" }));
  }
  points.forEach(function (p) {
    var group = svg("g", { "class": "point" + (p.highlight ? " highlight" : "") });
    Object.keys(p.data || {}).forEach(function (name) { group.setAttribute("data-" + name, String(p.data[name])); });
    group.appendChild(svg("title", {}, p.title || ""));
    group.appendChild(svg("circle", { cx: x(p.x), cy: y(p.y), r: 4 }));
    if (p.label) {  // right of its point, or left of it in the chart's right half
      var leftward = x(p.x) > LEFT + (WIDTH - LEFT - RIGHT) / 2;
      group.appendChild(svg("text", { x: x(p.x) + (leftward ? -6 : 6), y: y(p.y) - 5, "class": "point-label",
                                      "text-anchor": leftward ? "end" : "start" }, p.label));
    }
    root.appendChild(group);
  });
  return root;
}
