// The Leaflet map of one project: terrain tiles, input features styled by kind, the mesh, result tiles, a legend.
(function (H) {
  "use strict";

  var BOUNDARY_COLOURS = { Reflective: "#4b5563", Transmissive: "#1f6feb", Dirichlet: "#d92d20" };
  var KIND_STYLES = {
    friction: { color: "#2e7d32", weight: 1, fillColor: "#66bb6a", fillOpacity: 0.25 },
    inflow: { color: "#0b5cad", weight: 4 },
    rainfall: { color: "#0e7490", weight: 1, dashArray: "4 3", fillColor: "#67e8f9", fillOpacity: 0.12 },
    structure: { color: "#b45309", weight: 2, fillColor: "#f59e0b", fillOpacity: 0.35 },
    mesh_region: { color: "#7c3aed", weight: 2, dashArray: "6 4", fillOpacity: 0 }
  };
  var KIND_TITLES = { boundary: "Boundary", friction: "Friction", inflow: "Inflow", rainfall: "Rainfall",
                      structure: "Structures", mesh_region: "Mesh regions" };
  var LABELS_UP_TO = 60;  // permanent labels on at most this many features of a layer; hover labels beyond
  var MAX_NATIVE_ZOOM = 20;

  function MapView(element, config) {
    this.element = element;
    this.map = L.map(element, { preferCanvas: true, zoomSnap: 0.25, maxZoom: 22 });
    this.renderer = L.canvas({ padding: 0.3 });
    this.legends = {};
    this.layers = {};
    this.control = H.leafletText.layerControl({ collapsed: false, position: "topright" }).addTo(this.map);
    this.legend = L.control({ position: "bottomright" });
    this.legend.onAdd = function () { return H.dom.el("div", { "class": "legend", id: "map-legend" }); };
    this.legend.addTo(this.map);
    if (config.basemap) {
      H.leafletText.basemap(config, { maxZoom: 22, maxNativeZoom: 19 }).addTo(this.map);
    }
    this.map.setView([0, 0], 2);
    var view = this;
    this.map.on("moveend", function () { view.recordView(); });
    this.map.on("overlayadd overlayremove", function () { view.drawLegend(); });
  }

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
    this.map.fitBounds([[bbox[1], bbox[0]], [bbox[3], bbox[2]]], { padding: [28, 28], animate: false });
    this.element.dataset.framed = label;
    this.recordView();
  };

  MapView.prototype.put = function (name, title, layer, visible, legend) {
    this.remove(name);
    this.layers[name] = layer;
    H.leafletText.overlay(this.control, layer, title);
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
      bounds: bbox ? [[bbox[1], bbox[0]], [bbox[3], bbox[2]]] : undefined, maxZoom: 22,
      maxNativeZoom: MAX_NATIVE_ZOOM, opacity: options.opacity, zIndex: options.zIndex,
      className: "tiles-" + tiled.name
    });
    layer.on("loading", function () { element.dataset["tiles_" + tiled.name] = "loading"; });
    layer.on("load", function () { element.dataset["tiles_" + tiled.name] = "loaded"; });
    var legend = tiled.legend && tiled.legend.length ? { title: tiled.title, units: tiled.units, stops: tiled.legend }
      : null;
    return this.put(key, tiled.title, layer, options.visible, legend);
  };

  MapView.prototype.drawLegend = function () {
    var box = document.getElementById("map-legend");
    if (!box) { return; }
    H.dom.clear(box);
    var view = this;
    Object.keys(this.legends).forEach(function (name) {
      if (!view.map.hasLayer(view.layers[name])) { return; }
      box.appendChild(legendBlock(view.legends[name], name));
    });
    box.hidden = !box.firstChild;
  };

  function legendBlock(legend, name) {
    var stops = legend.stops;
    var gradient = "linear-gradient(to right, " + stops.map(function (stop, index) {
      return stop.colour + " " + Math.round(100 * index / (stops.length - 1)) + "%";
    }).join(", ") + ")";
    var bar = H.dom.el("div", { "class": "legend-ramp" });
    bar.style.background = gradient;
    var labels = H.dom.el("div", { "class": "legend-labels" }, [
      H.dom.el("span", { text: H.dom.number(stops[0].value, 2) }),
      H.dom.el("span", { text: H.dom.number(stops[Math.floor(stops.length / 2)].value, 2) }),
      H.dom.el("span", { text: H.dom.number(stops[stops.length - 1].value, 2) })
    ]);
    var heading = legend.title + (legend.units ? " (" + legend.units + ")" : "");
    return H.dom.el("div", { "class": "legend-block", "data-layer": name }, [
      H.dom.el("div", { "class": "legend-title", text: heading }), bar, labels
    ]);
  }

  // An input row's FeatureCollection (WGS84) drawn by kind, with the labels an engineer checks.
  MapView.prototype.addFeatures = function (row, collection, options) {
    var kind = row.kind;
    var many = collection.features.length > LABELS_UP_TO;
    var layer = L.geoJSON(collection, {
      renderer: this.renderer,
      style: function (feature) { return styleOf(kind, feature, options.highlight); },
      onEachFeature: function (feature, shape) {
        var text = labelOf(kind, feature.properties || {});
        if (text) {
          H.leafletText.tooltip(shape, text, { permanent: !many, direction: "center", className: "feature-label" });
        }
        H.leafletText.popup(shape, propertiesTable(feature.properties || {}));
      }
    });
    var title = (KIND_TITLES[kind] || kind) + ": " + row.title;
    return this.put("input-" + row.id, title, layer, options.visible, null);
  };

  function styleOf(kind, feature, highlight) {
    var style;
    if (kind === "boundary") {
      var properties = feature.properties || {};
      style = { color: BOUNDARY_COLOURS[properties.boundary] || "#6b21a8", weight: 4,
                dashArray: properties.location === "Internal" ? "6 5" : null };
    } else {
      style = Object.assign({}, KIND_STYLES[kind] || { color: "#374151", weight: 2 });
    }
    if (highlight) { style.weight = (style.weight || 2) + 2; }
    return style;
  }

  function labelOf(kind, properties) {
    if (kind === "boundary") { return properties.boundary + (properties.location ? " · " + properties.location : ""); }
    if (kind === "friction") { return "n = " + properties.mannings; }
    if (kind === "inflow") { return "Q = " + flow(properties.data, "m³/s"); }
    if (kind === "rainfall") { return "Rain " + flow(properties.data, "mm/h"); }
    if (kind === "structure") { return properties.method ? "Structure · " + properties.method : "Structure"; }
    if (kind === "mesh_region") {
      return "Mesh " + properties.resolution + " " + (properties.resolution_units || "");
    }
    return "";
  }

  // A number with its units, or the name of the time series that drives it.
  function flow(value, units) {
    return isFinite(Number(value)) && String(value).trim() !== "" ? value + " " + units : "series '" + value + "'";
  }

  function propertiesTable(properties) {
    var rows = Object.keys(properties).map(function (name) {
      return H.dom.el("tr", {}, [H.dom.el("th", { text: name }), H.dom.el("td", { text: properties[name] })]);
    });
    return H.dom.el("table", { "class": "properties" }, [H.dom.el("tbody", {}, rows)]);
  }

  // The scenario's mesh: its outline always, its triangles for the view when the server sends them.
  MapView.prototype.addMesh = function (mesh, visible, onView) {
    var view = this;
    var group = L.layerGroup();
    L.polyline(latLngSegments(mesh.outline), { renderer: this.renderer, color: "#111827", weight: 2 }).addTo(group);
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
          triangles = L.polyline(latLngSegments(answer.edges), { renderer: view.renderer, color: "#374151",
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

  function latLngSegments(segments) {
    return segments.map(function (segment) {
      return segment.map(function (point) { return [point[1], point[0]]; });
    });
  }

  H.MapView = MapView;
  H.kindTitles = KIND_TITLES;
})(window.Hydrata = window.Hydrata || {});
