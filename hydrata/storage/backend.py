"""Which backend stores files, decided by settings at each call."""

import functools
import pathlib

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from hydrata.storage.local import LocalStorage
from hydrata.storage.protocol import Storage

BACKENDS = ("local", "s3")


def get_storage() -> Storage:
    backend = settings.HYDRATA_STORAGE_BACKEND
    if backend == "local":
        return LocalStorage(root=pathlib.Path(settings.MEDIA_ROOT))
    if backend == "s3":
        if not settings.HYDRATA_S3_BUCKET:
            raise ImproperlyConfigured(
                "HYDRATA_STORAGE_BACKEND is 's3' but HYDRATA_S3_BUCKET is empty: set it to the bucket's name."
            )
        return _s3_storage(
            bucket=settings.HYDRATA_S3_BUCKET,
            region=settings.HYDRATA_S3_REGION,
            endpoint_url=settings.HYDRATA_S3_ENDPOINT_URL or None,
        )
    raise ImproperlyConfigured(f"HYDRATA_STORAGE_BACKEND must be one of {BACKENDS}, not {backend!r}.")


@functools.lru_cache(maxsize=8)
def _s3_storage(*, bucket: str, region: str, endpoint_url: str | None) -> Storage:
    # Imported here so that deployments on the local backend never pay for importing boto3.
    from hydrata.storage.s3 import S3Storage

    # Cached per settings value: a boto3 client is costly to build and safe to share between threads.
    return S3Storage(bucket=bucket, region=region, endpoint_url=endpoint_url)
