from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.urls import include, path, reverse_lazy

from hydrata.agents.views import SignInView
from hydrata.core.schema import SchemaDocsView, SchemaView

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
    path("api/v2/schema/", SchemaView.as_view(), name="api-schema"),
    path("api/v2/schema/docs/", login_required(SchemaDocsView.as_view(url_name="api-schema")), name="api-docs"),
    path("api/v2/anuga/", include("hydrata.anuga.api.urls")),
    path("api/v2/anuga/", include("hydrata.observations.api.urls")),
    path("api/v2/anuga/", include("hydrata.studies.api.urls")),
    path("api/v2/anuga/", include("hydrata.calibration.api.urls")),
    path("api/v2/anuga/", include("hydrata.reports.api.urls")),
    path("api/v2/", include("hydrata.agents.api.urls")),
    path("api/v2/", include("hydrata.uploads.api.urls")),
    path("api/v2/", include("hydrata.anuga.api.dataset_urls")),
    path("agents/", include("hydrata.agents.urls")),
    path("storage/", include("hydrata.storage.urls")),
    path("reports/", include("hydrata.reports.urls")),
    path("", include("hydrata.map.urls")),
    path("", include("hydrata_mcp.urls")),
]

handler404 = "hydrata.core.not_found.not_found"
