"""A URLconf for tests: the shipped routes plus one view that forgets to declare the level of DELETE."""

from django.urls import path
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.urls import urlpatterns as shipped

ROUTE = "/api/v2/undeclared/"


class UndeclaredDeleteView(APIView):
    grant_levels = {"GET": "read"}

    def get(self, request: Request) -> Response:
        return Response({"read": True})

    def delete(self, request: Request) -> Response:
        return Response(status=204)


urlpatterns = [*shipped, path(ROUTE.lstrip("/"), UndeclaredDeleteView.as_view())]
