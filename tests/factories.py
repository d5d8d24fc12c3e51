"""Factories: the smallest real objects a test needs, made through the same services the product uses."""

import itertools
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from hydrata.agents.models import AgentGrant
from hydrata.agents.services import account_set_paused, grant_create, grant_revoke
from hydrata.anuga.models import Project, ProjectMembership
from hydrata.anuga.services.projects import project_create

_sequence = itertools.count(1)


def make_user(username: str | None = None, *, password: str = "a-long-test-password", **fields) -> AbstractBaseUser:
    username = username or f"user{next(_sequence)}"
    return get_user_model().objects.create_user(username=username, password=password, **fields)


def make_grant(
    user: AbstractBaseUser | None = None,
    *,
    level: str = "draft",
    name: str = "test key",
    expires_at: datetime | None = None,
    revoked: bool = False,
    expired: bool = False,
    paused: bool = False,
) -> tuple[AgentGrant, str]:
    user = user or make_user()
    grant, key = grant_create(user=user, name=name, level=level, expires_at=expires_at)
    if revoked:
        grant_revoke(grant=grant)
    if expired:
        AgentGrant.objects.filter(pk=grant.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    if paused:
        account_set_paused(user=user, paused=True)
    return grant, key


def make_project(
    owner: AbstractBaseUser | None = None,
    *,
    name: str = "Test project",
    projection: str = "EPSG:28356",
    is_public: bool = False,
    members: dict[AbstractBaseUser, str] | None = None,
) -> Project:
    project = project_create(owner=owner or make_user(), name=name, projection=projection, is_public=is_public)
    for user, role in (members or {}).items():
        ProjectMembership.objects.create(project=project, user=user, role=role)
    return project
