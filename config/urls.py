from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.urls import include, path, reverse_lazy

from hydrata.agents.views import SignInView
from hydrata.core.schema import SchemaDocsView, SchemaView
from hydrata_contract.paths import API_MOUNT, SCHEMA, SCHEMA_DOCS

# The site's own sign-in (any active account); /admin/ stays for staff.
accounts = [
    path("login/", SignInView.as_view(), name="login"),  # Django's, and a sign-in starts sudo mode
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "password/",
        auth_views.PasswordChangeView.as_view(
            template_name="accounts/password_change.html", success_url=reverse_lazy("password_change_done")
        ),
        name="password_change",
    ),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(template_name="accounts/password_change_done.html"),
        name="password_change_done",
    ),
]


urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include(accounts)),
    path("", include("hydrata.oauth.urls")),
    path(API_MOUNT + SCHEMA.django(), SchemaView.as_view(), name=SCHEMA.name),
    path(
        API_MOUNT + SCHEMA_DOCS.django(),
        login_required(SchemaDocsView.as_view(url_name=SCHEMA.name)),
        name=SCHEMA_DOCS.name,
    ),
    # Every route below /api/v2/ is written once, in hydrata_contract/paths.py; each app's URLconf builds its own.
    path(API_MOUNT, include("hydrata.anuga.api.urls")),
    path(API_MOUNT, include("hydrata.observations.api.urls")),
    path(API_MOUNT, include("hydrata.studies.api.urls")),
    path(API_MOUNT, include("hydrata.calibration.api.urls")),
    path(API_MOUNT, include("hydrata.reports.api.urls")),
    path(API_MOUNT, include("hydrata.agents.api.urls")),
    path(API_MOUNT, include("hydrata.uploads.api.urls")),
    path(API_MOUNT, include("hydrata.anuga.api.dataset_urls")),
    path("agents/", include("hydrata.agents.urls")),
    path("storage/", include("hydrata.storage.urls")),
    path("reports/", include("hydrata.reports.urls")),
    path("", include("hydrata.map.urls")),
    path("", include("hydrata_mcp.urls")),
]

handler404 = "hydrata.core.not_found.not_found"
