// The Leaflet map of one project: terrain tiles, input features styled by kind, the mesh, result tiles, a legend.
import * as dom from "../map_core/dom.js";
import { boundsOf, latLngs } from "../map_core/geo.js";
import { legendBlock } from "../map_core/legend.js";
import * as leafletText from "../map_core/leaflet_text.js";
import { labelOf, OUTLINE_COLOUR, styleOf, titleOf } from "../map_core/styles.js";

var LABELS_UP_TO = 60;  // permanent labels on at most this many features of a layer; hover labels beyond
var MAX_NATIVE_ZOOM = 20;

export function MapView(element, config) {
  this.element = element;
  this.map = L.map(element, { preferCanvas: true, zoomSnap: 0.25, maxZoom: 22 });
  this.renderer = L.canvas({ padding: 0.3 });
  this.legends = {};
  this.layers = {};
  this.switches = {};
  this.control = leafletText.layerControl({ collapsed: false, position: "topright" }).addTo(this.map);
  this.legend = L.control({ position: "bottomright" });
  this.legend.onAdd = function () { return dom.el("div", { "class": "legend", id: "map-legend" }); };
  this.legend.addTo(this.map);
  if (config.basemap) {
    leafletText.basemap(config, { maxZoom: 22, maxNativeZoom: 19 }).addTo(this.map);
  } else {
    noBasemapNotice().addTo(this.map);
  }
  this.map.setView([0, 0], 2);
  var view = this;
  this.map.on("moveend", function () { view.recordView(); });
  var pending = null;
  var keep = function () {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(function () { view.keepLabelsInside(); });
  };
  this.map.on("moveend zoomend resize layeradd", keep);
}

// Leaflet places a permanent label at its feature, so a label of a feature near the map's edge would run out of the
// map and be cut by it: move each such label (its offset) back inside, wholly where it fits, after every change of
// view and every layer added. A label whose feature is out of view stays with it.
MapView.prototype.keepLabelsInside = function () {
  var map = this.map;
  var box = this.element.getBoundingClientRect();
  var size = map.getSize();
  var placed = 0;
  map.eachLayer(function (layer) {
    var label = layer.getTooltip && layer.getTooltip();
    if (!label || !label.options.permanent || !layer.isTooltipOpen() || !label.getElement()) { return; }
    if (!label.ownOffset) { label.ownOffset = L.point(label.options.offset); }
    label.options.offset = label.ownOffset;
    label.update();
    var anchor = map.latLngToContainerPoint(label.getLatLng());
    if (anchor.x < 0 || anchor.y < 0 || anchor.x > size.x || anchor.y > size.y) { return; }
    var edges = label.getElement().getBoundingClientRect();
    var right = Math.max(0, edges.right - box.right), left = Math.max(0, box.left - edges.left);
    var bottom = Math.max(0, edges.bottom - box.bottom), top = Math.max(0, box.top - edges.top);
    if (left || right || top || bottom) {
      label.options.offset = label.ownOffset.add([left > 0 ? left : -right, top > 0 ? top : -bottom]);
      label.update();
      placed += 1;
    }
  });
  this.element.dataset.labelsMoved = String(placed);
};

// Without a background map the terrain's hillshade lies on flat grey: say on the map how to add one.
function noBasemapNotice() {
  var notice = L.control({ position: "bottomleft" });
  notice.onAdd = function () {
    return dom.el("div", { "class": "map-notice", id: "basemap-notice" }, [
      "No background map. To add one, start the site with ", dom.el("code", { text: "HYDRATA_BASEMAP_URL" }),
      " set to an XYZ tile server's template (…/{z}/{x}/{y}.png), or serve a folder of tiles on this machine " +
      "(docs/map.md, \"Offline basemap\")."
    ]);
  };
  return notice;
}

// A panel's checkbox for the layer `name`: it turns the layer on and off, and shows whether the map has it.
MapView.prototype.bindSwitch = function (name, box) {
  var view = this;
  this.switches[name] = box;
  box.checked = this.isShown(name);
  box.addEventListener("change", function () { view.show(name, box.checked); });
};

MapView.prototype.isShown = function (name) {
  return Boolean(this.layers[name]) && this.map.hasLayer(this.layers[name]);
};

MapView.prototype.toggled = function () {
  this.drawLegend();
  this.syncSwitches();
};

MapView.prototype.syncSwitches = function () {
  var view = this;
  Object.keys(this.switches).forEach(function (name) {
    view.switches[name].checked = view.isShown(name);
  });
};

MapView.prototype.recordView = function () {
  var bounds = this.map.getBounds();
  this.element.dataset.bounds = JSON.stringify([bounds.getWest(), bounds.getSouth(), bounds.getEast(),
                                                bounds.getNorth()]);
  this.element.dataset.zoom = String(this.map.getZoom());
};

// Fit the map to a WGS84 bbox [west, south, east, north] and say what is framed.
MapView.prototype.frame = function (bbox, label) {
  if (!bbox) { return; }
  this.map.invalidateSize();
  this.map.fitBounds(boundsOf(bbox), { padding: [28, 28], animate: false });
  this.element.dataset.framed = label;
  this.recordView();
};

MapView.prototype.put = function (name, title, layer, visible, legend) {
  this.remove(name);
  this.layers[name] = layer;
  // Whatever turns the layer on or off (the layer control, a panel's switch, a panel change), the legend and every
  // switch follow the map: whether the map has the layer is the one answer to "is it on".
  layer.on("add remove", this.toggled, this);
  leafletText.overlay(this.control, layer, title);
  if (legend) { this.legends[name] = legend; }
  if (visible) { layer.addTo(this.map); }
  this.drawLegend();
  return layer;
};

