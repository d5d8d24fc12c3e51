"""The production profile's servers, each a real process on a free loopback port in a temporary folder:
PostgreSQL, Redis and an S3 endpoint (moto in server mode). `python -m tests.production` starts them, runs
the production tests against them, and stops them.

A test may restart PostgreSQL or Redis (`restart_postgres`, `restart_redis`, from the folders the environment names):
the server comes back on the same port as a process of its own, and the runner stops it at the end by its port or
data folder, whoever started it last.
"""

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.processes import free_port, wait_for_port

BUCKET = "hydrata-production-test"
REGION = "ap-southeast-2"
DATABASE = "hydrata"
DATABASE_USER = "hydrata"
APT_PACKAGES = ("postgresql", "redis-server", "slurm-wlm", "munge")
POSTGRES_FOLDER = "HYDRATA_TEST_POSTGRES_FOLDER"
REDIS_FOLDER = "HYDRATA_TEST_REDIS_FOLDER"


def postgres_binaries() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def install_missing_packages() -> None:
    """Debian's packages, with apt, when a server binary is missing (a clean CI machine)."""
    if postgres_binaries() and all(shutil.which(name) for name in ("redis-server", "slurmctld", "slurmd", "munged")):
        return
    prefix = [] if os.geteuid() == 0 else ["sudo", "-n"]
    subprocess.run([*prefix, "apt-get", "update", "-q"], check=True)
    subprocess.run(
        [*prefix, "apt-get", "install", "-y", "-q", *APT_PACKAGES],
        check=True,
        env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"),
    )


