from typing import Any, TypeVar

from django.db.models import Model

M = TypeVar("M", bound=Model)


def record_update(record: M, **fields: Any) -> M:
    """Set fields on a model instance and save it; returns the instance."""
    for name, value in fields.items():
        setattr(record, name, value)
    record.save()
    return record
