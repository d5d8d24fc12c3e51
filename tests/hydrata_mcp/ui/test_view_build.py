"""build.py joins the view's ES modules without a bundler, so it refuses any form of import or export it does not
join rather than build a bundle that fails in the host."""

import pytest

from hydrata_mcp.ui.view import build


@pytest.fixture
def modules(tmp_path, monkeypatch):
    """A mount of sample modules, written by the test."""
    monkeypatch.setattr(build, "MOUNTS", {"sample": tmp_path})

    def write(name: str, text: str) -> None:
        (tmp_path / name).write_text(text, encoding="utf-8")

    return write


def test_the_modules_are_joined_each_after_what_it_imports_with_its_imports_read_from_its_exports(modules):
    modules("main.js", 'import { twice as double } from "./maths.js";\nimport * as words from "./words.js";\n')
    modules("maths.js", 'import { ONE } from "./words.js";\nexport function twice(n) { return 2 * n * ONE; }\n')
    modules("words.js", "export const ONE = 1;\n")

    assert build.module_order("sample/main.js") == ["sample/words.js", "sample/maths.js", "sample/main.js"]
    assert "const { twice: double } = $sample_maths;" in build.joined_module("sample/main.js")
    assert "const words = $sample_words;" in build.joined_module("sample/main.js")
    assert build.joined_module("sample/words.js").endswith("const ONE = 1;\nreturn { ONE };\n})();\n")


@pytest.mark.parametrize(
    "line",
    [
        'import dom from "./dom.js";',
        'import "./dom.js";',
        'import { el } from "https://cdn.example/dom.js";',
        'import {el} from "./dom.js";',
    ],
)
def test_an_import_the_build_does_not_join_is_refused(modules, line):
    modules("main.js", line + "\n")

    with pytest.raises(ValueError, match="an import this build does not join"):
        build.module_order("sample/main.js")


@pytest.mark.parametrize("line", ["export default function () {}", "export { el };", 'export * from "./dom.js";'])
def test_an_export_the_build_does_not_join_is_refused(modules, line):
    modules("main.js", line + "\n")

    with pytest.raises(ValueError, match="an export this build does not join"):
        build.joined_module("sample/main.js")


def test_modules_that_import_one_another_in_a_circle_are_refused(modules):
    modules("main.js", 'import { b } from "./other.js";\nexport const a = 1;\n')
    modules("other.js", 'import { a } from "./main.js";\nexport const b = 2;\n')

    with pytest.raises(ValueError, match=r"in a circle: sample/main\.js -> sample/other\.js -> sample/main\.js"):
        build.module_order("sample/main.js")
