"""What a tool hands back and takes, derived from the contract, not retyped.

A projection of an answer model keeps the fields a tool publishes with the contract's own types, defaults and
descriptions (a shorter description where bytes matter), and its nested answers stay the contract's own models:

    class ProjectName(Projection, of=Project, fields=("id", "name")):
        \"\"\"A project as a picker shows it.\"\"\"

A tool that hands back more than the answer says puts HandBack (or its own fields) beside it in the class. An
argument that is a request model's field takes its type, bounds, default and description from that field:
`name: Annotated[str, argument(ProjectCreate, "name", "A shorter description.")]`.
"""

from typing import TYPE_CHECKING, Any, Self

from pydantic import BaseModel
from pydantic._internal._model_construction import ModelMetaclass
from pydantic.fields import FieldInfo

# Every projection made here, by the answer model it was derived from: a check that no tool retypes an answer
# (tests/hydrata_mcp/tools/test_no_retyped_answers.py) tells them from classes written by hand.
PROJECTIONS: dict[type[BaseModel], type[BaseModel]] = {}
# Every argument taken from a request model, by its FieldInfo's id: the request model and the field.
ARGUMENTS: dict[int, tuple[type[BaseModel], str]] = {}


class _Projecting(ModelMetaclass):
    def __new__(
        mcs,
        name: str,
        bases: tuple[type, ...],
        namespace: dict[str, Any],
        of: type[BaseModel] | None = None,
        fields: tuple[str, ...] = (),
        described: dict[str, str | None] | None = None,
        **kwargs: Any,
    ) -> type:
        if of is not None:
            namespace = {**namespace, **_fields_of(of, fields, described or {}, namespace)}
        made = super().__new__(mcs, name, bases, namespace, **kwargs)
        if of is not None:
            PROJECTIONS[made] = of
        return made


def _fields_of(
    answer: type[BaseModel], fields: tuple[str, ...], described: dict[str, str | None], namespace: dict[str, Any]
) -> dict[str, Any]:
    unknown = sorted((set(fields) | set(described)) - set(answer.model_fields))
    if unknown:
        raise ValueError(f"{unknown} are not fields of {answer.__name__}")
    annotations = {field: answer.model_fields[field].annotation for field in fields}
    infos = {field: _described(answer.model_fields[field], described.get(field, ...)) for field in fields}
    return {"__annotations__": {**annotations, **namespace.get("__annotations__", {})}, **infos}


class Projection(BaseModel, metaclass=_Projecting):
    """The base of a projection: `of` the contract's answer model, its `fields`, and shorter descriptions
    (`described`, None for none) by field."""

    if TYPE_CHECKING:  # the fields are the answer's, made when the class is: a type checker reads them as Any

        def __getattr__(self, name: str) -> Any: ...

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__()

    @classmethod
    def from_answer(cls, answer: BaseModel, **more: Any) -> Self:
        """This projection of a parsed answer (its fields this class has), with the keys given in `more`."""
        taken = {field: getattr(answer, field) for field in cls.model_fields if field in type(answer).model_fields}
        return cls.model_validate(taken | more)


def argument(model: type[BaseModel], field: str, description: str | None = None) -> FieldInfo:
    """A tool argument that is `model`'s `field`, as `Annotated[its type, argument(model, field)]`: its bounds and
    default as the request model has them, and the contract's description unless a shorter one is given (the
    catalog's bytes are a model's context). The type written beside it is held to the field's by a test."""
    taken = _described(model.model_fields[field], ... if description is None else description)
    ARGUMENTS[id(taken)] = (model, field)
    return taken


def _described(info: FieldInfo, description: Any) -> FieldInfo:
    """A copy of the contract's field, with `description` instead of its own unless it is `...` (None: none)."""
    copied = FieldInfo.merge_field_infos(info)
    if description is not ...:
        copied.description = description
    return copied
