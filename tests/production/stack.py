"""The production profile's servers, each a real process on a free loopback port in a temporary folder:
PostgreSQL, Redis and an S3 endpoint (moto in server mode). `python -m tests.production` starts them, runs
the production tests against them, and stops them.
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

    def stop(self) -> None:
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
    # Durability is not under test: no fsync keeps migrations and test flushes quick.
    command = as_server_user(
        [
            str(binaries / "postgres"),
            "-D",
            str(data),
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
    )
    server = spawn("postgres", command, port=port, folder=folder)
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


def start_redis(folder: Path) -> Server:
    port = free_port()
    return spawn(
        "redis",
        [
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
        ],
        port=port,
        folder=folder,
    )


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
