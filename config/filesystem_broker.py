"""kombu's filesystem transport (the embedded broker), with each message published whole.

kombu 5.7 creates a message's file under its final `*.msg` name and only then writes to it. A worker listing the
folder in between claims the empty file, fails to decode it, and stops with "Unrecoverable error"; the message is
lost with it. Here the message is written under a name no consumer takes, then renamed, which is atomic on one
filesystem, so a `*.msg` file is always complete.
"""

import os
import time
import uuid
from pathlib import Path
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    # kombu names the argument `payload` here and `message` in the virtual base: mypy can satisfy only one.
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:  # type: ignore[override]
        folder = Path(self.data_folder_out)
        # kombu's own name: its consumers take files in name order, which is publishing order.
        final = folder / f"{round(time.monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        # A consumer takes only names whose text after the first dot is `<queue>.msg`.
        partial = folder / f".{uuid.uuid4()}.partial"
        try:
            partial.write_bytes(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise ChannelError(f"Cannot add a message to the queue folder {folder}") from exc


class FilesystemTransport(filesystem.Transport):
    Channel = Channel
