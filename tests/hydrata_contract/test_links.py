"""The map link both wings hand to people: the base map in the path, then only the parameters given."""

from urllib.parse import parse_qsl, urlsplit

from hydrata_contract.links import Panel, map_url


def test_a_link_without_parameters_opens_the_projects_map():
    assert map_url(site_url="https://hydrata.example", base_map=7) == "https://hydrata.example/catalogue/#/map/7"


def test_a_link_names_the_panel_and_each_object_given_in_a_fixed_order_and_leaves_out_the_rest():
    link = map_url(site_url="https://h.example", base_map=3, panel=Panel.RUN, scenario=5, run=9, compare=0)

    fragment = urlsplit(link).fragment
    path, _, query = fragment.partition("?")
    assert path == "/map/3"
    assert parse_qsl(query) == [("panel", "run"), ("scenario", "5"), ("run", "9"), ("compare", "0")]


def test_every_panel_is_spelt_as_the_map_reads_it():
    assert [panel.value for panel in Panel] == [
        "terrain",
        "inputs",
        "time-series",
        "scenario",
        "run",
        "observations",
        "comparison",
        "study",
        "calibration",
    ]


def test_a_study_link_names_its_study_after_every_other_parameter():
    link = map_url(site_url="https://h.example", base_map=3, panel=Panel.STUDY, scenario=5, study=12)

    query = urlsplit(link).fragment.partition("?")[2]
    assert parse_qsl(query) == [("panel", "study"), ("scenario", "5"), ("study", "12")]
