"""The ASGI scope the view hands the SDK describes the request as ASGI does, prefix included."""

from django.test import RequestFactory

from hydrata_mcp.transport import asgi_scope


def test_under_a_prefix_the_scope_has_the_full_path_and_the_prefix_as_root_path():
    request = RequestFactory().post("/mcp/", SCRIPT_NAME="/x", QUERY_STRING="a=1")

    scope = asgi_scope(request)

    assert (scope["path"], scope["raw_path"], scope["root_path"]) == ("/x/mcp/", b"/x/mcp/", "/x")
    assert scope["query_string"] == b"a=1"


def test_without_a_prefix_the_root_path_is_empty():
    scope = asgi_scope(RequestFactory().post("/mcp/"))

    assert (scope["path"], scope["root_path"]) == ("/mcp/", "")
