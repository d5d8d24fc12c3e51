"""The embedded broker publishes each message whole: a worker polling its folder never takes a message still being
written (kombu 5.7's own transport let it, and the worker stopped with "Unrecoverable error")."""

import json
import subprocess
import sys
import threading
from pathlib import Path

from kombu import Connection

from config.celery import app
from config.filesystem_broker import FilesystemTransport
from tests.processes import ROOT

MESSAGES = 20
# Large enough that writing one takes longer than a consumer's look at the folder.
PAYLOAD = "x" * 2_000_000


def options(folder: Path) -> dict:
    return {
        "data_folder_in": str(folder),
        "data_folder_out": str(folder),
        "store_processed": False,
        "control_folder": str(folder.parent / "control"),
        "polling_interval": 0.001,
    }


def test_the_embedded_broker_is_the_transport_that_publishes_whole_messages(settings):
    assert settings.CELERY_BROKER_URL == "filesystem://"

    with app.connection_for_write() as connection:
        assert isinstance(connection.transport, FilesystemTransport)


# Publishes one message of argv[3] bytes in a process whose files may not grow past half of it (RLIMIT_FSIZE, as a
# full disk or a quota would stop them), and prints what the publisher was told and what the queue folder then holds.
PUBLISH_PAST_A_FILE_SIZE_LIMIT = """
import json, os, resource, signal, sys
from kombu import Connection
from config.filesystem_broker import FilesystemTransport

folder, options, size = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
with Connection("filesystem://", transport=FilesystemTransport, transport_options=options) as connection:
    queue = connection.SimpleQueue("work")
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead of a signal
    resource.setrlimit(resource.RLIMIT_FSIZE, (size // 2, resource.RLIM_INFINITY))
    try:
        queue.put("x" * size)
        told = "published"
    except Exception as failure:
        told = type(failure).__name__
print(json.dumps({"told": told, "folder": sorted(os.listdir(folder))}))
"""


def test_a_message_that_cannot_be_written_whole_is_refused_and_leaves_nothing_a_worker_could_take(tmp_path):
    queue_folder = tmp_path / "queue"
    queue_folder.mkdir()
    completed = subprocess.run(
        [
            sys.executable,
            "-c",
            PUBLISH_PAST_A_FILE_SIZE_LIMIT,
            str(queue_folder),
            json.dumps(options(queue_folder)),
            str(len(PAYLOAD)),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )

    assert json.loads(completed.stdout) == {"told": "ChannelError", "folder": []}


def test_a_consumer_polling_while_large_messages_are_published_receives_every_one_whole(tmp_path):
    transport_options = options(tmp_path / "queue")
    (tmp_path / "queue").mkdir()
    received: list[int] = []
    failures: list[Exception] = []
    # kombu keeps a process's declared bindings in memory and writes each to the control folder once: the
    # publisher's queue, declared on this same process, is routed only once the consumer's declaration is on disk.
    declared = threading.Event()

    def consume() -> None:
        with Connection("filesystem://", transport=FilesystemTransport, transport_options=transport_options) as c:
            queue = c.SimpleQueue("work")
            declared.set()
            while len(received) < MESSAGES:
                try:
                    message = queue.get(timeout=30)
                except Exception as failure:  # a partial message fails to decode here
                    failures.append(failure)
                    return
                received.append(len(message.payload))
                message.ack()

    consumer = threading.Thread(target=consume)
    consumer.start()
    assert declared.wait(timeout=30)
    with Connection("filesystem://", transport=FilesystemTransport, transport_options=transport_options) as c:
        queue = c.SimpleQueue("work")
        for _ in range(MESSAGES):
            if failures:
                break
            queue.put(PAYLOAD)
    consumer.join()

    assert failures == []
    assert received == [len(PAYLOAD)] * MESSAGES
    assert [path.name for path in (tmp_path / "queue").iterdir()] == []  # no partial file is left behind
