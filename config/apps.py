from django.contrib.staticfiles.apps import StaticFilesConfig as DjangoStaticFilesConfig


class StaticFilesConfig(DjangoStaticFilesConfig):
    """Django's static files, leaving out what no page of the site loads: drf-spectacular-sidecar's ReDoc bundle
    (5 MB with its source map; the API docs are Swagger UI). collectstatic, which the web command runs at every
    start, would otherwise hash and compress it each time (about 2 CPU seconds)."""

    ignore_patterns = [*DjangoStaticFilesConfig.ignore_patterns, "redoc"]
