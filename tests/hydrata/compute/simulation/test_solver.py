"""A report states the solver's settings as ANUGA holds them: the simulation's own domain keeps every parameter of
a fresh ANUGA domain (it sets none), so the report reads them from ANUGA rather than writing a guess down; and the
vertical datum is the one a terrain's CRS names, or none."""

from rasterio.crs import CRS

from hydrata.compute.scenario.package import load_package
from hydrata.compute.simulation import simulate
from hydrata.compute.simulation.forcing import import_anuga
from hydrata.compute.simulation.solver import SHOWN, algorithm_parameters, default_algorithm_parameters, vertical_datum
from tests.hydrata.compute.channel import make_channel_package, run_channel


def test_the_simulations_domain_holds_the_solver_settings_the_report_states(tmp_path):
    package = load_package(make_channel_package(tmp_path / "package", duration=60))
    (tmp_path / "output").mkdir()

    model = simulate.build_model(package=package, output_dir=tmp_path / "output", threads=1)

    assert algorithm_parameters(model.domain) == default_algorithm_parameters()
    assert list(default_algorithm_parameters()) == list(SHOWN)


def test_a_compound_crs_names_its_vertical_datum_and_a_horizontal_one_names_none():
    assert vertical_datum("EPSG:28356+5711") == "Australian Height Datum"
    assert vertical_datum("EPSG:5711") == "Australian Height Datum"
    compound = CRS.from_user_input("EPSG:28356+5711").to_string()  # a GeoTIFF's, as crs_label keeps it: its WKT
    assert vertical_datum(compound) == "Australian Height Datum"
    assert vertical_datum("EPSG:28356") is None
    assert vertical_datum("not a crs") is None


def test_a_run_records_the_anuga_version_and_the_settings_it_ran_with_in_its_statistics(tmp_path):
    run = run_channel(make_channel_package(tmp_path / "package", duration=20), tmp_path / "output")

    assert run.statistics["solver"] == {
        "anuga_version": import_anuga().__version__,
        "parameters": default_algorithm_parameters(),
    }
