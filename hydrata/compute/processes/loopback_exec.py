"""Bring a fresh network namespace's loopback up, then become the command given: `unshare --user --map-root-user
--net -- python -m hydrata.compute.processes.loopback_exec mpiexec ...` runs a multi-rank run where loopback is the only
interface, so nothing of it (Hydra's control port binds every interface, and has no option not to) can be reached
from another machine. Standard library only: it runs before anything else is imported."""

import fcntl
import os
import socket
import struct
import sys

SIOCSIFFLAGS = 0x8914  # <linux/sockios.h>
IFF_UP, IFF_LOOPBACK, IFF_RUNNING = 0x1, 0x8, 0x40  # <net/if.h>


def loopback_up() -> None:
    """`ip link set lo up`, by the ioctl it makes (a new namespace's loopback starts down)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as handle:
        fcntl.ioctl(handle, SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", IFF_UP | IFF_LOOPBACK | IFF_RUNNING))


def main(argv: list[str]) -> None:
    if not argv:
        sys.exit("usage: python -m hydrata.compute.processes.loopback_exec COMMAND [ARGUMENT ...]")
    loopback_up()
    os.execvp(argv[0], argv)  # noqa: S606  # the same process: the worker's signals and limits reach the command as before


if __name__ == "__main__":
    main(sys.argv[1:])