MapView.prototype.remove = function (name) {
  var layer = this.layers[name];
  if (!layer) { return; }
  this.control.removeLayer(layer);
  this.map.removeLayer(layer);
  delete this.layers[name];
  delete this.legends[name];
  this.drawLegend();
};

MapView.prototype.show = function (name, visible) {
  var layer = this.layers[name];
  if (layer && visible && !this.map.hasLayer(layer)) { layer.addTo(this.map); }
  if (layer && !visible && this.map.hasLayer(layer)) { this.map.removeLayer(layer); }
  this.drawLegend();
};

// Tiles from one of the platform's tile indexes ({name, title, units, tiles, legend}), kept inside bbox.
MapView.prototype.addTiles = function (key, tiled, bbox, options) {
  var element = this.element;
  var layer = L.tileLayer(tiled.tiles, {
    bounds: bbox ? boundsOf(bbox) : undefined, maxZoom: 22,
    maxNativeZoom: MAX_NATIVE_ZOOM, opacity: options.opacity, zIndex: options.zIndex,
    className: "tiles-" + tiled.name
  });
  layer.on("loading", function () { element.dataset["tiles_" + tiled.name] = "loading"; });
  layer.on("load", function () { element.dataset["tiles_" + tiled.name] = "loaded"; });
  var legend = tiled.legend && tiled.legend.length ? { name: tiled.name, title: tiled.title, units: tiled.units,
                                                       stops: tiled.legend } : null;
  return this.put(key, tiled.title, layer, options.visible, legend);
};

MapView.prototype.drawLegend = function () {
  var box = document.getElementById("map-legend");
  if (!box) { return; }
  dom.clear(box);
  var view = this;
  Object.keys(this.legends).forEach(function (name) {
    if (!view.map.hasLayer(view.layers[name])) { return; }
    box.appendChild(legendBlock(view.legends[name], { "data-layer": name }));
  });
  box.hidden = !box.firstChild;
};

// An input row's FeatureCollection (WGS84) drawn by kind, with the labels an engineer checks.
MapView.prototype.addFeatures = function (row, collection, options) {
  var kind = row.kind;
  var many = collection.features.length > LABELS_UP_TO;
  var layer = L.geoJSON(collection, {
    renderer: this.renderer,
    style: function (feature) { return styleOf(kind, feature.properties || {}, options.highlight); },
    onEachFeature: function (feature, shape) {
      var text = labelOf(kind, feature.properties || {});
      if (text) {
        leafletText.tooltip(shape, text, { permanent: !many, direction: "center", className: "feature-label" });
      }
      leafletText.popup(shape, propertiesTable(feature.properties || {}));
    }
  });
  var title = titleOf(kind) + ": " + row.title;
  return this.put("input-" + row.id, title, layer, options.visible, null);
};

function propertiesTable(properties) {
  var rows = Object.keys(properties).map(function (name) {
    return dom.el("tr", {}, [dom.el("th", { text: name }), dom.el("td", { text: properties[name] })]);
  });
  return dom.el("table", { "class": "properties" }, [dom.el("tbody", {}, rows)]);
}

// Observation points (a GeoJSON FeatureCollection in WGS84), each drawn and labelled as `describe(feature)` says:
// {text, colour, radius}. Labelled permanently up to LABELS_UP_TO points, on hover beyond.
MapView.prototype.addPoints = function (key, title, collection, describe) {
  var many = collection.features.length > LABELS_UP_TO;
  var layer = L.geoJSON(collection, {
    pointToLayer: function (feature, latlng) {
      var look = describe(feature);
      return L.circleMarker(latlng, { renderer: this.renderer, radius: look.radius, color: OUTLINE_COLOUR,
                                      weight: 1, fillColor: look.colour, fillOpacity: 0.9 });
    }.bind(this),
    onEachFeature: function (feature, shape) {
      leafletText.tooltip(shape, describe(feature).text, { permanent: !many, direction: "top",
                                                            className: "observation-label" });
    }
  });
  this.element.dataset.points = String(collection.features.length);
  return this.put(key, title, layer, true, null);
};

// The scenario's mesh: its outline always, its triangles for the view when the server sends them.
MapView.prototype.addMesh = function (mesh, visible, onView) {
  var view = this;
  var group = L.layerGroup();
  L.polyline(mesh.outline.map(latLngs), { renderer: this.renderer, color: OUTLINE_COLOUR, weight: 2 }).addTo(group);
  var triangles = null;
  var timer = null;
  function moved() { clearTimeout(timer); timer = setTimeout(refresh, 200); }
  function refresh() {
    if (!view.map.hasLayer(group)) { return; }
    var bounds = view.map.getBounds();
    onView([bounds.getWest(), bounds.getSouth(), bounds.getEast(), bounds.getNorth()]).then(function (answer) {
      if (!answer) { return; }
      if (triangles) { group.removeLayer(triangles); triangles = null; }
      if (!answer.truncated && answer.edges.length) {
        triangles = L.polyline(answer.edges.map(latLngs), { renderer: view.renderer, color: "#374151",
                                                               weight: 0.6, opacity: 0.8 });
        group.addLayer(triangles);
      }
      view.element.dataset.meshView = answer.truncated ? "outline" : "triangles";
    });
  }
  group.on("add", function () { view.map.on("moveend", moved); refresh(); });
  group.on("remove", function () { view.map.off("moveend", moved); clearTimeout(timer); });
  return this.put("mesh", "Mesh", group, visible, null);
};

