// WGS84 as the API gives it ([lon, lat], bboxes [west, south, east, north]) turned into Leaflet's [lat, lon].

export function boundsOf(bbox) {
  return [[bbox[1], bbox[0]], [bbox[3], bbox[2]]];
}

export function latLngs(line) {
  return line.map(function (point) { return [point[1], point[0]]; });
}
