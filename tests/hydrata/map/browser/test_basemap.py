"""The background map in a real browser: without HYDRATA_BASEMAP_URL the map says on the map how to add one; set to
a folder of tiles served on this machine (docs/map.md, "Offline basemap"), the map draws those tiles under the CSP
that very setting gives the pages."""

import functools
import http.server
import io
import json
from collections.abc import Iterator

import morecantile
import numpy as np
import pytest
from PIL import Image

from hydrata.anuga.models import Terrain
from tests.browser import http_server, map_pixels, off_the_browser_thread
from tests.config.test_settings import load_settings
from tests.hydrata.map.browser.test_map_panels import open_link

MAGENTA = (255, 0, 255)
POLICY = "import json; from django.conf import settings; print(json.dumps(settings.CONTENT_SECURITY_POLICY))"


def magenta_tile() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (256, 256), MAGENTA).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def tile_server(tmp_path, site) -> Iterator[str]:
    """`python -m http.server --directory <folder>`, in a thread: a folder of z/x/y.png tiles around the terrain."""
    folder = tmp_path / "tiles"
    west, south, east, north = off_the_browser_thread(lambda: Terrain.objects.get(pk=site.terrain_id).bbox_wgs84)
    width, height = east - west, north - south
    around = (west - width, south - height, east + width, north + height)
    tile = magenta_tile()
    for address in morecantile.tms.get("WebMercatorQuad").tiles(*around, zooms=list(range(20))):
        path = folder / str(address.z) / str(address.x) / f"{address.y}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(tile)
    with http_server(functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))) as url:
        yield url


def test_without_a_basemap_the_map_says_how_to_add_one(tab, site, settings):
    settings.HYDRATA_BASEMAP_URL = ""
    open_link(tab, site, site.ui_urls["create_project"] + "?panel=terrain", "terrain")

    notice = tab.page.locator("#map #basemap-notice")
    assert "HYDRATA_BASEMAP_URL" in notice.inner_text()
    assert notice.locator("code").inner_text() == "HYDRATA_BASEMAP_URL"  # text, not markup
    assert tab.foreign_requests() == []


def test_a_folder_of_tiles_served_on_this_machine_is_the_background_map(tab, site, settings, tile_server, tmp_path):
    template = tile_server + "/{z}/{x}/{y}.png"
    loaded = load_settings(tmp_path, script=POLICY, HYDRATA_BASEMAP_URL=template)
    assert loaded.returncode == 0, loaded.stderr
    policy = json.loads(loaded.stdout)
    assert tile_server in policy["DIRECTIVES"]["img-src"]  # the setting's origin, and no other
    settings.HYDRATA_BASEMAP_URL = template
    settings.HYDRATA_BASEMAP_ATTRIBUTION = "Tiles <i>on this machine</i>"
    settings.CONTENT_SECURITY_POLICY = policy

    open_link(tab, site, site.ui_urls["create_project"] + "?panel=terrain", "terrain")
    tab.page.wait_for_function(
        "origin => [...document.querySelectorAll('#map img.leaflet-tile-loaded')].some(i => i.src.startsWith(origin))",
        arg=tile_server,
    )
    tab.page.wait_for_timeout(500)
    tab.screenshot("map-offline-basemap")

    served = [response for response in tab.responses if response.url.startswith(tile_server + "/")]
    assert served and all(response.status == 200 for response in served)
    pixels = map_pixels(tab)
    magenta = (np.abs(pixels - np.array(MAGENTA)).sum(axis=2) < 30).mean()
    assert magenta > 0.05, magenta  # the basemap shows around the terrain's hillshade
    assert tab.page.locator("#basemap-notice").count() == 0
    assert "Tiles <i>on this machine</i>" in tab.page.inner_text(".leaflet-control-attribution")
    # tab's teardown: no Content-Security-Policy violation
