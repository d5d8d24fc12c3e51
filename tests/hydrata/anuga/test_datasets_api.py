"""Who may read an uploaded dataset (GET /api/v2/datasets/<id>/) and attach it: its uploader, and the members of
the projects it is attached to; sharing a project shares only what is attached to it."""

import pytest

from hydrata.anuga.services.inputs import default_inputs_seed
from hydrata_contract.inputs import InputKind
from tests.data import BOUNDARY
from tests.factories import make_project, make_user
from tests.hydrata.anuga.test_inputs_api import api_for, attach, default_row, upload_dataset

pytestmark = pytest.mark.django_db(transaction=True)

DATASETS = "/api/v2/datasets/"


def read(user, dataset_id: int):
    return api_for(user, level="read").get(f"{DATASETS}{dataset_id}/")


def seeded(owner, members=None):
    project = make_project(owner, members=members)
    default_inputs_seed(project=project)
    return project


def test_a_viewer_of_a_shared_project_cannot_read_a_members_unattached_dataset():
    uploader, viewer = make_user(), make_user()
    seeded(uploader, members={viewer: "viewer"})
    dataset_id = upload_dataset(api_for(uploader), "boundary.geojson", BOUNDARY.read_bytes())

    response = read(viewer, dataset_id)

    assert response.status_code == 404 and response.json()["code"] == "DATASET_NOT_FOUND"
    assert read(uploader, dataset_id).status_code == 200


@pytest.mark.parametrize("role", ["owner", "editor", "viewer"])
def test_every_member_reads_a_dataset_attached_to_their_project_until_it_is_detached(role):
    uploader, colleague = make_user(), make_user()
    if role == "owner":
        project = seeded(colleague, members={uploader: "editor"})
    else:
        project = seeded(uploader, members={colleague: role})
    client = api_for(uploader)
    dataset_id = upload_dataset(client, "boundary.geojson", BOUNDARY.read_bytes())
    row = default_row(project, InputKind.BOUNDARY)
    assert attach(client, project.pk, "boundaries", row.pk, dataset_id).status_code == 200

    attached = read(colleague, dataset_id)
    attach(client, project.pk, "boundaries", row.pk, None)
    detached = read(colleague, dataset_id)

    assert attached.status_code == 200 and attached.json()["dataset"]["owner"] == uploader.username
    assert detached.status_code == 404 and detached.json()["code"] == "DATASET_NOT_FOUND"


def test_a_public_project_shares_none_of_its_datasets_with_non_members():
    uploader = make_user()
    project = seeded(uploader)
    project.is_public = True
    project.save(update_fields=["is_public"])
    client = api_for(uploader)
    dataset_id = upload_dataset(client, "boundary.geojson", BOUNDARY.read_bytes())
    attach(client, project.pk, "boundaries", default_row(project, InputKind.BOUNDARY).pk, dataset_id)

    response = read(make_user(), dataset_id)

    assert response.status_code == 404 and response.json()["code"] == "DATASET_NOT_FOUND"


def test_a_dataset_read_through_one_project_cannot_be_attached_to_another():
    uploader, colleague = make_user(), make_user()
    shared = seeded(uploader, members={colleague: "viewer"})
    theirs_to_edit = seeded(colleague)
    client = api_for(uploader)
    dataset_id = upload_dataset(client, "boundary.geojson", BOUNDARY.read_bytes())
    attach(client, shared.pk, "boundaries", default_row(shared, InputKind.BOUNDARY).pk, dataset_id)
    row = default_row(theirs_to_edit, InputKind.BOUNDARY)

    response = attach(api_for(colleague), theirs_to_edit.pk, "boundaries", row.pk, dataset_id)

    assert read(colleague, dataset_id).status_code == 200  # readable, but not theirs to share
    assert response.status_code == 403 and response.json()["code"] == "DATASET_NOT_SHAREABLE"
    assert response.json()["dataset"] == dataset_id
    row.refresh_from_db()
    assert row.dataset_id is None


def test_an_editor_may_attach_again_a_dataset_the_project_already_uses():
    uploader, editor = make_user(), make_user()
    project = seeded(uploader, members={editor: "editor"})
    client = api_for(uploader)
    dataset_id = upload_dataset(client, "boundary.geojson", BOUNDARY.read_bytes())
    row = default_row(project, InputKind.BOUNDARY)
    attach(client, project.pk, "boundaries", row.pk, dataset_id)

    response = attach(api_for(editor), project.pk, "boundaries", row.pk, dataset_id)

    assert response.status_code == 200 and response.json()["gn_layer"] == dataset_id
