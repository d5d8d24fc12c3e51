"""The authorization server's pages and documents: django-oauth-toolkit's views, extended where this server says
more (the consent page, the JWKS, stricter client registration)."""

import json
import string
from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.parse import urlsplit

from django.core.exceptions import RequestDataTooBig
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from oauth2_provider.models import get_application_model
from oauth2_provider.views import AuthorizationView, TokenView
from oauth2_provider.views.dynamic_client_registration import (
    DynamicClientRegistrationManagementView,
    DynamicClientRegistrationView,
)
from oauth2_provider.views.metadata import OAuthProtectedResourceMetadataView, OAuthServerMetadataView

from hydrata.agents.sudo import grant_level_widens, sudo_active, sudo_require, sudo_window_minutes
from hydrata.core.errors import PasswordRequired
from hydrata.core.statuses import http_status
from hydrata.oauth.forms import Consent, ConsentForm, preselected_level
from hydrata.oauth.keys import jwks
from hydrata.oauth.metadata import MetadataRefused, client_metadata
from hydrata.oauth.policy import LOOPBACK_HOSTS, client_metadata_problem, redirect_uri_allowed
from hydrata.oauth.site import LEVEL_SCOPES, connect_flow_on
from hydrata.oauth.throttles import registration_retry_after
from hydrata.oauth.validator import client_host

SOURCE_HOST_CHARACTERS = set(string.ascii_lowercase + string.digits + ".-:")


def flow_only(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """404 while HYDRATA_CONNECT_FLOW is off. `wraps` keeps the view's csrf_exempt mark."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not connect_flow_on():
            raise Http404("The connect flow is off on this server.")
        return view(request, *args, **kwargs)

    return wrapped


class ConsentView(AuthorizationView):
    """Behind the site's login: names the client, lets the person choose the level and an expiry, and (through
    the validator) creates the agent grant the code and its tokens belong to.

    Allowing launch level needs the password again (sudo mode, hydrata/agents/sudo.py) unless the person signed in
    or entered it lately, as on the usual way here (the client sends them to sign in, then to this page): a script
    riding an old session must not connect an app of its own choosing that can spend money."""

    template_name = "oauth/consent.html"
    form_class = ConsentForm
    consent: Consent | None = None

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        # The library would skip this page for `approval_prompt=auto` when an earlier token covers the scopes;
        # here every code comes from a person's answer on it.
        if "approval_prompt" in request.GET:
            query = request.GET.copy()
            del query["approval_prompt"]
            request.GET = query  # type: ignore[assignment]
        return super().get(request, *args, **kwargs)

    def get_initial(self) -> dict[str, Any]:
        initial = super().get_initial()
        initial["level"] = preselected_level(list(self.oauth2_data.get("scopes", [])))
        return initial

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        application = context.get("application") or self._posted_application(context.get("form"))
        if application is not None:
            redirect_uri = context.get("redirect_uri") or self.request.POST.get("redirect_uri")
            context.update(
                application=application,
                client_host=client_host(application, redirect_uri),
                from_metadata_document=application.registration_source == "cimd",
            )
        context.update(
            password_needed=not sudo_active(session=self.request.session), sudo_minutes=sudo_window_minutes()
        )
        return context

    def form_valid(self, form: ConsentForm) -> HttpResponse:
        self.consent = form.consent() if form.cleaned_data.get("allow") else None
        if self.consent is not None and grant_level_widens(level=self.consent.level):
            try:
                sudo_require(
                    session=self.request.session,
                    user=self.request.user,
                    password=form.cleaned_data["password"],
                    action="Connecting an app at launch level",
                )
            except PasswordRequired as error:
                form.add_error("password", str(error.detail))
                response = self.form_invalid(form)
                response.status_code = http_status(error)
                return response
        return super().form_valid(form)

    def create_authorization_response(self, request: HttpRequest, scopes: str, credentials: dict, allow: bool):
        if allow and self.consent is not None:
            scopes = self.consent.level  # the person's choice, whatever the client asked for
            credentials = {**credentials, "connect_consent": self.consent}
        return super().create_authorization_response(request, scopes, credentials, allow)

    def render_to_response(self, context: dict[str, Any], **response_kwargs: Any) -> HttpResponse:
        response = super().render_to_response(context, **response_kwargs)
        application = context.get("application")
        if application is not None and not context.get("error"):
            # The form is sent here, and its answer redirects to the client: the browser checks the site's
            # `form-action` on that redirect too, so the page allows the client's registered redirect origins.
            # (The attribute django-csp's @csp_update sets, given per response here.)
            response._csp_update = {"form-action": redirect_sources(application.redirect_uris.split())}
        return response

    def _posted_application(self, form: ConsentForm | None) -> Any:
        client_id = form.data.get("client_id") if form is not None and form.is_bound else None
        return get_application_model().objects.filter(client_id=client_id).first() if client_id else None


def redirect_sources(redirect_uris: list[str]) -> list[str]:
    """CSP sources of a client's redirect URIs: their origins, any port of a loopback host (RFC 8252 clients listen
    on a port they choose at each sign-in). A URI that could not be one source is left out, never written in."""
    sources = set()
    for uri in redirect_uris:
        parts = urlsplit(uri)
        host = parts.hostname or ""
        if not redirect_uri_allowed(uri) or not host or not set(host) <= SOURCE_HOST_CHARACTERS:
            continue
        shown = f"[{host}]" if ":" in host else host
        if parts.scheme == "http" and host in LOOPBACK_HOSTS:
            sources.add(f"{parts.scheme}://{shown}:*")
        else:
            sources.add(f"{parts.scheme}://{shown}" + (f":{parts.port}" if parts.port else ""))
    return sorted(sources)


class ConnectTokenView(TokenView):
    """The library's token endpoint with each request one transaction, so that the refresh token the validator
    locks stays locked until the answer is made (the library looks the new access token up once more for it)."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        with transaction.atomic():
            return super().post(request, *args, **kwargs)


