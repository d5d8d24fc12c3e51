"""The /agents/ page: a person manages the keys their agents use and the apps connected through the OAuth sign-in.
Views parse, call a service, and render.

Every action is a POST that redirects back to the page, except creating a grant: its key is rendered once,
in that POST's response, and is kept nowhere else (not the session, not a message, not a log).

What widens what agents may do needs the password again unless the person signed in or entered it lately
(hydrata/agents/sudo.py); refused, the page says so (403) and nothing changes.
"""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe

from hydrata.agents.forms import GrantCreateForm, PauseForm, RunApprovalForm, SpendLimitForm
from hydrata.agents.models import AgentGrant
from hydrata.agents.selectors import (
    account_for_user,
    activity_for_user,
    grant_owned_by,
    grants_for_user,
    spend_used_this_month,
)
from hydrata.agents.services import (
    account_set_paused,
    account_set_runs_need_approval,
    account_set_spend_limit,
    grant_create,
    grant_revoke,
    grants_revoke_all,
)
from hydrata.agents.sudo import (
    grant_level_widens,
    resume_widens,
    run_approval_widens,
    spend_limit_widens,
    sudo_active,
    sudo_require,
    sudo_start,
    sudo_window_minutes,
)
from hydrata.core.errors import PasswordRequired, PlatformError
from hydrata.core.requests import AuthenticatedHttpRequest
from hydrata.core.statuses import http_status
from hydrata_contract.grants import GrantKind

ACTIVITY_ROWS = 20


class SignInView(LoginView):
    """The site's sign-in (Django's), which also starts sudo mode: whoever just typed the password need not type
    it again for the next HYDRATA_SUDO_SECONDS."""

    template_name = "accounts/login.html"
    redirect_authenticated_user = True

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        response = super().form_valid(form)  # signs in: the session survives under a new key
        sudo_start(session=self.request.session)
        return response


@login_required
@require_safe
def grants_page(request: AuthenticatedHttpRequest) -> HttpResponse:
    return _render_page(request)