def as_server_user(command: list[str]) -> list[str]:
    """initdb and postgres refuse to run as root; as root they run as the packages' postgres user."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@dataclass
class Server:
    name: str
    port: int
    process: subprocess.Popen
    log: Path
    shutdown: list[str] | None = None  # stops the server whoever started it (a test may have restarted it)

    def stop(self) -> None:
        if self.shutdown:
            subprocess.run(self.shutdown, capture_output=True, timeout=60, check=False)
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def spawn(
    name: str, command: list[str], *, port: int, folder: Path, env: dict | None = None, wait: bool = True
) -> Server:
    log = folder / f"{name}.log"
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, env=env, cwd=folder)
    server = Server(name, port, process, log)
    if not wait:
        return server
    try:
        wait_for_port(port, process, name=name)
    except RuntimeError:
        server.stop()
        raise RuntimeError(f"{name} did not start:\n{log.read_text(errors='replace')[-4000:]}") from None
    return server


def start_postgres(folder: Path) -> Server:
    binaries = postgres_binaries()
    if binaries is None:
        raise RuntimeError("PostgreSQL's server binaries are not installed")
    data = folder / "pgdata"
    data.mkdir()
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
        shutil.chown(data, "postgres")
    subprocess.run(
        as_server_user(
            [
                str(binaries / "initdb"),
                "-D",
                str(data),
                "-U",
                DATABASE_USER,
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
            ]
        ),
        check=True,
        stdout=subprocess.DEVNULL,
        cwd=folder,
    )
    port = free_port()
    command = as_server_user([str(binaries / "postgres"), "-D", str(data), *postgres_options(port, folder)])
    server = spawn("postgres", command, port=port, folder=folder)
    server.shutdown = as_server_user([str(binaries / "pg_ctl"), "stop", "-D", str(data), "-m", "fast", "-w"])
    deadline = time.monotonic() + 30
    while True:
        created = subprocess.run(
            [
                str(binaries / "psql"),
                "-h",
                "127.0.0.1",
                "-p",
                str(port),
                "-U",
                DATABASE_USER,
                "-d",
                "postgres",
                "-c",
                f"CREATE DATABASE {DATABASE}",
            ],
            capture_output=True,
            text=True,
        )
        if created.returncode == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.3)  # the socket listens a moment before the server accepts connections
    if created.returncode != 0:
        server.stop()
        raise RuntimeError(f"could not create the database: {created.stderr}")
    return server


def postgres_options(port: int, folder: Path) -> list[str]:
    # Durability is not under test: no fsync keeps migrations and test flushes quick.
    return [
        "-h",
        "127.0.0.1",
        "-p",
        str(port),
        "-k",
        str(folder),
        "-c",
        "fsync=off",
        "-c",
        "synchronous_commit=off",
        "-c",
        "full_page_writes=off",
        "-c",
        "max_connections=200",
    ]


def restart_postgres(*, folder: Path, port: int, down_seconds: float) -> None:
    """A fast shutdown (every session ended, as a restart or a failover does), `down_seconds` with no server, then
    the same server again on the same port, as a process of its own (`pg_ctl start`)."""
    binaries = postgres_binaries()
    assert binaries is not None
    pg_ctl = [str(binaries / "pg_ctl"), "-D", str(folder / "pgdata"), "-w"]
    subprocess.run(as_server_user([*pg_ctl, "stop", "-m", "fast"]), check=True, capture_output=True)
    time.sleep(down_seconds)
    options = " ".join(postgres_options(port, folder))
    log = folder / "postgres-restarted.log"
    subprocess.run(
        as_server_user([*pg_ctl, "start", "-l", str(log), "-o", options]), check=True, capture_output=True, cwd=folder
    )


# No persistence, as a Redis without it (or a failover to an empty replica) comes back from a restart: empty.
def redis_command(port: int, folder: Path) -> list[str]:
    return [
        "redis-server",
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        str(folder),
        "--save",
        "",
        "--appendonly",
        "no",
    ]


def redis_shutdown(port: int) -> list[str]:
    return ["redis-cli", "-p", str(port), "shutdown", "nosave"]


def start_redis(folder: Path) -> Server:
    port = free_port()
    server = spawn("redis", redis_command(port, folder), port=port, folder=folder)
    server.shutdown = redis_shutdown(port)
    return server


def restart_redis(*, folder: Path, port: int, down_seconds: float) -> None:
    """Redis shut down without saving, `down_seconds` with no server, then an empty Redis on the same port, as a
    process of its own: every queued message is gone."""
    subprocess.run(redis_shutdown(port), check=True, capture_output=True)
    time.sleep(down_seconds)
    command = [*redis_command(port, folder), "--daemonize", "yes"]
    subprocess.run([*command, "--logfile", str(folder / "redis-restarted.log")], check=True, cwd=folder)
    deadline = time.monotonic() + 30
    while subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True).returncode != 0:
        assert time.monotonic() < deadline, "Redis did not come back"
        time.sleep(0.1)


def start_s3(folder: Path) -> Server:
    port = free_port()
    server = spawn(
        "s3",
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        port=port,
        folder=folder,
        env=dict(os.environ, **S3_CREDENTIALS),
    )
    import boto3

    boto3.session.Session().client(
        "s3",
        region_name=REGION,
        endpoint_url=f"http://127.0.0.1:{port}",
        **{k.lower(): v for k, v in S3_CREDENTIALS.items() if k != "AWS_DEFAULT_REGION"},
    ).create_bucket(Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": REGION})
    return server


S3_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "production-test",
    "AWS_SECRET_ACCESS_KEY": "production-test-secret",
    "AWS_DEFAULT_REGION": REGION,
}


def profile_environment(*, postgres: Server, redis: Server, s3: Server, slurm: dict[str, str]) -> dict[str, str]:
    """What a deployment sets, pointing at these servers (settings read it: config/settings.py)."""
    return {
        **slurm,
        "HYDRATA_COMPUTE_BACKENDS": "local,slurm",
        "DATABASE_URL": f"postgres://{DATABASE_USER}@127.0.0.1:{postgres.port}/{DATABASE}",
        "CELERY_BROKER_URL": f"redis://127.0.0.1:{redis.port}/0",
        "HYDRATA_CACHE_URL": f"redis://127.0.0.1:{redis.port}/1",
        "HYDRATA_STORAGE_BACKEND": "s3",
        "HYDRATA_S3_BUCKET": BUCKET,
        "HYDRATA_S3_REGION": REGION,
        "HYDRATA_S3_ENDPOINT_URL": f"http://127.0.0.1:{s3.port}",
        **S3_CREDENTIALS,
        # For the tests that restart them (restart_postgres, restart_redis).
        POSTGRES_FOLDER: str(postgres.log.parent),
        REDIS_FOLDER: str(redis.log.parent),
    }


@contextlib.contextmanager
def production_servers() -> Iterator[dict[str, str]]:
    """PostgreSQL, Redis, S3 and a Slurm cluster running; yields the environment that points a deployment at them."""
    from tests.production.slurm_cluster import start_slurm

    install_missing_packages()
    with tempfile.TemporaryDirectory(prefix="hydrata-production-") as scratch:
        root = Path(scratch)
        root.chmod(0o755)  # the postgres user must reach its folder inside
        started: list[Server] = []
        try:
            for name, start in (("postgres", start_postgres), ("redis", start_redis), ("s3", start_s3)):
                folder = root / name
                folder.mkdir()
                started.append(start(folder))
            (root / "slurm" / "munge").mkdir(parents=True)
            cluster, slurm = start_slurm(root / "slurm")
            started += cluster
            yield profile_environment(postgres=started[0], redis=started[1], s3=started[2], slurm=slurm)
        finally:
            for server in reversed(started):
                server.stop()
