"""Settings, read from the environment with embedded defaults so one machine runs everything.

This is the only module that reads the environment. It is grouped by what each part configures: Django and the
site, the database, static files and the page policy, the REST API, the MCP server's REST client and the web
command, the cache, background work (Celery), storage, compute, agent grants, and the connect flow (OAuth).
"""

import os
import re
import secrets
import sys
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from whitenoise.compress import Compressor

from hydrata_contract.paths import API_PREFIX

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("HYDRATA_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def _local_secret_key() -> str:
    """A key generated once and kept in var/ so local sessions survive restarts."""
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


# --- Django and the site ---------------------------------------------------------------------------------------------

DEBUG = _env_bool("DEBUG", False)
HYDRATA_ENV = os.environ.get("HYDRATA_ENV", "local")

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if HYDRATA_ENV == "production":
        raise ImproperlyConfigured("SECRET_KEY must be set when HYDRATA_ENV=production.")
    SECRET_KEY = _local_secret_key()

# The origin people open in a browser; ui_url links point here.
HYDRATA_SITE_URL = os.environ.get("HYDRATA_SITE_URL", "http://127.0.0.1:8000").rstrip("/")


_site_host = urlsplit(HYDRATA_SITE_URL).hostname or "127.0.0.1"
ALLOWED_HOSTS = _env_list("ALLOWED_HOSTS", sorted({_site_host, "127.0.0.1", "localhost", "testserver"}))
CSRF_TRUSTED_ORIGINS = _env_list("CSRF_TRUSTED_ORIGINS", [HYDRATA_SITE_URL])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "config.apps.StaticFilesConfig",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",
    "hydrata.core",
    "hydrata.agents",
    "hydrata.anuga",
    "hydrata.uploads",
    "hydrata.observations",
    "hydrata.studies",
    "hydrata.calibration",
    "hydrata.map",
    "hydrata.reports",
    "hydrata_mcp",
    "oauth2_provider",
    "hydrata.oauth",
]

MIDDLEWARE = [
    "hydrata_mcp.gate.MCPGateMiddleware",
    "hydrata_mcp.redaction.RedactionMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "hydrata.core.unavailable.DatabaseUnavailableMiddleware",
    "hydrata.agents.middleware.AgentActivityMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "catalogue"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "filters": {"redact_secrets": {"()": "hydrata.core.logging.RedactSecretsFilter"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["redact_secrets"]},
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        # The SDK logs every request at INFO; keep the console readable.
        "mcp": {"level": "WARNING"},
        "httpx": {"level": "WARNING"},
        # urllib3 logs a retry with the request's path; hydrata_mcp/client.py logs it by the failure's names alone.
        "urllib3.connectionpool": {"level": "ERROR"},
        # The production server (uvicorn, see the Procfile) configures its own loggers before it loads this app;
        # naming them here drops its handlers, so its access log reaches the console through the redacting filter.
        "uvicorn": {"handlers": [], "propagate": True},
        "uvicorn.access": {"handlers": [], "propagate": True},
    },
}


if HYDRATA_ENV == "production":
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")


# --- Database: SQLite embedded, PostgreSQL by DATABASE_URL -----------------------------------------------------------

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'hydrata.sqlite3'}"),
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "0")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several threads (the web server, the loopback REST calls, the worker) share one file.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        timeout=20, transaction_mode="IMMEDIATE", init_command="PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
    )
    # A file, not memory, so a test server thread sees what the test wrote.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-{os.getpid()}.sqlite3")}

# On PostgreSQL, the connections a process's threads share, each lent for one request or task (psycopg's pool; 0:
# none, a new connection per request). Off by default when DATABASE_CONN_MAX_AGE keeps connections instead.
DATABASE_POOL_MAX_SIZE = int(
    os.environ.get("DATABASE_POOL_MAX_SIZE", "0" if DATABASES["default"]["CONN_MAX_AGE"] else "10")
)
if DATABASE_POOL_MAX_SIZE > 0 and DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    if DATABASES["default"]["CONN_MAX_AGE"]:
        raise ImproperlyConfigured(
            "Set DATABASE_POOL_MAX_SIZE or DATABASE_CONN_MAX_AGE, not both: a pooled connection goes back to the pool "
            "when its request ends."
        )
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": DATABASE_POOL_MAX_SIZE,
        "timeout": float(os.environ.get("DATABASE_POOL_TIMEOUT_SECONDS", "10")),
    }


# --- Static files and the page policy (whitenoise, the map page, django-csp) -----------------------------------------

