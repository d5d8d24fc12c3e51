"""Production's static files: whitenoise's compressed storage under content-hashed names, with the map's ES modules'
imports rewritten to those names too (Django leaves them alone unless asked), so a page never runs a new module
with an old one it imports from a cache that keeps it for ever."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class HashedModulesStaticFilesStorage(CompressedManifestStaticFilesStorage):
    support_js_module_import_aggregation = True
