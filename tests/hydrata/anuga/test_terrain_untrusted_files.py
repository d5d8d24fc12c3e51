"""Hostile terrain files through the real path (presign, PUT, finalize, the import task): files that would make
GDAL fetch a URL from the worker, and tiny files that declare an enormous grid."""

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import rasterio
from rasterio.transform import Affine

from hydrata.anuga.models import InputLayer
from tests.factories import make_project, make_user
from tests.hydrata.anuga.test_terrain_api import api_for, terrain_read, upload_terrain

pytestmark = pytest.mark.django_db(transaction=True)


class Listener:
    """A TCP server on a free loopback port that records every connection made to it."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.received: list[bytes] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopping.is_set():
            try:
                connection, _ = self.sock.accept()
            except TimeoutError:
                continue
            with connection:
                connection.settimeout(1)
                try:
                    self.received.append(connection.recv(4096) or b"(connected, sent nothing)")
                except OSError:
                    self.received.append(b"(connected)")

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=5)
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    yield server
    server.stop()


def wmts(url: str) -> str:
    return f"<GDAL_WMTS><GetCapabilitiesUrl>{url}/capabilities</GetCapabilitiesUrl></GDAL_WMTS>"


def wms(url: str) -> str:
    return (
        f'<GDAL_WMS><Service name="WMS"><ServerUrl>{url}/wms?</ServerUrl><Layers>dem</Layers></Service>'
        "<DataWindow><UpperLeftX>151</UpperLeftX><UpperLeftY>-33</UpperLeftY><LowerRightX>152</LowerRightX>"
        "<LowerRightY>-34</LowerRightY><SizeX>256</SizeX><SizeY>256</SizeY></DataWindow>"
        "<Projection>EPSG:4326</Projection><BlockSizeX>256</BlockSizeX><BlockSizeY>256</BlockSizeY></GDAL_WMS>"
    )


def vrt_of_a_remote_file(url: str) -> str:
    return (
        '<VRTDataset rasterXSize="256" rasterYSize="256"><SRS>EPSG:28356</SRS>'
        '<GeoTransform>251000, 1, 0, 6272000, 0, -1</GeoTransform><VRTRasterBand dataType="Float32" band="1">'
        f"<SimpleSource><SourceFilename>/vsicurl/{url}/dem.tif</SourceFilename><SourceBand>1</SourceBand>"
        "</SimpleSource></VRTRasterBand></VRTDataset>"
    )


def sparse_geotiff(path: Path, *, width: int, height: int) -> bytes:
    """A real tiled GeoTIFF declaring width x height pixels, with one block written: a few KB on disk."""
    block = 4096
    profile = {
        "driver": "GTiff",
        "width": width,
        "height": height,
        "count": 1,
        "dtype": "float32",
        "crs": "EPSG:28356",
        "transform": Affine(1, 0, 251000, 0, -1, 6272000),
        "nodata": -9999.0,
        "tiled": True,
        "blockxsize": block,
        "blockysize": block,
        "compress": "deflate",
        "sparse_ok": True,
    }
    with rasterio.open(path, "w", **profile) as dst:
        dst.write(np.full((block, block), 10.0, dtype="float32"), 1, window=((0, block), (0, block)))
    with rasterio.open(path) as check:
        assert (check.width, check.height) == (width, height)
    return path.read_bytes()


@pytest.mark.parametrize("describe", [wmts, wms, vrt_of_a_remote_file], ids=["wmts", "wms", "vrt-vsicurl"])
def test_a_terrain_file_naming_a_url_is_refused_as_not_a_geotiff_and_the_worker_fetches_nothing(listener, describe):
    user = make_user()
    client = api_for(user)
    project = make_project(user)
    document = describe(f"http://127.0.0.1:{listener.port}").encode()

    terrain = terrain_read(client, project.pk, upload_terrain(client, project.pk, document)["id"])
    time.sleep(0.3)  # a request GDAL had sent would have been accepted by now

    assert listener.received == []
    assert terrain["status"] == "error"
    assert terrain["error_message"].startswith("TERRAIN_NOT_GEOTIFF: ") and "GeoTIFF" in terrain["error_message"]
    assert not InputLayer.objects.filter(project=project).exists()


def test_a_tiny_sparse_geotiff_declaring_200000_by_200000_pixels_is_refused_before_any_pixel_is_read(tmp_path):
    user = make_user()
    client = api_for(user)
    project = make_project(user)
    bomb = sparse_geotiff(tmp_path / "bomb.tif", width=200_000, height=200_000)
    assert len(bomb) < 100_000

    started = time.monotonic()
    terrain = terrain_read(client, project.pk, upload_terrain(client, project.pk, bomb)["id"])

    assert time.monotonic() - started < 20  # reading the grid would take many minutes
    assert terrain["status"] == "error"
    message = terrain["error_message"]
    assert message.startswith("TERRAIN_TOO_MANY_PIXELS: ") and "200,000 x 200,000" in message
    assert "3,000,000,000" in message  # the default ceiling, named
    assert not InputLayer.objects.filter(project=project).exists()


def test_a_grid_whose_working_copy_would_not_fit_on_the_disk_is_refused_before_any_pixel_is_read(tmp_path, settings):
    settings.HYDRATA_TERRAIN_MAX_PIXELS = 10**13  # the pixel ceiling out of the way: the disk check alone refuses
    user = make_user()
    client = api_for(user)
    project = make_project(user)
    bomb = sparse_geotiff(tmp_path / "bomb.tif", width=1_000_000, height=1_000_000)  # 4 TB as float32

    started = time.monotonic()
    terrain = terrain_read(client, project.pk, upload_terrain(client, project.pk, bomb)["id"])

    assert time.monotonic() - started < 20
    assert terrain["status"] == "error"
    assert terrain["error_message"].startswith("TERRAIN_NO_DISK_SPACE: ")
    assert "GiB of working disk space" in terrain["error_message"]