@login_required
@require_POST
@never_cache
def create_grant(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = GrantCreateForm(request.POST)
    status = 400
    if form.is_valid():
        try:
            if grant_level_widens(level=form.cleaned_data["level"]):
                _sudo(request, form, action="Creating a launch-level key")
            grant, key = grant_create(
                user=request.user,
                name=form.cleaned_data["name"],
                level=form.cleaned_data["level"],
                expires_at=form.expires_at(),
            )
        except PlatformError as error:
            _add_service_error(form, error)
            status = http_status(error)
        else:
            return _render_page(request, new_grant=grant, new_key=key)
    return _render_page(request, status=status, create_form=form)


@login_required
@require_POST
def revoke_grant(request: AuthenticatedHttpRequest, grant_id: int) -> HttpResponse:
    grant = grant_owned_by(user=request.user, grant_id=grant_id)
    if grant is None:
        raise Http404("No such grant.")
    if grant.revoked_at is not None:
        messages.info(request, f"“{grant.name}” was already revoked.")
    else:
        grant_revoke(grant=grant)
        if grant.kind == GrantKind.CONNECT:
            messages.success(request, f"Disconnected “{grant.name}”. Its access and refresh tokens no longer work.")
        else:
            messages.success(request, f"Revoked “{grant.name}”. Its key no longer works.")
    return redirect("agents:grants")


@login_required
@require_POST
def revoke_all_grants(request: AuthenticatedHttpRequest) -> HttpResponse:
    count = grants_revoke_all(user=request.user)
    if count:
        messages.success(
            request, f"Revoked {count} grant{'s' if count != 1 else ''}. Their keys and connections no longer work."
        )
    else:
        messages.info(request, "There were no active grants to revoke.")
    return redirect("agents:grants")


@login_required
@require_POST
def set_paused(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = PauseForm(request.POST)
    if not form.is_valid():
        return _render_page(request, status=400, page_error="Choose whether to pause or resume agent access.")
    paused: bool = form.cleaned_data["paused"]
    try:
        if resume_widens(user=request.user, paused=paused):
            _sudo(request, form, action="Resuming agent access")
    except PasswordRequired as error:
        return _render_page(request, status=http_status(error), page_error=str(error.detail))
    account_set_paused(user=request.user, paused=paused)
    if paused:
        messages.success(request, "Agent access is paused. Every key is refused until you resume.")
    else:
        messages.success(request, "Agent access resumed. Active keys work again.")
    return redirect("agents:grants")


@login_required
@require_POST
def set_run_approval(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = RunApprovalForm(request.POST)
    if not form.is_valid():
        return _render_page(request, status=400, page_error="Choose whether agents need your approval to run.")
    required: bool = form.cleaned_data["required"]
    try:
        if run_approval_widens(user=request.user, required=required):
            _sudo(request, form, action="Letting agents start runs without your approval")
    except PasswordRequired as error:
        return _render_page(request, status=http_status(error), page_error=str(error.detail))
    account_set_runs_need_approval(user=request.user, required=required)
    if required:
        messages.success(
            request, "Agents now need your approval before they start a run: approve each scenario in the map first."
        )
    else:
        messages.success(request, "Agents no longer need your approval to start a run.")
    return redirect("agents:grants")


@login_required
@require_POST
def set_spend_limit(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = SpendLimitForm(request.POST)
    status = 400
    if form.is_valid():
        limit = form.cleaned_data["limit"]
        try:
            if spend_limit_widens(user=request.user, limit=limit):
                _sudo(request, form, action="Raising or removing the spend limit")
            account_set_spend_limit(user=request.user, limit=limit)
        except PlatformError as error:
            _add_service_error(form, error)
            status = http_status(error)
        else:
            if limit is None:
                messages.success(request, "The monthly spend limit is removed.")
            else:
                messages.success(request, f"The monthly spend limit is now ${limit} USD.")
            return redirect("agents:grants")
    return _render_page(request, status=status, spend_form=form)


def _sudo(request: AuthenticatedHttpRequest, form: forms.Form, *, action: str) -> None:
    sudo_require(session=request.session, user=request.user, password=form.cleaned_data["password"], action=action)


def _add_service_error(form: forms.Form, error: PlatformError) -> None:
    field = getattr(form, "SERVICE_ERROR_FIELDS", {}).get(error.error_code)
    form.add_error(field, str(error.detail))


def _render_page(
    request: AuthenticatedHttpRequest,
    *,
    status: int = 200,
    create_form: GrantCreateForm | None = None,
    spend_form: SpendLimitForm | None = None,
    page_error: str | None = None,
    new_grant: AgentGrant | None = None,
    new_key: str | None = None,
) -> HttpResponse:
    user = request.user
    now = timezone.now()
    account = account_for_user(user=user)
    spend_limit = account.monthly_spend_limit if account else None
    context = {
        "grants": grants_for_user(user=user, kind=GrantKind.KEY),
        "connections": grants_for_user(user=user, kind=GrantKind.CONNECT),
        "now": now,
        "paused": bool(account and account.agents_paused),
        "paused_at": account.paused_at if account else None,
        "runs_need_approval": bool(account and account.runs_need_approval),
        "spend_limit": spend_limit,
        "spend_used": spend_used_this_month(user=user, now=now),
        "activity": activity_for_user(user=user, limit=ACTIVITY_ROWS),
        "create_form": create_form or GrantCreateForm(),
        "spend_form": spend_form or SpendLimitForm(initial={"limit": spend_limit}),
        "page_error": page_error,
        "password_needed": not sudo_active(session=request.session, now=now),
        "sudo_minutes": sudo_window_minutes(),
        "new_grant": new_grant,
        "new_key": new_key,
        "agents_me_url": request.build_absolute_uri(reverse("agents-me")),
        "mcp_url": request.build_absolute_uri("/mcp/"),
    }
    return render(request, "agents/grants.html", context, status=status)
