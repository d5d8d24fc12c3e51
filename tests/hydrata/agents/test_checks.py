"""The grant-level system check walks every DRF view of the URLconf, whatever guards it claims to have.

This module is also the URLconf the check is run against (see `urlpatterns` below).
"""

import pytest
from django.core import checks
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.urls import path
from rest_framework.permissions import IsAuthenticated
from rest_framework.views import APIView

from hydrata.agents import checks as grant_checks


class WithoutGrantLevelPermission(APIView):
    permission_classes = [IsAuthenticated]

    def get(self, request):
        pass


class OverridingGetPermissions(APIView):
    grant_levels = {"GET": "read"}

    def get_permissions(self):
        return [IsAuthenticated()]

    def get(self, request):
        pass

    def delete(self, request):
        pass


class Declared(APIView):
    grant_levels = {"GET": "read", "POST": "draft"}

    def get(self, request):
        pass

    def post(self, request):
        pass


class Exempt(APIView):
    def get(self, request):
        pass


urlpatterns = [
    path("plain/", WithoutGrantLevelPermission.as_view()),
    path("overriding/", OverridingGetPermissions.as_view()),
    path("declared/", Declared.as_view()),
    path("exempt/", Exempt.as_view()),
]
HERE = "tests.hydrata.agents.test_checks"


@pytest.fixture
def offending_urls(settings, monkeypatch):
    settings.ROOT_URLCONF = HERE
    monkeypatch.setitem(grant_checks.GRANT_LEVEL_EXEMPT, f"{HERE}.Exempt", "answers the load balancer's probe")


def grant_messages() -> list[checks.CheckMessage]:
    return [m for m in checks.run_checks() if m.id and m.id.startswith("hydrata.")]


def test_views_without_grant_level_permission_or_with_their_own_get_permissions_fail_the_check(offending_urls):
    errors = {m.obj.__name__: m.msg for m in grant_messages() if m.id == "hydrata.E001"}

    assert set(errors) == {"WithoutGrantLevelPermission", "OverridingGetPermissions"}
    assert "serves GET " in errors["WithoutGrantLevelPermission"] and "/plain/" in errors["WithoutGrantLevelPermission"]
    assert "serves DELETE " in errors["OverridingGetPermissions"]


def test_the_check_command_refuses_to_pass_and_names_the_offending_view(offending_urls):
    with pytest.raises(SystemCheckError) as failure:
        call_command("check")

    assert "hydrata.E001" in str(failure.value) and "WithoutGrantLevelPermission" in str(failure.value)


def test_an_exempt_view_is_reported_with_its_reason(offending_urls):
    [info] = [m for m in grant_messages() if m.id == "hydrata.I001"]

    assert info.obj is Exempt and "load balancer" in info.msg


def test_the_shipped_urlconf_has_no_undeclared_view_and_no_exemption():
    assert grant_messages() == []
