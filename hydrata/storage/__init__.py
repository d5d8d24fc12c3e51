"""Storage of uploaded and produced files, on the local disk or in S3 (settings.HYDRATA_STORAGE_BACKEND)."""

from hydrata.storage.backend import get_storage
from hydrata.storage.errors import StorageError
from hydrata.storage.protocol import Storage
from hydrata.storage.signing import SIGNATURE_PARAM

__all__ = ["SIGNATURE_PARAM", "Storage", "StorageError", "get_storage"]
