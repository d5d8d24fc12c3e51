"""What every storage backend offers; callers depend on this and never on a backend."""

import pathlib
from contextlib import AbstractContextManager
from typing import IO, BinaryIO, Protocol, runtime_checkable


@runtime_checkable
class Storage(Protocol):
    def presign_upload(self, *, key: str, content_type: str, expires_in: int) -> str:
        """An absolute URL that accepts one HTTP PUT of the file, sent with exactly this Content-Type."""
        ...

    def presign_download(self, *, key: str, expires_in: int, filename: str | None = None) -> str:
        """An absolute URL for GET; with a filename, the response asks browsers to save it under that name."""
        ...

    def exists(self, *, key: str) -> bool: ...

    def size(self, *, key: str) -> int: ...

    def save(self, *, key: str, data: bytes | IO[bytes], content_type: str = "application/octet-stream") -> None: ...

    def open(self, *, key: str) -> AbstractContextManager[BinaryIO]:
        """A read-only binary stream, closed when the with-block ends."""
        ...

    def local_path(self, *, key: str) -> AbstractContextManager[pathlib.Path]:
        """A path on this machine holding the file, valid only inside the with-block."""
        ...

    def delete(self, *, key: str) -> None:
        """Remove the file; deleting a key that holds nothing is not an error."""
        ...