class ServerMetadataView(OAuthServerMetadataView):
    """RFC 8414, plus the JWKS that verifies the access tokens."""

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        data = json.loads(super().get(request, *args, **kwargs).content)
        data["jwks_uri"] = self._get_endpoint_url(request, "jwks", required=True)
        return _public_json(data)


class ProtectedResourceMetadataView(OAuthProtectedResourceMetadataView):
    """RFC 9728 for the MCP endpoint: its scopes are the grant levels (offline_access is the server's business)."""

    def get_scopes_supported(self) -> list[str]:
        return list(LEVEL_SCOPES)


def jwks_view(request: HttpRequest) -> HttpResponse:
    response = _public_json(jwks())
    response["Cache-Control"] = "public, max-age=300"
    return response


class RegistrationView(DynamicClientRegistrationView):
    """RFC 7591, limited to what this server issues (the authorization code flow, to https or loopback), and to
    HYDRATA_OAUTH_REGISTER_RATE_LIMIT registrations an hour from one address."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        retry_after = registration_retry_after(request)
        if retry_after is not None:
            return _registration_throttled(retry_after)
        return registration_refusal(request) or super().post(request, *args, **kwargs)


class RegistrationManagementView(DynamicClientRegistrationManagementView):
    def put(self, request: HttpRequest, client_id: str, *args: Any, **kwargs: Any) -> HttpResponse:
        return registration_refusal(request) or super().put(request, client_id, *args, **kwargs)


def registration_refusal(request: HttpRequest) -> JsonResponse | None:
    """An RFC 7591 error for metadata this server will not register; None leaves the rest to the library, which
    then reads a body known to be small, shallow, finite and storable."""
    try:
        metadata = client_metadata(request.body)
    except RequestDataTooBig:  # over DATA_UPLOAD_MAX_MEMORY_SIZE: Django refuses to read it at all
        return _registration_error("invalid_client_metadata", str(MetadataRefused.too_large()))
    except MetadataRefused as refused:
        return _registration_error("invalid_client_metadata", str(refused))
    problem = client_metadata_problem(metadata)
    return _registration_error(problem.error, problem.description) if problem else None


def _registration_throttled(retry_after: int) -> JsonResponse:
    response = JsonResponse(
        {
            "error": "too_many_requests",
            "error_description": f"Too many client registrations from this address; try again in {retry_after} s.",
        },
        status=429,
    )
    response["Retry-After"] = str(retry_after)
    return response


def _registration_error(error: str, description: str) -> JsonResponse:
    return JsonResponse({"error": error, "error_description": description}, status=400)


def _public_json(data: dict[str, Any]) -> JsonResponse:
    response = JsonResponse(data)
    response["Access-Control-Allow-Origin"] = "*"  # metadata is public; browser-based clients read it too
    return response