STATIC_URL = "static/"
# Besides each app's static/: the map core both maps share (the site's page loads its modules, the MCP App's
# build inlines them) and the libraries vendored for both, each served under its own prefix.
STATICFILES_DIRS = [("map_core", BASE_DIR / "map_core"), ("vendor", BASE_DIR / "vendor")]
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise warns about a missing folder at every start
# whitenoise serves the static files in every process (daphne serves none). Production serves what collectstatic
# wrote, under content-hashed names cached for ever (the map's module imports rewritten to them too); elsewhere
# files come straight from the apps, so tests and `make run` need no collectstatic.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "config.static_storage.HashedModulesStaticFilesStorage"
        if HYDRATA_ENV == "production"
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = HYDRATA_ENV != "production"
# Outside production each file is found when it is asked for: indexing every app's files (the admin's, the API
# docs' bundles) at each middleware load costs about 60 ms, paid by every test client the suite makes.
WHITENOISE_AUTOREFRESH = DEBUG or WHITENOISE_USE_FINDERS
# Source maps only reach a browser's developer tools: compressing them (the API docs' 13 MB of them) was half of the
# collectstatic the web command runs at every start (53 CPU seconds here with them, 26 without).
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = (*Compressor.SKIP_COMPRESS_EXTENSIONS, "map")
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", VAR_DIR / "media"))

# The map page: an optional background map (an XYZ template such as https://tile.example/{z}/{x}/{y}.png; empty = the
# terrain's hillshade is the background, and the page asks no other server for anything), and how long rendered
# tiles of the (never changing) terrain and result rasters are kept in the cache.
HYDRATA_BASEMAP_URL = os.environ.get("HYDRATA_BASEMAP_URL", "")
HYDRATA_BASEMAP_ATTRIBUTION = os.environ.get("HYDRATA_BASEMAP_ATTRIBUTION", "")
HYDRATA_TILE_CACHE_SECONDS = int(os.environ.get("HYDRATA_TILE_CACHE_SECONDS", "86400"))
# A report's PDF is laid out by a worker (hydrata/reports/services.py), in a child process held to these limits;
# a web request waits at most HYDRATA_REPORT_WAIT_SECONDS for it, then answers that it is still being laid out.
HYDRATA_REPORT_WAIT_SECONDS = float(os.environ.get("HYDRATA_REPORT_WAIT_SECONDS", "20"))
HYDRATA_REPORT_PDF_CPU_SECONDS = int(os.environ.get("HYDRATA_REPORT_PDF_CPU_SECONDS", "120"))
HYDRATA_REPORT_PDF_MEMORY_BYTES = int(os.environ.get("HYDRATA_REPORT_PDF_MEMORY_BYTES", str(3 * 1024**3)))
# The most triangles of a mesh the map is sent for one view; above it the map shows the outline and asks to zoom in.
HYDRATA_MESH_VIEW_MAX_TRIANGLES = int(os.environ.get("HYDRATA_MESH_VIEW_MAX_TRIANGLES", "20000"))
# What a host (and port) in a CSP source may hold; a space, `;` or `,` would write another directive or source.
_CSP_HOST_CHARACTERS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]")


def _csp_source(url: str, *, setting: str) -> str:
    """The CSP source of a tile server: the origin of its URL or XYZ template, a leading `{s}.` (Leaflet's
    subdomains) as `*.`. Anything else is refused: a stray character would change the policy itself."""
    parts = urlsplit(url)
    host = parts.netloc.removeprefix("{s}.")
    wildcard = "*." if host != parts.netloc else ""
    if parts.scheme not in {"http", "https"} or not host or not set(host) <= _CSP_HOST_CHARACTERS:
        raise ImproperlyConfigured(
            f"{setting} must be http(s) URLs of tile servers, such as https://tile.example/{{z}}/{{x}}/{{y}}.png "
            f"(got {url!r})."
        )
    return f"{parts.scheme}://{wildcard}{host}"


# Hosts besides the background map's that the map page may show images from (tiles of another server).
HYDRATA_CSP_EXTRA_IMG_HOSTS = _env_list("HYDRATA_CSP_EXTRA_IMG_HOSTS", [])
# The Content-Security-Policy of every page (django-csp): scripts, styles, fonts and fetches from this site only,
# no inline script or style and no eval (so a string that slipped into markup still cannot run), no plugins, no
# <base>, never framed, forms sent here only. Images also from data: (Leaflet's blank tile, the favicon) and the
# tile servers above. Pages that need more say so themselves (the connect flow's consent: hydrata/oauth/views.py).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": [
            "'self'",
            "data:",
            *sorted(
                {
                    _csp_source(url, setting="HYDRATA_BASEMAP_URL and HYDRATA_CSP_EXTRA_IMG_HOSTS")
                    for url in [HYDRATA_BASEMAP_URL, *HYDRATA_CSP_EXTRA_IMG_HOSTS]
                    if url
                }
            ),
        ],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    }
}


