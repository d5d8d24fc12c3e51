"""Request types for views that only an authenticated caller reaches (the permission or login_required
has already refused anyone else). They exist for the type checker: no request is ever built from them."""

from django.contrib.auth.models import User
from django.http import HttpRequest
from rest_framework.request import Request


class AuthenticatedHttpRequest(HttpRequest):
    user: User


class AuthenticatedRequest(Request):
    user: User
