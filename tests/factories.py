"""Factories: the smallest real objects a test needs, made through the same services the product uses."""

import itertools
import json
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import rasterio
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.files import File
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from hydrata.agents.models import AgentGrant
from hydrata.agents.services import account_set_paused, grant_create, grant_revoke
from hydrata.anuga.models import Project, ProjectMembership, Run, Scenario, Terrain
from hydrata.anuga.services.projects import project_create
from hydrata.anuga.services.terrain import terrain_import, terrain_upload_direct
from hydrata.compute.outputs.depth_frames import frames_index
from hydrata.compute.outputs.hazard import hazard_class
from hydrata.compute.outputs.results import write_cog
from hydrata.compute.rasters.grid_codes import WET_DEPTH_M
from hydrata.compute.scenario.package import Grid
from hydrata.storage import get_storage
from hydrata.uploads.models import Dataset, UploadExecution
from hydrata.uploads.services import dataset_import, upload_create
from hydrata_contract.layers import DEPTH_FRAMES_INDEX, depth_frame_filename
from hydrata_contract.states import RunStatus
from tests.data import DEM

_sequence = itertools.count(1)
PASSWORD = "a-long-test-password"


def make_user(username: str | None = None, *, password: str = PASSWORD, **fields) -> User:
    username = username or f"user{next(_sequence)}"
    return get_user_model().objects.create_user(username=username, password=password, **fields)


def sign_in(client: Client, user: User, *, password: str = PASSWORD) -> Client:
    """Sign in on the site's sign-in page, as a person does (not `force_login`): the session then counts as having
    entered the password just now."""
    response = client.post("/accounts/login/", {"username": user.get_username(), "password": password})
    assert response.status_code == 302, response.content
    return client