# --- The REST API (DRF and its schema) -------------------------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "hydrata.agents.authentication.AgentKeyAuthentication",
        "hydrata.oauth.authentication.ConnectTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["hydrata.agents.permissions.GrantLevelPermission"],
    "DEFAULT_THROTTLE_CLASSES": ["hydrata.agents.throttles.GrantRateThrottle"],
    "DEFAULT_PAGINATION_CLASS": "hydrata.core.pagination.PageNumberPagination",
    "PAGE_SIZE": 100,
    "EXCEPTION_HANDLER": "hydrata.core.exception_handler.api_exception_handler",
    # JSON in and out through hydrata/core: no NaN, out-of-range number, lone surrogate or runaway nesting gets in,
    # and no answer fails to encode.
    "DEFAULT_RENDERER_CLASSES": ["hydrata.core.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": [
        "hydrata.core.parsers.JSONParser",
        "hydrata.core.parsers.FormParser",
        "hydrata.core.parsers.MultiPartParser",
    ],
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # OPTIONS is 405 after the level check: /api/v2/schema/ describes the API. DRF's own OPTIONS answer probed the
    # POST of the view, so a read key was refused it and a generic view without a serializer_class was a 500.
    "DEFAULT_METADATA_CLASS": None,
}
# The OpenAPI schema at /api/v2/schema/ (hydrata/core/schema.py adds the security schemes and the error body).
SPECTACULAR_SETTINGS = {
    "TITLE": "Hydrata REST API",
    "VERSION": "2",
    "DESCRIPTION": "Projects, terrain, model inputs, time series, scenarios and ANUGA runs, as agents and the map "
    "use them. Every error answers with a JSON body carrying a machine `code`.",
    "SCHEMA_PATH_PREFIX": API_PREFIX,
    "SERVE_INCLUDE_SCHEMA": False,
    # 3.1: its schemas are JSON Schema, as the contract's pydantic models write them (a null is `type: null`).
    "OAS_VERSION": "3.1.0",
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    # Swagger UI from this site (drf-spectacular-sidecar), as the CSP allows no other: never a CDN's `@latest`.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Choice sets that share a field name (status, kind) get a name each.
    "ENUM_NAME_OVERRIDES": {
        "SeriesTypeEnum": "hydrata_contract.inputs.SeriesType.choices",
        "GrantKindEnum": "hydrata_contract.grants.GrantKind.choices",
        "GrantLevelEnum": "hydrata_contract.grants.GrantLevel.choices",
        "QuantityEnum": "hydrata_contract.observations.Quantity.choices",
        "DesignInputKindEnum": "hydrata_contract.studies.DesignInputKind.choices",
        "CentralStatisticEnum": "hydrata_contract.studies.CentralStatistic.choices",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "hydrata.core.schema.name_slashless_aliases",
        "hydrata.core.schema.add_error_responses",
    ],
}


# --- The MCP server's REST client and the web command ----------------------------------------------------------------

# Where the MCP tools send their REST calls (loopback to this same server by default).
HYDRATA_API_ORIGIN = os.environ.get("HYDRATA_API_ORIGIN", HYDRATA_SITE_URL).rstrip("/")
HYDRATA_API_TIMEOUT_SECONDS = float(os.environ.get("HYDRATA_API_TIMEOUT_SECONDS", "30"))
# Origins (besides HYDRATA_SITE_URL and the request's own host) allowed to call /mcp/ from a browser.
HYDRATA_MCP_ALLOWED_ORIGINS = _env_list("HYDRATA_MCP_ALLOWED_ORIGINS", [])
# Processes of the production web command (config/serve.py): one uvicorn process uses one core.
HYDRATA_WEB_WORKERS = int(os.environ.get("HYDRATA_WEB_WORKERS", str(os.cpu_count() or 1)))
# How long the web command keeps an idle connection open for its next request (uvicorn's keep-alive timeout).
HYDRATA_WEB_KEEP_ALIVE_SECONDS = int(os.environ.get("HYDRATA_WEB_KEEP_ALIVE_SECONDS", "5"))
# The MCP tools' REST client opens a new connection rather than reuse one idle this long: well under the keep-alive
# of the server behind HYDRATA_API_ORIGIN (by default half this web command's), so that it never sends on a
# connection the server is closing at that moment (hydrata_mcp/client.py).
HYDRATA_API_IDLE_SECONDS = float(os.environ.get("HYDRATA_API_IDLE_SECONDS", str(HYDRATA_WEB_KEEP_ALIVE_SECONDS / 2)))


# --- The cache (per process, or Redis) -------------------------------------------------------------------------------

# The cache holds the agent rate-limit counters. The default is per process: with several web processes set
# HYDRATA_CACHE_URL to a shared cache (redis://host:6379/1), or each process counts requests on its own.
HYDRATA_CACHE_URL = os.environ.get("HYDRATA_CACHE_URL", "")
if HYDRATA_CACHE_URL.startswith(("redis://", "rediss://")):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": HYDRATA_CACHE_URL}}
elif HYDRATA_CACHE_URL:
    raise ImproperlyConfigured("HYDRATA_CACHE_URL must be empty (memory of this process) or a redis:// URL.")
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "hydrata"}}


# --- Background work (Celery) ----------------------------------------------------------------------------------------

