"""Who may see an uploaded dataset: its uploader, and the members (any role) of each project with an input row
it is attached to. Who may attach one to a project's row: its uploader, or anyone for a dataset that row's project
already uses, since attaching shares it with that project's members.

The rule needs projects, so it lives here and hands the uploads app the shared dataset ids: uploads never knows
about projects."""

from collections.abc import Iterable

from django.contrib.auth.models import User
from django.db.models import QuerySet

from hydrata.anuga.models import InputLayer, Project, ProjectMembership
from hydrata.core.errors import Forbidden, NotFound
from hydrata.uploads.models import Dataset
from hydrata.uploads.selectors import dataset_get
from hydrata_contract.errors import ErrorCode


def datasets_attached_in(*, project_ids: Iterable[int] | QuerySet) -> QuerySet:
    """The ids of the datasets attached to input rows of these projects (a subquery, not a list)."""
    return InputLayer.objects.filter(project_id__in=project_ids, dataset__isnull=False).values("dataset_id")


def dataset_visible_get(*, user: User, dataset_id: int) -> Dataset:
    """A dataset the caller uploaded, or one attached in a project they are a member of; else DATASET_NOT_FOUND.
    Being public makes a project's inputs no one else's to read, so public projects share nothing here."""
    member_of = ProjectMembership.objects.filter(user=user).values("project_id")
    return dataset_get(owner=user, shared_ids=datasets_attached_in(project_ids=member_of), dataset_id=dataset_id)


def dataset_attachable_get(*, user: User, project: Project, dataset_id: int) -> Dataset:
    """A dataset the caller may attach to a row of `project`: their own, or one this project already uses.
    One they can read only through another project is 403 DATASET_NOT_SHAREABLE: its uploader did not share it
    with this project's members."""
    in_this_project = datasets_attached_in(project_ids=[project.pk])
    try:
        return dataset_get(owner=user, shared_ids=in_this_project, dataset_id=dataset_id)
    except NotFound:
        dataset = dataset_visible_get(user=user, dataset_id=dataset_id)  # DATASET_NOT_FOUND when not even that
    raise Forbidden(
        f"Dataset {dataset.pk} belongs to {dataset.owner.get_username()} and is not used in project {project.pk}, "
        "so it is not yours to share with this project's members. Upload your own copy, or ask its owner to "
        "attach it.",
        code=ErrorCode.DATASET_NOT_SHAREABLE,
        dataset=dataset.pk,
    )
