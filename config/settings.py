"""Settings, read from the environment with embedded defaults so one machine runs everything.

This is the only module that reads the environment.
"""

import os
import secrets
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

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


DEBUG = _env_bool("DEBUG", False)
HYDRATA_ENV = os.environ.get("HYDRATA_ENV", "local")

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if HYDRATA_ENV == "production":
        raise ImproperlyConfigured("SECRET_KEY must be set when HYDRATA_ENV=production.")
    SECRET_KEY = _local_secret_key()

# The origin people open in a browser; ui_url links point here.
HYDRATA_SITE_URL = os.environ.get("HYDRATA_SITE_URL", "http://127.0.0.1:8000").rstrip("/")
# Where the MCP tools send their REST calls (loopback to this same server by default).
HYDRATA_API_ORIGIN = os.environ.get("HYDRATA_API_ORIGIN", HYDRATA_SITE_URL).rstrip("/")
HYDRATA_API_TIMEOUT_SECONDS = float(os.environ.get("HYDRATA_API_TIMEOUT_SECONDS", "30"))
# Origins (besides HYDRATA_SITE_URL and the request's own host) allowed to call /mcp/ from a browser.
HYDRATA_MCP_ALLOWED_ORIGINS = _env_list("HYDRATA_MCP_ALLOWED_ORIGINS", [])

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
    "django.contrib.staticfiles",
    "rest_framework",
    "hydrata.core",
    "hydrata.agents",
    "hydrata.anuga",
    "hydrata.uploads",
    "hydrata_mcp",
]

MIDDLEWARE = [
    "hydrata_mcp.gate.MCPGateMiddleware",
    "hydrata_mcp.redaction.RedactionMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise warns about a missing folder at every start
# whitenoise serves the static files in every process (daphne serves none). Production serves what collectstatic
# wrote, under content-hashed names cached for ever; elsewhere files come straight from the apps, so tests and
# `make run` need no collectstatic.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage" if HYDRATA_ENV == "production"
                    else "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = HYDRATA_ENV != "production"
WHITENOISE_AUTOREFRESH = DEBUG
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", VAR_DIR / "media"))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "hydrata.agents.authentication.AgentKeyAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["hydrata.agents.permissions.GrantLevelPermission"],
    "DEFAULT_PAGINATION_CLASS": "hydrata.core.pagination.PageNumberPagination",
    "PAGE_SIZE": 100,
    "EXCEPTION_HANDLER": "hydrata.core.exception_handler.api_exception_handler",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

# Background work (Celery). Embedded default: the filesystem transport, which needs no broker server.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    _queue_dir = VAR_DIR / "celery" / "queue"
    _queue_dir.mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_queue_dir),
        "data_folder_out": str(_queue_dir),
        "store_processed": False,
        "control_folder": str(VAR_DIR / "celery" / "control"),
    }
CELERY_TASK_ALWAYS_EAGER = _env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# Storage of uploaded and produced files: "local" (files under MEDIA_ROOT, URLs signed by this server) or "s3".
HYDRATA_STORAGE_BACKEND = os.environ.get("HYDRATA_STORAGE_BACKEND", "local")
HYDRATA_S3_BUCKET = os.environ.get("HYDRATA_S3_BUCKET", "")
HYDRATA_S3_REGION = os.environ.get("HYDRATA_S3_REGION", os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))
HYDRATA_S3_ENDPOINT_URL = os.environ.get("HYDRATA_S3_ENDPOINT_URL") or None
HYDRATA_UPLOAD_URL_EXPIRY_SECONDS = int(os.environ.get("HYDRATA_UPLOAD_URL_EXPIRY_SECONDS", "3600"))
HYDRATA_DOWNLOAD_URL_EXPIRY_SECONDS = int(os.environ.get("HYDRATA_DOWNLOAD_URL_EXPIRY_SECONDS", "3600"))
HYDRATA_TERRAIN_MAX_BYTES = int(os.environ.get("HYDRATA_TERRAIN_MAX_BYTES", str(5 * 1024**3)))
HYDRATA_GEOJSON_MAX_BYTES = int(os.environ.get("HYDRATA_GEOJSON_MAX_BYTES", str(50 * 1024**2)))
HYDRATA_GEOJSON_MAX_FEATURES = int(os.environ.get("HYDRATA_GEOJSON_MAX_FEATURES", "100000"))

# Scenarios and compute
HYDRATA_MESH_MAX_TRIANGLES = int(os.environ.get("HYDRATA_MESH_MAX_TRIANGLES", "1500000"))
HYDRATA_COMPUTE_USD_PER_VCPU_HOUR = float(os.environ.get("HYDRATA_COMPUTE_USD_PER_VCPU_HOUR", "0.10"))
# Where simulations may run: "local" is the Celery workers; "ec2" and "batch" answer 409 until configured.
HYDRATA_COMPUTE_BACKENDS = _env_list("HYDRATA_COMPUTE_BACKENDS", ["local"])
HYDRATA_ANUGA_THREADS = int(os.environ.get("HYDRATA_ANUGA_THREADS", str(os.cpu_count() or 1)))
HYDRATA_RUN_YIELD_SECONDS = float(os.environ.get("HYDRATA_RUN_YIELD_SECONDS", "0"))  # 0 = chosen per duration
# A computing run whose worker has not reported for this long is ended in error (worker or machine lost).
HYDRATA_RUN_HEARTBEAT_TIMEOUT_SECONDS = int(os.environ.get("HYDRATA_RUN_HEARTBEAT_TIMEOUT_SECONDS", "45"))

# The map page: an optional background map (an XYZ template such as https://tile.example/{z}/{x}/{y}.png; empty = the
# terrain's hillshade is the background, and the page asks no other server for anything), and how long rendered
# tiles of the (never changing) terrain and result rasters are kept in the cache.
HYDRATA_BASEMAP_URL = os.environ.get("HYDRATA_BASEMAP_URL", "")
HYDRATA_BASEMAP_ATTRIBUTION = os.environ.get("HYDRATA_BASEMAP_ATTRIBUTION", "")
HYDRATA_TILE_CACHE_SECONDS = int(os.environ.get("HYDRATA_TILE_CACHE_SECONDS", "86400"))
# The most triangles of a mesh the map is sent for one view; above it the map shows the outline and asks to zoom in.
HYDRATA_MESH_VIEW_MAX_TRIANGLES = int(os.environ.get("HYDRATA_MESH_VIEW_MAX_TRIANGLES", "20000"))

# Agent grants
HYDRATA_GRANT_LAST_USED_THROTTLE_SECONDS = int(os.environ.get("HYDRATA_GRANT_LAST_USED_THROTTLE_SECONDS", "60"))

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
    },
}

if HYDRATA_ENV == "production":
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