# Background work (Celery). Embedded default: the filesystem transport, which needs no broker server.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
FILESYSTEM_BROKER_POLL_SECONDS = 0.1
if CELERY_BROKER_URL.startswith("filesystem://"):
    _queue_dir = VAR_DIR / "celery" / "queue"
    _queue_dir.mkdir(parents=True, exist_ok=True)
    # kombu's transport, publishing each message whole (a worker could take a message's file still empty, and stop).
    CELERY_BROKER_TRANSPORT = "config.filesystem_broker:FilesystemTransport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_queue_dir),
        "data_folder_out": str(_queue_dir),
        "store_processed": False,
        "control_folder": str(VAR_DIR / "celery" / "control"),
        # kombu's default looks for new messages once a second, so each task waited half a second on average
        # before a worker took it; a look is one directory listing.
        "polling_interval": FILESYSTEM_BROKER_POLL_SECONDS,
    }
CELERY_TASK_ALWAYS_EAGER = _env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Periodic work, sent by `celery beat` (the worker's --beat locally, the Procfile's one beat process in production).
HYDRATA_CLEANUP_INTERVAL_SECONDS = int(os.environ.get("HYDRATA_CLEANUP_INTERVAL_SECONDS", "3600"))
# The stale-run sweep: a computing run whose worker went silent is ended in error (reads never write, so the status
# GET stays light). A sweep no worker took within its interval expires: the next one does the same work.
HYDRATA_RUN_REAP_INTERVAL_SECONDS = float(os.environ.get("HYDRATA_RUN_REAP_INTERVAL_SECONDS", "30"))
CELERY_BEAT_SCHEDULE = {
    "storage-cleanup": {"task": "anuga.storage_cleanup", "schedule": float(HYDRATA_CLEANUP_INTERVAL_SECONDS)},
    "runs-reap-stale": {
        "task": "anuga.runs_reap_stale",
        "schedule": HYDRATA_RUN_REAP_INTERVAL_SECONDS,
        "options": {"expires": HYDRATA_RUN_REAP_INTERVAL_SECONDS},
    },
    # A design study's members report through their task's link; this sweep sees those whose worker was lost.
    "design-studies-advance": {
        "task": "studies.design_studies_advance",
        "schedule": HYDRATA_RUN_REAP_INTERVAL_SECONDS,
        "options": {"expires": HYDRATA_RUN_REAP_INTERVAL_SECONDS},
    },
    # The same for calibration studies: a member whose worker was lost is read as failed, and the search goes on.
    "calibration-studies-advance": {
        "task": "calibration.calibration_studies_advance",
        "schedule": HYDRATA_RUN_REAP_INTERVAL_SECONDS,
        "options": {"expires": HYDRATA_RUN_REAP_INTERVAL_SECONDS},
    },
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# Celery time limits per task type, in seconds. The soft limit raises inside the task, which ends its record in
# error; the hard limit, HYDRATA_TASK_HARD_LIMIT_GRACE_SECONDS later, kills the worker process running it.
HYDRATA_TASK_TIME_LIMITS = {
    "terrain_import": int(os.environ.get("HYDRATA_TERRAIN_IMPORT_TIME_LIMIT_SECONDS", "1800")),
    "run_build": int(os.environ.get("HYDRATA_BUILD_TIME_LIMIT_SECONDS", "1800")),
    "run_simulation": int(os.environ.get("HYDRATA_SIMULATION_TIME_LIMIT_SECONDS", str(48 * 3600))),
    "dataset_import": int(os.environ.get("HYDRATA_DATASET_IMPORT_TIME_LIMIT_SECONDS", "600")),
    "storage_cleanup": int(os.environ.get("HYDRATA_CLEANUP_TIME_LIMIT_SECONDS", "1800")),
    "runs_reap_stale": int(os.environ.get("HYDRATA_REAP_TIME_LIMIT_SECONDS", "60")),
    "study_advance": int(os.environ.get("HYDRATA_STUDY_ADVANCE_TIME_LIMIT_SECONDS", "120")),
    "study_envelopes": int(os.environ.get("HYDRATA_STUDY_ENVELOPES_TIME_LIMIT_SECONDS", "7200")),
    "report_pdf": int(os.environ.get("HYDRATA_REPORT_PDF_TIME_LIMIT_SECONDS", "180")),
}
HYDRATA_TASK_HARD_LIMIT_GRACE_SECONDS = int(os.environ.get("HYDRATA_TASK_HARD_LIMIT_GRACE_SECONDS", "60"))
# A Redis broker hands an unacknowledged message out again after its visibility timeout. Tasks that acknowledge
# late (all but the simulation, which is acknowledged as it starts) must end, at their hard limit, well before that,
# or a slow build would be handed to a second worker while the first still runs; so the default outlasts the
# longest of them by an hour. Each service also claims its record before working, so a redelivery does nothing.
_LATE_ACK_TASKS = [name for name in HYDRATA_TASK_TIME_LIMITS if name != "run_simulation"]
HYDRATA_BROKER_VISIBILITY_TIMEOUT_SECONDS = int(
    os.environ.get(
        "HYDRATA_BROKER_VISIBILITY_TIMEOUT_SECONDS",
        str(
            max(HYDRATA_TASK_TIME_LIMITS[name] for name in _LATE_ACK_TASKS)
            + HYDRATA_TASK_HARD_LIMIT_GRACE_SECONDS
            + 3600
        ),
    )
)
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": HYDRATA_BROKER_VISIBILITY_TIMEOUT_SECONDS}
    # A worker reserves no message it has no free slot for (Celery supports this on Redis only): one whose slots are
    # all on a study's members leaves a build on the queue for a worker that is free (docs/queues.md).
    CELERY_WORKER_DISABLE_PREFETCH = True


# --- Storage (local files or S3) and upload limits -------------------------------------------------------------------

# Storage of uploaded and produced files: "local" (files under MEDIA_ROOT, URLs signed by this server) or "s3".
HYDRATA_STORAGE_BACKEND = os.environ.get("HYDRATA_STORAGE_BACKEND", "local")
HYDRATA_S3_BUCKET = os.environ.get("HYDRATA_S3_BUCKET", "")
HYDRATA_S3_REGION = os.environ.get("HYDRATA_S3_REGION", os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))
HYDRATA_S3_ENDPOINT_URL = os.environ.get("HYDRATA_S3_ENDPOINT_URL") or None
HYDRATA_UPLOAD_URL_EXPIRY_SECONDS = int(os.environ.get("HYDRATA_UPLOAD_URL_EXPIRY_SECONDS", "3600"))
HYDRATA_DOWNLOAD_URL_EXPIRY_SECONDS = int(os.environ.get("HYDRATA_DOWNLOAD_URL_EXPIRY_SECONDS", "3600"))
# A terrain upload slot may be finalized until its URL expires plus this grace; then it is refused and cleaned up.
HYDRATA_UPLOAD_FINALIZE_GRACE_SECONDS = int(os.environ.get("HYDRATA_UPLOAD_FINALIZE_GRACE_SECONDS", "3600"))
# Retention (see hydrata/anuga/services/cleanup.py): a terrain's staged upload is deleted this long after its
# import ended; a complete run's .sww (its full time history, the largest output) this long after it finished.
HYDRATA_STAGING_RETENTION_HOURS = int(os.environ.get("HYDRATA_STAGING_RETENTION_HOURS", "24"))
HYDRATA_RUN_SWW_RETENTION_DAYS = int(os.environ.get("HYDRATA_RUN_SWW_RETENTION_DAYS", "30"))  # 0: keep forever
HYDRATA_TERRAIN_MAX_BYTES = int(os.environ.get("HYDRATA_TERRAIN_MAX_BYTES", str(5 * 1024**3)))
# Pixels a terrain may have, read from the file's header before any is read (a 30 KB sparse GeoTIFF can declare
# 200,000 x 200,000). The 5 GiB upload limit holds 1.3 billion float32 pixels uncompressed, about twice that as
# survey DEMs compress, so 3 billion (a 55 km square at 1 m) lets the largest real upload through.
HYDRATA_TERRAIN_MAX_PIXELS = int(os.environ.get("HYDRATA_TERRAIN_MAX_PIXELS", "3000000000"))
HYDRATA_GEOJSON_MAX_BYTES = int(os.environ.get("HYDRATA_GEOJSON_MAX_BYTES", str(50 * 1024**2)))
# A design study's input files (an IFD table, a region's temporal patterns, a Data Hub output) are text of a few
# hundred kB at most; and a study of 4 AEPs x 10 durations x 10 patterns is 400 members.
HYDRATA_ARR_FILE_MAX_BYTES = int(os.environ.get("HYDRATA_ARR_FILE_MAX_BYTES", str(4 * 1024**2)))
HYDRATA_STUDY_MAX_MEMBERS = int(os.environ.get("HYDRATA_STUDY_MAX_MEMBERS", "1000"))
# A study is counted before any storm is built: a pattern's time steps (ARR publishes a few hundred at most; 1,440 is a
# day of 1-minute steps, or five days of the Data Hub's finest, 5 minutes) and the steps of all its members' storms
# together (1,000 members of 200 steps), each refused past its limit with the limit named.
HYDRATA_STUDY_MAX_PATTERN_STEPS = int(os.environ.get("HYDRATA_STUDY_MAX_PATTERN_STEPS", "1440"))
HYDRATA_STUDY_MAX_STORM_STEPS = int(os.environ.get("HYDRATA_STUDY_MAX_STORM_STEPS", "200000"))
HYDRATA_GEOJSON_MAX_FEATURES = int(os.environ.get("HYDRATA_GEOJSON_MAX_FEATURES", "100000"))
# The work GEOS's intersection search may do over the features of one upload when it checks their validity, counted
# before it runs (`edge_tests_count` in hydrata/compute/inputs/geojson.py: the edges of every two runs of edges whose
# extents overlap), about 17-21 ns a unit, so 100 million bound the check to about 2 s. Real boundaries need little: a
# ring of a million vertices 3 million, with noise at every vertex 2-3 million; a ring crossing itself at every vertex
# n²/2.
HYDRATA_GEOJSON_MAX_EDGE_TESTS = int(os.environ.get("HYDRATA_GEOJSON_MAX_EDGE_TESTS", "100000000"))