def make_grant(
    user: User | None = None,
    *,
    level: str = "draft",
    name: str = "test key",
    expires_at: datetime | None = None,
    revoked: bool = False,
    expired: bool = False,
    paused: bool = False,
) -> tuple[AgentGrant, str]:
    user = user or make_user()
    grant, key = grant_create(user=user, name=name, level=level, expires_at=expires_at)
    if revoked:
        grant_revoke(grant=grant)
    if expired:
        AgentGrant.objects.filter(pk=grant.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    if paused:
        account_set_paused(user=user, paused=True)
    return grant, key


def make_project(
    owner: User | None = None,
    *,
    name: str = "Test project",
    projection: str = "EPSG:28356",
    is_public: bool = False,
    members: dict[User, str] | None = None,
) -> Project:
    project = project_create(owner=owner or make_user(), name=name, projection=projection, is_public=is_public)
    for user, role in (members or {}).items():
        ProjectMembership.objects.create(project=project, user=user, role=role)
    return project


def make_ready_terrain(project: Project, *, dem: Path = DEM) -> Terrain:
    """A terrain imported by the real import service (run here, not on a worker)."""
    with dem.open("rb") as stream:
        terrain = terrain_upload_direct(project=project, user=project.owner, uploaded_file=File(stream, dem.name))
    return terrain_import(terrain_id=terrain.pk)


def make_dataset(owner: User, collection: dict | Path, *, name: str = "layer.geojson") -> Dataset:
    """A dataset made by the real upload and import services (the import run here, not on a worker)."""
    body = collection.read_bytes() if isinstance(collection, Path) else json.dumps(collection).encode()
    upload = SimpleUploadedFile(name, body, content_type="application/geo+json")
    execution = upload_create(user=owner, uploaded_file=upload)
    dataset_import(execution_id=execution.pk)  # nothing, when an eager worker already imported it on commit
    execution = UploadExecution.objects.get(pk=execution.pk)
    assert execution.dataset is not None, execution.log
    return execution.dataset


def make_finished_run(
    project: Project,
    *,
    scenario: Scenario | None = None,
    depth: np.ndarray | None = None,
    hazard: np.ndarray | bool | None = None,
    stage_above_ground: float = 0.0,
    frames: dict[float, np.ndarray] | None = None,
    saved_frames: int | None = None,
    run: Run | None = None,
) -> Run:
    """A complete run whose result rasters are written on the terrain's grid by the simulation's own writer.

    A run of `scenario` (which needs a ready terrain), or of a new one on a new terrain. `depth` is the maximum
    depth per DEM cell (default: 1 m over the western half, dry elsewhere); the speed is half the depth and the
    stage is the ground plus the depth. `hazard` is the maximum hazard class per cell, written only when given;
    `True` gives the classes of that depth and speed by the simulation's own classifier. `frames` (time: depth
    per cell) are the depth at saved times, kept of `saved_frames` (default: all of them were kept); without it
    the run is one from before frames were kept. `run`, a built run (with its package), is completed instead of a
    new one."""
    if run is not None:
        scenario = run.scenario
    if scenario is None:
        scenario = Scenario.objects.create(
            project=project, name="finished", terrain=make_ready_terrain(project), resolution=10, duration=60
        )
    terrain = scenario.terrain
    assert terrain is not None, "the scenario needs a terrain"
    if run is None:
        run = Run.objects.create(
            scenario=scenario, status=RunStatus.COMPLETE, resolution=10, duration=60, statistics={}
        )
    run.status = RunStatus.COMPLETE
    storage = get_storage()
    with storage.local_path(key=terrain.dem_key) as dem_path, rasterio.open(dem_path) as dem:
        grid = Grid(crs=dem.crs, transform=dem.transform, width=dem.width, height=dem.height)
        ground = dem.read(1).astype(np.float32)
    if depth is None:
        depth = np.zeros(ground.shape, dtype=np.float32)
        depth[:, : ground.shape[1] // 2] = 1.0
    rasters = {"max_depth": depth, "max_speed": depth / 2, "max_stage": ground + depth + stage_above_ground}
    if hazard is True:
        rasters["max_hazard"] = hazard_class(depth=depth, speed=depth / 2, film_m=WET_DEPTH_M)
    elif isinstance(hazard, np.ndarray):
        rasters["max_hazard"] = hazard
    run.results_prefix = f"runs/{run.pk}/results"
    with tempfile.TemporaryDirectory() as folder:
        for name, values in rasters.items():
            path = Path(folder) / f"{name}.tif"
            write_cog(path, values if values.dtype == np.uint8 else values.astype(np.float32), grid)
            with path.open("rb") as stream:
                storage.save(key=f"{run.results_prefix}/{name}.tif", data=stream)
        if frames is not None:
            _save_depth_frames(run, grid, frames, saved_frames, Path(folder))
    run.statistics = {"peak_depth_m": float(depth.max()), "peak_speed_m_s": float(depth.max() / 2)}
    run.save()
    return run


def _save_depth_frames(run: Run, grid: Grid, frames: dict[float, np.ndarray], saved: int | None, folder: Path) -> None:
    storage = get_storage()
    for number, (_, values) in enumerate(sorted(frames.items())):
        path = folder / depth_frame_filename(number)
        write_cog(path, values.astype(np.float32), grid)
        with path.open("rb") as stream:
            storage.save(key=f"{run.results_prefix}/{path.name}", data=stream)
    index = frames_index(times=sorted(frames), saved=len(frames) if saved is None else saved)
    storage.save(key=f"{run.results_prefix}/{DEPTH_FRAMES_INDEX}", data=json.dumps(index).encode())


def make_computing_run(project: Project, *, silent_for: timedelta, status: str = RunStatus.COMPUTING) -> Run:
    """A run computing on a worker whose last heartbeat was `silent_for` ago (as a worker that was killed leaves
    it: nothing moves it on until the stale-run sweep runs)."""
    scenario = Scenario.objects.create(project=project, name="computing", resolution=10, duration=60)
    return Run.objects.create(
        scenario=scenario,
        status=status,
        resolution=10,
        duration=60,
        started_at=timezone.now() - silent_for - timedelta(seconds=5),
        heartbeat_at=timezone.now() - silent_for,
    )
