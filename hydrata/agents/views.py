from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from hydrata.agents.selectors import grants_for_user


@login_required
def grants_page(request: HttpRequest) -> HttpResponse:
    return render(request, "agents/grants.html", {"grants": grants_for_user(user=request.user)})