# A time series holds at most this many rows; a request body may hold that many generous rows (about 128 bytes
# each, indented JSON with offsets) and a little more, so the row limit is what refuses a long series.
HYDRATA_TIME_SERIES_MAX_ROWS = int(os.environ.get("HYDRATA_TIME_SERIES_MAX_ROWS", "100000"))
DATA_UPLOAD_MAX_MEMORY_SIZE = int(
    os.environ.get("DATA_UPLOAD_MAX_MEMORY_SIZE", str(HYDRATA_TIME_SERIES_MAX_ROWS * 128 + 1024**2))
)


# --- Scenarios and compute -------------------------------------------------------------------------------------------

HYDRATA_MESH_MAX_TRIANGLES = int(os.environ.get("HYDRATA_MESH_MAX_TRIANGLES", "1500000"))
HYDRATA_COMPUTE_USD_PER_VCPU_HOUR = float(os.environ.get("HYDRATA_COMPUTE_USD_PER_VCPU_HOUR", "0.10"))
# Where simulations may run: "local" is the Celery workers, "slurm" a Slurm cluster the workers submit to (its
# commands on PATH, SLURM_CONF in their environment), "batch" AWS Batch once its queue and job definition are set
# (below); "ec2" always answers 409, naming the targets that work.
HYDRATA_COMPUTE_BACKENDS = _env_list("HYDRATA_COMPUTE_BACKENDS", ["local"])
# The Slurm partition runs go to ("": the cluster's default), and the interpreter and source tree on its compute
# nodes (default: the worker's own paths, as on a cluster that mounts the same software image).
HYDRATA_SLURM_PARTITION = os.environ.get("HYDRATA_SLURM_PARTITION", "")
HYDRATA_SLURM_THREADS_PER_TASK = int(os.environ.get("HYDRATA_SLURM_THREADS_PER_TASK", "1"))
HYDRATA_SLURM_PYTHON = os.environ.get("HYDRATA_SLURM_PYTHON", sys.executable)
HYDRATA_SLURM_SOURCE_ROOT = os.environ.get("HYDRATA_SLURM_SOURCE_ROOT", str(BASE_DIR))
# How long a queued job's transfer links stay valid before it starts (they also cover its wall-clock limit).
HYDRATA_SLURM_QUEUE_SECONDS = int(os.environ.get("HYDRATA_SLURM_QUEUE_SECONDS", "86400"))
# AWS Batch ("batch"): the job queue and the operator's multi-node job definition (an image with this platform
# installed); credentials come from the usual AWS environment. Both empty: "batch" is refused as unconfigured.
HYDRATA_BATCH_JOB_QUEUE = os.environ.get("HYDRATA_BATCH_JOB_QUEUE", "")
HYDRATA_BATCH_JOB_DEFINITION = os.environ.get("HYDRATA_BATCH_JOB_DEFINITION", "")
HYDRATA_BATCH_REGION = os.environ.get("HYDRATA_BATCH_REGION", os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))
HYDRATA_BATCH_ENDPOINT_URL = os.environ.get("HYDRATA_BATCH_ENDPOINT_URL") or None
# OpenMP threads of each simulation; 0 (the default): the worker machine's cores over its pool's slots, at least one,
# so that a worker never runs more threads than the machine has cores (docs/queues.md).
HYDRATA_ANUGA_THREADS = int(os.environ.get("HYDRATA_ANUGA_THREADS", "0"))
# A run may ask for up to this many MPI ranks, on any target; the web process that takes the start checks it, so it
# is set there. On "local" the worker's HYDRATA_ANUGA_THREADS are shared out between them (at least one each).
HYDRATA_MAX_RANKS = int(os.environ.get("HYDRATA_MAX_RANKS", str(os.cpu_count() or 1)))
HYDRATA_RUN_YIELD_SECONDS = float(os.environ.get("HYDRATA_RUN_YIELD_SECONDS", "0"))  # 0 = chosen per duration
# The most saved frames a run keeps as depth rasters for the map's time slider (evenly spaced); 0: none.
HYDRATA_RUN_DEPTH_FRAMES = int(os.environ.get("HYDRATA_RUN_DEPTH_FRAMES", "48"))
# A computing run whose worker has not reported for this long is ended in error (worker or machine lost).
HYDRATA_RUN_HEARTBEAT_TIMEOUT_SECONDS = int(os.environ.get("HYDRATA_RUN_HEARTBEAT_TIMEOUT_SECONDS", "45"))
# The simulation child's limits: CPU seconds and wall-clock seconds are the run's estimated vCPU time times the
# margin, never below their floors; address space and the size of any file it writes are fixed (0: no limit).
HYDRATA_RUN_LIMIT_MARGIN = float(os.environ.get("HYDRATA_RUN_LIMIT_MARGIN", "4"))
HYDRATA_RUN_MIN_CPU_SECONDS = int(os.environ.get("HYDRATA_RUN_MIN_CPU_SECONDS", "900"))
HYDRATA_RUN_MIN_WALL_SECONDS = int(os.environ.get("HYDRATA_RUN_MIN_WALL_SECONDS", "900"))
HYDRATA_RUN_MAX_ADDRESS_SPACE_BYTES = int(os.environ.get("HYDRATA_RUN_MAX_ADDRESS_SPACE_BYTES", str(16 * 1024**3)))
HYDRATA_RUN_MAX_FILE_BYTES = int(os.environ.get("HYDRATA_RUN_MAX_FILE_BYTES", str(50 * 1024**3)))
# A multi-rank run on this machine goes into a network namespace with loopback alone (`unshare`), so MPICH Hydra's
# control port, which binds every interface, is reachable from nowhere else: `auto` where one can be made, `off`.
HYDRATA_MPI_NETWORK_NAMESPACE = os.environ.get("HYDRATA_MPI_NETWORK_NAMESPACE", "auto")
if HYDRATA_MPI_NETWORK_NAMESPACE not in ("auto", "off"):
    raise ImproperlyConfigured("HYDRATA_MPI_NETWORK_NAMESPACE is auto or off")
