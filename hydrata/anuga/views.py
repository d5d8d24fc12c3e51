from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render


def home(request: HttpRequest) -> HttpResponse:
    return redirect("catalogue")


@login_required
def catalogue(request: HttpRequest) -> HttpResponse:
    return render(request, "anuga/catalogue.html")
