"""Who may see an uploaded dataset: its owner, and everyone who shares a project with the owner.

The rule needs projects, so it lives here and hands the uploads app the owners' ids: uploads never knows about
projects."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q, QuerySet

from hydrata.anuga.models import ProjectMembership
from hydrata.uploads.models import Dataset
from hydrata.uploads.selectors import dataset_get


def dataset_owners_visible_to(*, user: AbstractBaseUser) -> QuerySet:
    """The ids of the caller and of everyone in a project with the caller (a subquery, not a list)."""
    my_projects = ProjectMembership.objects.filter(user=user).values("project_id")
    co_members = ProjectMembership.objects.filter(project_id__in=my_projects).values("user_id")
    return get_user_model().objects.filter(Q(pk=user.pk) | Q(pk__in=co_members)).values_list("pk", flat=True)


def dataset_visible_get(*, user: AbstractBaseUser, dataset_id: int) -> Dataset:
    """A dataset the caller may see; anything else is DATASET_NOT_FOUND."""
    return dataset_get(owner_ids=dataset_owners_visible_to(user=user), dataset_id=dataset_id)
