"""The suite's own harness (tests/conftest.py): what it changes of Django's test machinery leaves the database as
Django would."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.core.management.sql import emit_post_migrate_signal
from django.db import connection
from django.test.utils import CaptureQueriesContext


def made_rows() -> tuple[set, set]:
    types = set(ContentType.objects.values_list("app_label", "model"))
    fields = ("content_type__app_label", "content_type__model", "codename", "name")
    permissions = set(Permission.objects.values_list(*fields))
    return types, permissions


@pytest.mark.django_db(transaction=True)
def test_a_flush_puts_back_the_content_types_and_permissions_djangos_post_migrate_makes_in_a_few_queries():
    call_command("flush", interactive=False, verbosity=0)  # the session's first, if no test has flushed yet
    with CaptureQueriesContext(connection) as queries:
        call_command("flush", interactive=False, verbosity=0)
    restored = made_rows()
    user_type = ContentType.objects.get_for_model(get_user_model())
    user_type_is_a_row = ContentType.objects.filter(pk=user_type.pk, app_label="auth", model="user").exists()
    ContentType.objects.all().delete()
    ContentType.objects.clear_cache()
    emit_post_migrate_signal(0, False, "default")  # Django's own, from empty tables

    assert restored == made_rows()
    assert len(restored[0]) > 30 and len(restored[1]) > 100
    assert user_type.app_label == "auth"
    assert user_type_is_a_row  # what the content-type cache gives after a flush is a row of the table
    reads = [query["sql"] for query in queries.captured_queries if query["sql"].startswith("SELECT")]
    assert sum("django_content_type" in sql for sql in reads) <= 1, reads  # not one read per app


def test_every_long_test_outside_a_group_is_handed_out_before_every_short_one(request):
    """xdist hands out the ungrouped tests in the session's order; a long one left to the end runs alone."""
    from tests.conftest import _long_running

    ungrouped = [item for item in request.session.items if item.get_closest_marker("xdist_group") is None]
    long = [index for index, item in enumerate(ungrouped) if _long_running(item)]
    short = [index for index, item in enumerate(ungrouped) if not _long_running(item)]

    assert request.node in [ungrouped[index] for index in short]
    assert not long or max(long) < min(short), [ungrouped[index].nodeid for index in long if index > min(short)]
