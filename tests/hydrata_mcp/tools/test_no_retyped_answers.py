"""The MCP wing hands back the contract's answers, not copies of them: no model class in hydrata_mcp declares, in
its own body, two or more fields that are all fields of one contract answer with the same type, unless it is a
projection derived from that answer (hydrata_mcp.tools.projections)."""

import importlib
import inspect
import pkgutil
import typing
from collections.abc import Iterator

from pydantic import BaseModel

import hydrata_contract.answers
import hydrata_mcp
from hydrata_contract.answers.base import Answer
from hydrata_mcp.tools.projections import ARGUMENTS, PROJECTIONS
from hydrata_mcp.tools.registry import REGISTRY, registered_tools


def modules(package) -> Iterator[object]:
    for found in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
        yield importlib.import_module(found.name)


def classes_in(owner: object, prefix: str) -> Iterator[type]:
    """The classes `owner` defines (a module's, and the ones nested in them), by inspection."""
    within = f"{owner.__qualname__}." if isinstance(owner, type) else ""
    for value in list(vars(owner).values()):
        if isinstance(value, type) and value.__module__.startswith(prefix) and value.__qualname__.startswith(within):
            yield value
            yield from classes_in(value, prefix)


def answer_models() -> set[type[BaseModel]]:
    return {
        found
        for module in modules(hydrata_contract.answers)
        for found in classes_in(module, "hydrata_contract")
        if issubclass(found, Answer) and found.model_fields
    }


def mcp_models() -> set[type[BaseModel]]:
    registered_tools()  # the tools' modules, and every projection they derive
    found = {model for module in modules(hydrata_mcp) for model in classes_in(module, "hydrata_mcp")}
    return {model for model in found | set(PROJECTIONS) if issubclass(model, BaseModel)}


def own_fields(model: type[BaseModel]) -> dict[str, object]:
    """The fields declared in the class's own body, with their types."""
    declared = inspect.get_annotations(model)
    return {name: model.model_fields[name].annotation for name in declared if name in model.model_fields}


def retyped(model: type[BaseModel], answers: set[type[BaseModel]]) -> list[str]:
    fields = own_fields(model)
    if len(fields) < 2 or model in PROJECTIONS:
        return []
    return sorted(
        f"{model.__module__}.{model.__qualname__} retypes {answer.__module__}.{answer.__qualname__} "
        f"({', '.join(sorted(fields))})"
        for answer in answers
        if all(
            name in answer.model_fields and answer.model_fields[name].annotation == kind
            for name, kind in fields.items()
        )
    )


def test_no_model_in_the_mcp_wing_repeats_a_contract_answers_fields():
    answers = answer_models()

    offenders = [line for model in mcp_models() for line in retyped(model, answers)]

    assert sorted(offenders) == []


def test_the_check_finds_a_class_that_copies_an_answers_fields():
    from hydrata_contract.answers.projects import Project

    class Copied(BaseModel):
        id: int
        name: str

    assert retyped(Copied, {Project}) == [
        f"{__name__}.{Copied.__qualname__} retypes {Project.__module__}.Project (id, name)"
    ]


def test_a_projection_of_an_answer_is_not_a_copy():
    from hydrata_contract.answers.projects import Project
    from hydrata_mcp.tools.projections import Projection

    class Derived(Projection, of=Project, fields=("id", "name")):
        pass

    derived = Derived
    assert retyped(derived, {Project}) == []
    assert derived.model_fields["name"].annotation is str


def arguments_taken_from_requests() -> Iterator[tuple[str, str, object, type[BaseModel], str]]:
    for spec in REGISTRY.values():
        for name, hint in typing.get_type_hints(spec.fn, include_extras=True).items():
            for info in getattr(hint, "__metadata__", ()):
                if id(info) in ARGUMENTS:
                    yield spec.name, name, hint.__origin__, *ARGUMENTS[id(info)]


def test_an_argument_taken_from_a_request_model_has_that_fields_type():
    registered_tools()
    taken = list(arguments_taken_from_requests())

    mistyped = [
        f"{tool}({name}) is {kind}, {model.__name__}.{field} is {model.model_fields[field].annotation}"
        for tool, name, kind, model, field in taken
        if kind != model.model_fields[field].annotation
    ]

    assert ("create_project", "name") in {(tool, name) for tool, name, *_ in taken}
    assert mistyped == []
