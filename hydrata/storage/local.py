"""The local backend: files under MEDIA_ROOT, moved in and out through URLs this server signs."""

import os
import pathlib
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import IO, BinaryIO

from django.conf import settings

from hydrata.storage.errors import InvalidStorageKey, StorageObjectNotFound, UploadIncomplete, UploadTooLarge
from hydrata.storage.keys import validate_key
from hydrata.storage.signing import signed_download_url, signed_upload_url

CHUNK_BYTES = 65536


class LocalStorage:
    def __init__(self, *, root: pathlib.Path) -> None:
        self.root = pathlib.Path(root)

    def presign_upload(self, *, key: str, content_type: str, expires_in: int) -> str:
        return signed_upload_url(key=key, content_type=content_type, expires_in=expires_in)

    def presign_download(self, *, key: str, expires_in: int, filename: str | None = None) -> str:
        return signed_download_url(key=key, expires_in=expires_in, filename=filename)

    def exists(self, *, key: str) -> bool:
        return self.path(key=key).is_file()

    def size(self, *, key: str) -> int:
        path = self.path(key=key)
        if not path.is_file():
            raise StorageObjectNotFound()
        return path.stat().st_size

    def save(self, *, key: str, data: bytes | IO[bytes], content_type: str = "application/octet-stream") -> None:
        # A local file has no Content-Type of its own; it is inferred from the name when served.
        chunks = [data] if isinstance(data, bytes | bytearray) else iter(lambda: data.read(CHUNK_BYTES), b"")
        self.save_chunks(key=key, chunks=chunks)

    @contextmanager
    def open(self, *, key: str) -> Iterator[BinaryIO]:
        try:
            stream = self.path(key=key).open("rb")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise StorageObjectNotFound() from None
        with stream:
            yield stream

    @contextmanager
    def local_path(self, *, key: str) -> Iterator[pathlib.Path]:
        path = self.path(key=key)
        if not path.is_file():
            raise StorageObjectNotFound()
        yield path

    def delete(self, *, key: str) -> None:
        path = self.path(key=key)
        if path.is_file():
            path.unlink(missing_ok=True)

    def path(self, *, key: str) -> pathlib.Path:
        validate_key(key)
        root = self.root.resolve()
        path = (root / key).resolve()
        # The key rules already keep paths inside; this also refuses a symlink planted under the root.
        if not path.is_relative_to(root):
            raise InvalidStorageKey(f"Storage key {key!r} leads outside the store.")
        return path

    def save_chunks(
        self,
        *,
        key: str,
        chunks: Iterable[bytes],
        max_bytes: int | None = None,
        expected_bytes: int | None = None,
    ) -> int:
        """Write the chunks under the key all at once or not at all, and return the size written.

        The bytes go to a hidden temporary file beside the destination and are renamed over it only when
        complete, so readers never see a partial file and a refused upload leaves nothing behind.
        """
        destination = self.path(key=key)
        destination.parent.mkdir(parents=True, exist_ok=True)
        temporary = tempfile.NamedTemporaryFile(  # noqa: SIM115  (closed by the with below; kept on failure to unlink)
            dir=destination.parent, prefix=f".{destination.name}.", suffix=".part", delete=False
        )
        try:
            with temporary:
                written = 0
                for chunk in chunks:
                    written += len(chunk)
                    if max_bytes is not None and written > max_bytes:
                        raise UploadTooLarge(too_large_detail(max_bytes=max_bytes))
                    temporary.write(chunk)
                if expected_bytes is not None and written != expected_bytes:
                    raise UploadIncomplete()
                temporary.flush()
                os.fsync(temporary.fileno())
            if settings.FILE_UPLOAD_PERMISSIONS is not None:
                # Temporary files are created owner-only; give the file the mode Django gives uploads.
                os.chmod(temporary.name, settings.FILE_UPLOAD_PERMISSIONS)
            os.replace(temporary.name, destination)
        except BaseException:
            pathlib.Path(temporary.name).unlink(missing_ok=True)
            raise
        return written


def too_large_detail(*, max_bytes: int) -> str:
    return f"The file is larger than the {max_bytes:,}-byte limit. Upload a smaller file, or crop or resample it."
