"""The platform answers through the contract (hydrata_contract/answers): each view names the model of its answer.

A selector or service builds the answer as its contract model (with `from_attributes=True` where the model's
fields are the row's own, so a field added to the row and the model needs no builder of its own), and the view
sends it with `sent(...)`; a page of them is `page_answer(...)`. An answer is a model before it is JSON, so it is
held to its contract wherever it is built, production included (tests/hydrata/core/test_every_answer.py walks every
route and validates each answer's JSON as well)."""

from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel
from rest_framework.generics import GenericAPIView

from hydrata.core.pagination import PageNumberPagination
from hydrata_contract.answers.base import Page

PageT = TypeVar("PageT", bound=Page)


def sent(model: BaseModel) -> dict[str, Any]:
    """An answer model as the view sends it: its JSON form, every field (a null stays a null)."""
    return model.model_dump(mode="json")


def page_answer(*, view: GenericAPIView, model: type[PageT], results: Sequence[BaseModel], **extra: Any) -> PageT:
    """The page `view.paginate_queryset(...)` has just cut, as its contract page model: count, the next and previous
    page links, `results`, and what the page model adds (`ui_url` on a page of a project's things)."""
    paginator = view.paginator
    if not isinstance(paginator, PageNumberPagination) or paginator.page is None:
        raise TypeError("page_answer comes after the view's paginate_queryset")
    return model.model_validate(
        {
            "count": paginator.page.paginator.count,
            "next": paginator.get_next_link(),
            "previous": paginator.get_previous_link(),
            "results": list(results),
            **extra,
        }
    )
