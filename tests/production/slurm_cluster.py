"""A real one-node Slurm cluster on loopback, from Debian's slurm-wlm: munged, slurmctld and slurmd in the
foreground, in a folder of their own, with a configuration written for it. The run's job goes through the same
sbatch, squeue and scancel a multi-node cluster uses; only the node list is shorter.
"""

import getpass
import os
import socket
import time
from pathlib import Path

from tests.processes import free_port
from tests.production.stack import Server, spawn

PARTITION = "hydrata"
NODE = "node-1"


def start_munge(folder: Path) -> Server:
    """munged with a key of its own, on a socket in the folder (slurm.conf's AuthInfo points there)."""
    folder.chmod(0o700)
    key = folder / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    socket_path = folder / "munge.socket"
    command = [
        "munged",
        "--foreground",
        "--force",
        f"--key-file={key}",
        f"--socket={socket_path}",
        f"--pid-file={folder / 'munged.pid'}",
        f"--log-file={folder / 'munged.log'}",
        f"--seed-file={folder / 'munged.seed'}",
    ]
    server = spawn("munged", command, port=0, folder=folder, wait=False)
    deadline = time.monotonic() + 30
    while not socket_path.exists():
        if server.process.poll() is not None or time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(f"munged did not start:\n{server.log.read_text(errors='replace')[-4000:]}")
        time.sleep(0.1)
    return server


def slurm_conf(folder: Path, *, munge_socket: Path, controller_port: int, node_port: int) -> str:
    spool = folder / "spool"
    (spool / "controller").mkdir(parents=True)
    (spool / "node").mkdir()
    user = getpass.getuser()
    return "\n".join(
        [
            "ClusterName=hydrata-test",
            "SlurmctldHost=localhost(127.0.0.1)",
            f"SlurmctldPort={controller_port}",
            f"SlurmdPort={node_port}",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={munge_socket}",
            f"SlurmUser={user}",
            f"SlurmdUser={user}",
            f"StateSaveLocation={spool / 'controller'}",
            f"SlurmdSpoolDir={spool / 'node'}",
            f"SlurmctldPidFile={folder / 'slurmctld.pid'}",
            f"SlurmdPidFile={folder / 'slurmd.pid'}",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SchedulerType=sched/backfill",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "MpiDefault=none",
            "ReturnToService=2",
            "MinJobAge=3600",  # scontrol remembers an ended job this long (no accounting database here)
            "KillWait=10",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            f"NodeName={NODE} NodeAddr=127.0.0.1 NodeHostname={socket.gethostname()} "
            f"CPUs={os.cpu_count() or 1} State=UNKNOWN",
            f"PartitionName={PARTITION} Nodes={NODE} Default=YES MaxTime=INFINITE State=UP",
            "",
        ]
    )


def start_slurm(folder: Path) -> tuple[list[Server], dict[str, str]]:
    """munged, slurmctld and slurmd; returns them (to stop) and the environment that points Slurm's commands
    and the platform at this cluster."""
    munge = start_munge(folder / "munge")
    controller_port, node_port = free_port(), free_port()
    conf = folder / "slurm.conf"
    conf.write_text(
        slurm_conf(
            folder, munge_socket=folder / "munge" / "munge.socket", controller_port=controller_port, node_port=node_port
        )
    )
    env = dict(os.environ, SLURM_CONF=str(conf))
    started = [munge]
    try:
        started.append(spawn("slurmctld", ["slurmctld", "-D", "-i"], port=controller_port, folder=folder, env=env))
        started.append(spawn("slurmd", ["slurmd", "-D", "-N", NODE], port=node_port, folder=folder, env=env))
    except RuntimeError:
        for server in reversed(started):
            server.stop()
        raise
    return started, {"SLURM_CONF": str(conf), "HYDRATA_SLURM_PARTITION": PARTITION}