# A serial run's child is forked by a fork server that has imported the simulation's modules once
# (hydrata/compute/processes/fork_server.py), not started by exec: about 1.2 s less a run. Off: every child by exec.
HYDRATA_FORK_SERVER = _env_bool("HYDRATA_FORK_SERVER", True)
# A design-input file is read in a child process of the web process (hydrata/compute/processes/bounded.py) under these
# limits: an honest 4 MiB file takes about a second of CPU and 150 MB; over the CPU or memory limit the file is
# refused (FILE_TOO_COSTLY), past the wall clock (a starved machine) the request is 503 and may be sent again.
HYDRATA_FILE_READ_CPU_SECONDS = int(os.environ.get("HYDRATA_FILE_READ_CPU_SECONDS", "10"))
HYDRATA_FILE_READ_WALL_SECONDS = float(os.environ.get("HYDRATA_FILE_READ_WALL_SECONDS", "30"))
HYDRATA_FILE_READ_MEMORY_BYTES = int(os.environ.get("HYDRATA_FILE_READ_MEMORY_BYTES", str(1024**3)))


# --- Agent grants ----------------------------------------------------------------------------------------------------

# Requests a minute per agent key (0: no limit); polling once a second uses 60. People on the site are not counted.
HYDRATA_AGENT_RATE_LIMIT = int(os.environ.get("HYDRATA_AGENT_RATE_LIMIT", "600"))
HYDRATA_GRANT_LAST_USED_THROTTLE_SECONDS = int(os.environ.get("HYDRATA_GRANT_LAST_USED_THROTTLE_SECONDS", "60"))
# Sudo mode: what widens what agents may do (a launch key, a higher spend limit, run approval off, resuming
# paused agents, connecting an app at launch level) needs the password entered, or a sign-in, within this many
# seconds; after this many wrong passwords in a row, the password is not checked again until that window has passed.
HYDRATA_SUDO_SECONDS = int(os.environ.get("HYDRATA_SUDO_SECONDS", "600"))
HYDRATA_SUDO_MAX_FAILURES = int(os.environ.get("HYDRATA_SUDO_MAX_FAILURES", "5"))


