"""The S3 backend: files in one bucket; URLs presigned by boto3, so clients talk to S3 directly."""

import io
import pathlib
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any, BinaryIO

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError
from django.utils.http import content_disposition_header

from hydrata.storage.errors import StorageObjectNotFound
from hydrata.storage.keys import validate_key

MISSING_OBJECT_CODES = frozenset({"404", "NoSuchKey", "NotFound"})


class S3Storage:
    def __init__(self, *, bucket: str, region: str, endpoint_url: str | None = None) -> None:
        self.bucket = bucket
        # SigV4 everywhere (SigV2 is refused by newer buckets and regions). Path-style addressing for a
        # custom endpoint (MinIO and similar); virtual-hosted, on the regional host, for AWS itself.
        config = Config(
            signature_version="s3v4",
            s3={"addressing_style": "path" if endpoint_url else "virtual"},
        )
        # A session of its own: creating clients from boto3's shared default session is not thread-safe.
        self.client = boto3.session.Session().client("s3", region_name=region, endpoint_url=endpoint_url, config=config)

    def presign_upload(self, *, key: str, content_type: str, expires_in: int) -> str:
        return self.client.generate_presigned_url(
            "put_object",
            Params={"Bucket": self.bucket, "Key": validate_key(key), "ContentType": content_type},
            ExpiresIn=expires_in,
        )

    def presign_download(self, *, key: str, expires_in: int, filename: str | None = None) -> str:
        params = {"Bucket": self.bucket, "Key": validate_key(key)}
        if filename:
            params["ResponseContentDisposition"] = content_disposition_header(True, filename)
        return self.client.generate_presigned_url("get_object", Params=params, ExpiresIn=expires_in)

    def exists(self, *, key: str) -> bool:
        try:
            self._head(key=key)
        except StorageObjectNotFound:
            return False
        return True

    def size(self, *, key: str) -> int:
        return int(self._head(key=key)["ContentLength"])

    def save(self, *, key: str, data: bytes | IO[bytes], content_type: str = "application/octet-stream") -> None:
        stream = io.BytesIO(data) if isinstance(data, bytes | bytearray) else data
        # upload_fileobj switches to a multipart upload for large files, which put_object cannot send.
        self.client.upload_fileobj(stream, self.bucket, validate_key(key), ExtraArgs={"ContentType": content_type})

    @contextmanager
    def open(self, *, key: str) -> Iterator[BinaryIO]:
        with _missing_as_not_found():
            body = self.client.get_object(Bucket=self.bucket, Key=validate_key(key))["Body"]
        try:
            yield body
        finally:
            body.close()

    @contextmanager
    def local_path(self, *, key: str) -> Iterator[pathlib.Path]:
        validate_key(key)
        # Keep the suffix: GDAL and friends pick a driver from it.
        with tempfile.NamedTemporaryFile(suffix=pathlib.PurePosixPath(key).suffix, delete=False) as temporary:
            path = pathlib.Path(temporary.name)
        try:
            with _missing_as_not_found():
                self.client.download_file(self.bucket, key, str(path))
            yield path
        finally:
            path.unlink(missing_ok=True)

    def delete(self, *, key: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=validate_key(key))

    def _head(self, *, key: str) -> dict[str, Any]:
        with _missing_as_not_found():
            return self.client.head_object(Bucket=self.bucket, Key=validate_key(key))


@contextmanager
def _missing_as_not_found() -> Iterator[None]:
    try:
        yield
    except ClientError as error:
        if str(error.response.get("Error", {}).get("Code")) in MISSING_OBJECT_CODES:
            raise StorageObjectNotFound() from error
        raise
