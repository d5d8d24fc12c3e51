"""An answer model of a row: the fields the row holds under the model's names read from it, the rest computed."""

from typing import Any, TypeVar

from pydantic import BaseModel

ModelT = TypeVar("ModelT", bound=BaseModel)


def from_row(model: type[ModelT], row: object, **computed: Any) -> ModelT:
    """`model` of a row: each field the row's attribute of that name, but those `computed` here (a field the row
    holds under another name, or works out). A field added to the row and the model needs no change here; a field
    with a default the row does not hold is left unset (a Sparse answer does not send it)."""
    return model.model_validate(_Computed(row, computed), from_attributes=True)


class _Computed:
    """The row, with the computed fields in front of its attributes."""

    def __init__(self, row: object, computed: dict[str, Any]) -> None:
        self._row, self._computed = row, computed

    def __getattr__(self, name: str) -> Any:
        if name in self._computed:
            return self._computed[name]
        return getattr(self._row, name)
