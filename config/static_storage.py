"""Production's static files: whitenoise's compressed storage under content-hashed names, with the map's ES module
imports rewritten to those names too, so a page never runs a new module with an old one it imports from a cache that
keeps it for ever."""

from django.contrib.staticfiles.storage import HashedFilesMixin
from whitenoise.storage import CompressedManifestStaticFilesStorage

# The map's modules: the site's (hydrata/map/static/map/) and the map core (map_core/).
MODULE_GLOBS = ("map/*.js", "map_core/*.js")


class HashedModulesStaticFilesStorage(CompressedManifestStaticFilesStorage):
    # Django's own import patterns (what support_js_module_import_aggregation switches on, under a private name the
    # stubs leave out), for the map's modules only: on for every .js (Swagger UI's, the admin's, Leaflet) they added
    # about 4 s to the collectstatic the web command runs at each start (18 s to 22 s here), rewriting nothing there.
    # tests/config/test_static_files.py fails if Django moves them.
    patterns = CompressedManifestStaticFilesStorage.patterns + tuple(
        (glob, HashedFilesMixin._js_module_import_aggregation_patterns[1])  # type: ignore[attr-defined]
        for glob in MODULE_GLOBS
    )

    def compress_files(self, paths):
        """Compress each file under its hashed name only. whitenoise compresses both of its names, but every page
        asks for the hashed one (cached for ever); the other is served as it is. Half of the compressing the web
        line's collectstatic does at each start."""
        hashed = set(self.hashed_files.values())
        return super().compress_files([path for path in paths if path in hashed])
