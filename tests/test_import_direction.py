"""Which way the platform's imports point, read from the source with `ast` (function-local imports included):
compute is the floor, uploads sits below anuga, the compute backends (hydrata/backends) sit below anuga's services,
and the anuga services and the backends import one another without cycles. The rooms within compute are held by
tests/hydrata/compute/test_trades.py."""

from pathlib import Path

import hydrata
from scripts.import_graph import imported_names, module_edges, package_modules, strongly_connected

PLATFORM = Path(hydrata.__file__).parent
MODULES = package_modules(PLATFORM)


def imports_of(prefix: str) -> dict[str, set[str]]:
    """Every name each module under `prefix` imports, anywhere in the module."""
    return {
        module: {name for name, _ in imported_names(path, importer=module)}
        for module, path in MODULES.items()
        if module == prefix or module.startswith(f"{prefix}.")
    }


def offenders(imports: dict[str, set[str]], forbidden) -> dict[str, list[str]]:
    found = {module: sorted(name for name in names if forbidden(name)) for module, names in imports.items()}
    return {module: names for module, names in found.items() if names}


def is_under(name: str, *packages: str) -> bool:
    return any(name == package or name.startswith(f"{package}.") for package in packages)


def test_compute_imports_no_django_and_no_other_part_of_the_platform():
    def forbidden(name: str) -> bool:
        outside_compute = is_under(name, "hydrata") and not is_under(name, "hydrata.compute")
        return outside_compute or is_under(name, "django", "rest_framework", "celery", "config", "hydrata_mcp")

    assert offenders(imports_of("hydrata.compute"), forbidden) == {}


# What the compute backends may import (their docstring says it): compute, core, storage, anuga's models and selectors;
# never anuga's services, api or tasks, which start them. `import hydrata` alone is the source tree's place (the
# local backend starts its child from there).
BACKENDS_MAY_IMPORT = (
    "hydrata.compute",
    "hydrata.core",
    "hydrata.storage",
    "hydrata.anuga.models",
    "hydrata.anuga.selectors",
)


def test_the_backends_import_of_the_platform_only_compute_core_storage_and_anugas_models_and_selectors():
    def forbidden(name: str) -> bool:
        platform = is_under(name, "hydrata", "hydrata_mcp", "config") and name != "hydrata"
        return platform and not is_under(name, "hydrata.backends", *BACKENDS_MAY_IMPORT)

    assert offenders(imports_of("hydrata.backends"), forbidden) == {}


def test_uploads_imports_nothing_of_anuga():
    assert offenders(imports_of("hydrata.uploads"), lambda name: is_under(name, "hydrata.anuga")) == {}


# The floors above observations (docs/architecture.md, "Floors of the platform"): they may read it.
ABOVE_OBSERVATIONS = ("hydrata.observations", "hydrata.calibration", "hydrata.reports")


def test_nothing_below_observations_imports_it():
    below = {
        module: names for module, names in imports_of("hydrata").items() if not is_under(module, *ABOVE_OBSERVATIONS)
    }

    assert offenders(below, lambda name: is_under(name, "hydrata.observations")) == {}


def test_the_anuga_services_and_the_backends_import_one_another_without_a_cycle():
    services = {module for module in MODULES if is_under(module, "hydrata.anuga.services", "hydrata.backends")}
    edges = {
        (edge.source, edge.target)
        for edge in module_edges(PLATFORM)
        if edge.source in services and edge.target in services
    }

    assert edges  # the graph is read: runs imports build, for one
    assert strongly_connected(services, edges) == []


def test_a_cycle_hidden_in_function_local_imports_is_found(tmp_path):
    package = tmp_path / "sample"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "first.py").write_text("def go():\n    from sample.second import back\n    return back()\n")
    (package / "second.py").write_text("def back():\n    from . import first\n    return first\n")

    edges = module_edges(package)

    assert {(edge.source, edge.target, edge.local) for edge in edges} == {
        ("sample.first", "sample.second", True),
        ("sample.second", "sample.first", True),
    }
    assert strongly_connected({"sample.first", "sample.second"}, {(e.source, e.target) for e in edges}) == [
        ["sample.first", "sample.second"]
    ]
