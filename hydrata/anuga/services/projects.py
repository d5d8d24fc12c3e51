from django.contrib.auth.models import User
from django.db import transaction

from hydrata.anuga.models import Map, Project, ProjectMembership
from hydrata.core.errors import ValidationFailed
from hydrata.core.projections import projection_normalise
from hydrata_contract.errors import ErrorCode
from hydrata_contract.projects import ProjectRole

MAX_PROJECT_NAME_LENGTH = 200


@transaction.atomic
def project_create(*, owner: User, name: str, projection: str, is_public: bool = False) -> Project:
    name = name.strip()
    if not name or len(name) > MAX_PROJECT_NAME_LENGTH:
        raise ValidationFailed(
            f"A project needs a name of 1 to {MAX_PROJECT_NAME_LENGTH} characters.", code=ErrorCode.INVALID_NAME
        )
    projection = projection_normalise(projection)
    base_map = Map.objects.create(title=name)
    project = Project.objects.create(
        name=name, projection=projection, is_public=is_public, owner=owner, base_map=base_map
    )
    ProjectMembership.objects.create(project=project, user=owner, role=ProjectRole.OWNER)
    return project