# --- The connect flow (OAuth) ----------------------------------------------------------------------------------------


# The connect flow: MCP clients sign people in with OAuth (django-oauth-toolkit, configured and extended in
# hydrata/oauth/). Every token it issues belongs to an agent grant of kind "connect".
def _local_signing_key() -> str:
    """An RSA key for the connect flow's access tokens, generated once into var/ like the secret key."""
    path = VAR_DIR / "oauth_signing_key.pem"
    if not path.exists():
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        path.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
        path.chmod(0o600)
    return path.read_text().strip()


def _pem_blocks(text: str) -> list[str]:
    """Every PEM block in a text (keys pasted one after another into one variable)."""
    return re.findall(r"-----BEGIN [A-Z ]+-----.+?-----END [A-Z ]+-----", text, flags=re.DOTALL)


HYDRATA_CONNECT_FLOW = _env_bool("HYDRATA_CONNECT_FLOW", HYDRATA_ENV != "production")
HYDRATA_OAUTH_SIGNING_KEY = os.environ.get("HYDRATA_OAUTH_SIGNING_KEY", "").strip()
if not HYDRATA_OAUTH_SIGNING_KEY and HYDRATA_CONNECT_FLOW:
    if HYDRATA_ENV == "production":
        raise ImproperlyConfigured(
            "HYDRATA_OAUTH_SIGNING_KEY must be set when HYDRATA_ENV=production and HYDRATA_CONNECT_FLOW is on."
        )
    HYDRATA_OAUTH_SIGNING_KEY = _local_signing_key()
