import * as dom from "../../map_core/dom.js";
import { terrainStatus } from "../../map_core/contract.js";
import * as kit from "./common.js";

export const title = "Terrain";

export function render(context) {
  var terrains = context.base.terrains;
  if (!terrains.length) {
    context.setState("empty", "This project has no terrain yet. Ask your agent to upload a DEM " +
                     "(presign_terrain_upload, then finalize_terrain_upload).");
    kit.frame(context, [], "terrain");
    return;
  }
  var wanted = context.link.layer;
  var terrain = wanted ? terrains.filter(function (t) { return t.id === wanted; })[0] : context.base.terrain;
  if (!terrain) {
    context.setState("not-found", "Terrain " + wanted + " does not exist in this project, or you cannot see it.");
    return;
  }
  context.body.appendChild(dom.el("h2", { text: "Terrain: " + terrain.title }));
  context.body.appendChild(dom.facts([
    ["Status", terrain.status], ["CRS", terrain.crs + (terrain.reprojected ? " (from " + terrain.native_crs + ")" : "")],
    ["Size", terrain.width ? terrain.width + " × " + terrain.height + " cells" : ""],
    ["Cell size", terrain.resolution ? dom.number(terrain.resolution[0], 3) + " m" : ""],
    ["Elevation", terrain.elevation_min === null ? "" :
      dom.number(terrain.elevation_min, 2) + " to " + dom.number(terrain.elevation_max, 2) + " m"],
    ["No data", terrain.nodata_fraction === null ? "" : dom.number(100 * terrain.nodata_fraction, 2) + " %"],
    ["Source file", terrain.source_filename]
  ]));
  if (terrain.status !== terrainStatus.READY) {
    context.setState(terrain.status === terrainStatus.ERROR ? "error" : "loading", terrain.status === terrainStatus.ERROR
      ? "The import failed: " + terrain.error_message : "The terrain is still being imported; reload in a moment.");
    return;
  }
  context.view.show("terrain-elevation", true);
  context.body.appendChild(dom.el("p", { "class": "hint", text: "The hillshade is lit from the north-west; the " +
    "colours are the elevation, as the legend on the map shows." }));
  context.view.frame(terrain.bbox_wgs84, "terrain:" + terrain.id);
  context.setState("ready", "");
}

