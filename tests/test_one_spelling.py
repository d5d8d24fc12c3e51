"""Each run status, run phase, terrain status, result layer, hazard class and error code is spelt in exactly one
place, `hydrata_contract`: a second spelling in the Python or JavaScript of either wing fails here."""

from pathlib import Path

from scripts.spellings import javascript_spellings, python_spellings, second_spellings


def test_no_contract_word_is_spelt_a_second_time_in_python_or_javascript():
    assert [str(spelling) for spelling in second_spellings()] == []


def sample(tmp_path: Path, name: str, text: str) -> Path:
    # python_spellings names files relative to the repository, so the sample lives under it for the call
    path = tmp_path / name
    path.write_text(text)
    return path


def literals(found) -> list[tuple[int, str]]:
    return [(spelling.line, spelling.literal) for spelling in found]


def test_a_python_second_spelling_is_found_where_it_stands_for_a_state_a_layer_or_a_code(monkeypatch, tmp_path):
    monkeypatch.setattr("scripts.spellings.ROOT", tmp_path)
    path = sample(
        tmp_path,
        "sample.py",
        '"""A docstring may say queued and max_depth."""\n'
        'if run.status == "complete":\n'
        '    raise Conflict("x", code="RUN_NOT_FOUND")\n'
        'TERMINAL = ("error", "cancelled")\n'
        'run.update(status="built")\n'
        'path = f"{prefix}/max_depth.tif"\n'
        'grids["max_hazard"]\n'
        'answer = {"error": message, "phase": "meshing"}\n',
    )

    assert literals(python_spellings(path)) == [
        (2, "complete"),
        (3, "RUN_NOT_FOUND"),
        (4, "error"),
        (4, "cancelled"),
        (5, "built"),
        (7, "max_hazard"),
        (8, "meshing"),
    ]


def test_a_common_word_that_is_not_a_state_is_left_alone_in_python(monkeypatch, tmp_path):
    monkeypatch.setattr("scripts.spellings.ROOT", tmp_path)
    path = sample(
        tmp_path,
        "sample.py",
        'fields = ["status", "created", "log"]\nlast.get("error")\nstate = {"error": None}\nlevel = "ready"\n',
    )

    assert literals(python_spellings(path)) == []


def test_a_javascript_second_spelling_is_found_and_a_page_state_is_not(monkeypatch, tmp_path):
    monkeypatch.setattr("scripts.spellings.ROOT", tmp_path)
    path = sample(
        tmp_path,
        "sample.js",
        'var TERMINAL = ["complete", "error", "cancelled"];\n'
        'if (run.status === "error") { show("max_depth"); }\n'
        'context.setState("error", "The mesh failed");\n'
        '// a comment may say "queued"\n'
        'box.className = isError ? "error" : "";\n',
    )

    assert literals(javascript_spellings(path)) == [
        (1, "complete"),
        (1, "error"),
        (1, "cancelled"),
        (2, "error"),
        (2, "max_depth"),
    ]