# Keys retired by a rotation: they still verify the tokens they signed (and stay in the JWKS), never sign.
HYDRATA_OAUTH_RETIRED_KEYS = _pem_blocks(os.environ.get("HYDRATA_OAUTH_RETIRED_KEYS", ""))
HYDRATA_OAUTH_ACCESS_TOKEN_SECONDS = int(os.environ.get("HYDRATA_OAUTH_ACCESS_TOKEN_SECONDS", "3600"))
HYDRATA_OAUTH_REFRESH_TOKEN_SECONDS = int(os.environ.get("HYDRATA_OAUTH_REFRESH_TOKEN_SECONDS", str(30 * 86400)))
# Client registrations (DCR) an address may make an hour, counted in the cache like the agent rate limit; 0: no
# limit. The address is REMOTE_ADDR as the ASGI server gives it (uvicorn takes X-Forwarded-For only from
# FORWARDED_ALLOW_IPS, by default 127.0.0.1); Hydrata never reads X-Forwarded-For itself.
HYDRATA_OAUTH_REGISTER_RATE_LIMIT = int(os.environ.get("HYDRATA_OAUTH_REGISTER_RATE_LIMIT", "30"))
# Hosts whose Client ID Metadata Documents are fetched (claude.ai's and Claude Code's by default); empty turns
# CIMD off, so clients register themselves (DCR) instead.
HYDRATA_CIMD_ALLOWED_HOSTS = _env_list("HYDRATA_CIMD_ALLOWED_HOSTS", ["claude.ai", "claude.com"])
# Of those, hosts that may be served from a private address (an intranet, a test); empty: public addresses only.
HYDRATA_CIMD_PRIVATE_HOSTS = _env_list("HYDRATA_CIMD_PRIVATE_HOSTS", [])

OAUTH2_PROVIDER_APPLICATION_MODEL = "oauth2_provider.Application"  # named, so migrations can refer to it
OAUTH2_PROVIDER = {
    "OIDC_ISS_ENDPOINT": HYDRATA_SITE_URL,
    # The one spelling of the MCP resource (RFC 8707 `resource`, the tokens' `aud`): with its trailing slash.
    "OAUTH2_PROTECTED_RESOURCE_IDENTIFIER": f"{HYDRATA_SITE_URL}/mcp/",
    "OAUTH2_PROTECTED_RESOURCE_NAME": "Hydrata MCP",
    "OAUTH2_SERVER_CLASS": "hydrata.oauth.server.ConnectServer",
    "OAUTH2_VALIDATOR_CLASS": "hydrata.oauth.validator.ConnectValidator",
    "ACCESS_TOKEN_GENERATOR": "hydrata.oauth.tokens.access_token_for",
    # Without this oauthlib would mint refresh tokens with the access-token generator (JWTs).
    "REFRESH_TOKEN_GENERATOR": "oauthlib.oauth2.rfc6749.tokens.random_token_generator",
    "SCOPES": {
        "read": "Look at projects, maps and results",
        "draft": "Also build and edit models",
        "launch": "Also launch simulations, which spend money",
        "offline_access": "Stay connected between sessions (refresh tokens)",
    },
    "DEFAULT_SCOPES": ["read"],
    "ACCESS_TOKEN_EXPIRE_SECONDS": HYDRATA_OAUTH_ACCESS_TOKEN_SECONDS,
    "REFRESH_TOKEN_EXPIRE_SECONDS": HYDRATA_OAUTH_REFRESH_TOKEN_SECONDS,
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 60,
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "PKCE_REQUIRED": True,
    "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https"],  # http for loopback only: hydrata/oauth/policy.py
    "ALLOW_LOCALHOST_LOOPBACK": True,
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["none", "client_secret_basic", "client_secret_post"],
    "DCR_ENABLED": True,
    "DCR_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.dcr.AllowAllDCRPermission",),
    "CIMD_ENABLED": bool(HYDRATA_CIMD_ALLOWED_HOSTS),
    "CIMD_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.cimd.HostAllowlistCIMDPermission",),
    "CIMD_ALLOWED_HOSTS": HYDRATA_CIMD_ALLOWED_HOSTS,
    "CIMD_METADATA_FETCHER": "hydrata.oauth.cimd.MetadataFetcher",
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "COMPLIANT_BCP_RFC9700_REFRESH_TOKEN": True,
    "COMPLIANT_BCP_RFC9700_REDIRECT_URI_MATCHING": True,
    "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
}
