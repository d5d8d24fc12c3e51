"""Request types for views that only an authenticated caller reaches (the permission or login_required
has already refused anyone else). They exist for the type checker: no request is ever built from them."""

from django.contrib.auth.models import User
from django.http import HttpRequest
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request


class AuthenticatedHttpRequest(HttpRequest):
    user: User


class AuthenticatedRequest(Request):
    user: User


def authenticated_user(request: HttpRequest | Request) -> User:
    """The caller's account, where a permission already refused anonymous callers (a 401 if one slips by)."""
    user = request.user
    if not isinstance(user, User):
        raise NotAuthenticated()
    return user
