"""The documentation held against the code: the generated reference is current, every command and
view is in it, every command's help has an example, the README's command list is the app's, its
links resolve, and the examples in the README and the library page run as written."""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import re
import shlex
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from evalwh.app import app

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
CHAPTER3 = ROOT / "seeds" / "chapter3"


@functools.cache
def generator() -> ModuleType:
    """docs/generate.py, imported once (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location("docs_generate", DOCS / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pages() -> dict[Path, str]:
    return generator().pages()


def visible_commands() -> list[tuple[list[str], Any]]:
    return generator()._commands(typer.main.get_command(app), [])


def test_the_generated_reference_is_current(pages: dict[Path, str]) -> None:
    for path, text in pages.items():
        assert path.exists(), f"{path.name} is missing: run make docs"
        assert path.read_text(encoding="utf-8") == text, f"{path.name} is stale: run make docs"


def test_the_check_mode_names_a_stale_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = generator()
    stale = tmp_path / "docs" / "reference" / "cli.md"
    stale.parent.mkdir(parents=True)
    stale.write_text("old\n", encoding="utf-8")
    monkeypatch.setattr(module, "DOCS", tmp_path / "docs")
    monkeypatch.setattr(module, "pages", lambda: {stale: "new\n"})
    assert module.main(["--check"]) == 1
    assert stale.read_text(encoding="utf-8") == "old\n"  # --check writes nothing
    assert module.main([]) == 0 and stale.read_text(encoding="utf-8") == "new\n"


def test_every_command_is_in_the_reference_with_its_options() -> None:
    reference = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    commands = visible_commands()
    assert len(commands) >= 20
    for words, command in commands:
        assert f"## `evalwh {' '.join(words)}`" in reference
        for param in command.params:
            if param.param_type_name == "option" and not param.hidden and param.name != "help":
                assert param.opts[-1] in reference, (words, param.opts)


def test_every_command_help_has_an_example() -> None:
    runner = CliRunner()
    for words, _command in [([], None), *visible_commands()]:
        result = runner.invoke(app, [*words, "--help"])
        assert result.exit_code == 0, words
        examples = [line.strip() for line in result.stdout.splitlines() if line.strip().startswith("Example: ")]
        assert examples, f"evalwh {' '.join(words)} --help has no example"
        assert all(example.removeprefix("Example: ").startswith("evalwh") for example in examples), examples


def test_every_table_and_view_is_in_the_reference_with_what_a_row_is() -> None:
    module = generator()
    reference = (DOCS / "reference" / "warehouse.md").read_text(encoding="utf-8")
    tables = module._catalog("table")
    views = module._catalog("view")
    assert {"runs", "claims", "citations", "chunk_refs", "log_requests"} <= set(tables)
    assert {path.stem for path in (ROOT / "models").glob("*.sql")} <= set(views)
    for name in [*tables, *views]:
        assert f"### `{name}`" in reference, name
    comments = module.table_comments()
    for name in tables:
        assert comments[name].row.startswith("One row per"), name
    for name, sql in module.model_sources().items():
        assert module.model_header(sql)[0].startswith("One row per"), name


def test_a_table_rebuilt_by_a_later_step_keeps_its_comments() -> None:
    comments = generator().table_comments()
    # claims and citations were rebuilt in step 6 without restating what a row is
    assert comments["claims"].row == "One row per drafted claim, in file order."
    assert comments["citations"].row.startswith("One row per (claim, cited id)")
    assert comments["runs"].columns["dataset"].startswith("the dataset the run belongs to")


def test_the_readme_is_short_and_names_the_test_command() -> None:
    text = README.read_text(encoding="utf-8")
    assert 150 <= len(text.splitlines()) <= 250
    assert "make test" in text and "make demo" in text


def test_the_readme_lists_every_command_once() -> None:
    text = README.read_text(encoding="utf-8")
    listed = re.findall(r"^\| `evalwh ([a-z]+(?: [a-z]+)?)[ `]", text, re.MULTILINE)
    expected = [" ".join(words) for words, command in visible_commands() if not hasattr(command, "list_commands")]
    assert sorted(listed) == sorted(expected)


def test_the_readme_exit_codes_are_the_ones_the_code_has() -> None:
    from evalwh.errors import ExitCode

    text = README.read_text(encoding="utf-8")
    listed = {int(code) for code in re.findall(r"^\| `(\d+)` \|", text, re.MULTILINE)}
    assert listed == {int(code) for code in ExitCode}


def test_every_link_in_the_docs_resolves() -> None:
    pages = [README, *DOCS.glob("*.md"), *DOCS.glob("reference/*.md")]
    linked_from_readme = set()
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if target.startswith(("http://", "https://")):
                continue
            resolved = (page.parent / target).resolve()
            assert resolved.exists(), f"{page.name}: {target}"
            if page == README:
                linked_from_readme.add(resolved)
    assert {path.resolve() for path in DOCS.glob("*.md")} <= linked_from_readme


def test_the_architecture_page_names_every_package() -> None:
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    for package in sorted(p.parent.name for p in (ROOT / "cli" / "evalwh").glob("*/__init__.py")):
        assert f"  {package}/" in text, package


def tour_commands() -> list[list[str]]:
    """The evalwh lines of the README's tour, comments stripped, redirections left out."""
    text = README.read_text(encoding="utf-8")
    tour = text[text.index("## A tour on your own data"):text.index("## Commands")]
    block = re.findall(r"```sh\n(.*?)```", tour, re.DOTALL)[0]
    lines = [line.split("  #")[0].strip() for line in block.splitlines()]
    return [shlex.split(line)[1:] for line in lines if line.startswith("evalwh ") and ">" not in line]


def test_the_readme_tour_runs_on_the_chapter_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(CHAPTER3, tmp_path / "eval-data")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    codes = {}
    for args in tour_commands():
        result = runner.invoke(app, args, env={"EVALWH_DB": str(tmp_path / "evalwh.duckdb")})
        codes[args[0]] = result.exit_code
        assert "Traceback" not in result.stderr
    # the chapter's claims: 4 of 8 supported and one DANGLING, so the tour's gate fails, and says so
    assert codes == {"load": 0, "status": 0, "metrics": 0, "report": 0, "check": 1}
    assert (tmp_path / "out" / "report.html").stat().st_size > 0


def run_page_example(name: str) -> tuple[str, str]:
    """Run the first Python block of docs/<name> in the working directory; returns (what it printed,
    what the page's first text block says it prints)."""
    page = (DOCS / name).read_text(encoding="utf-8")
    code = re.findall(r"```python\n(.*?)```", page, re.DOTALL)[0]
    printed = re.findall(r"```text\n(.*?)```", page, re.DOTALL)[0]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"docs/{name}", "exec"), {})
    return out.getvalue(), printed


def test_the_library_example_prints_what_the_page_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(CHAPTER3, tmp_path / "eval-data")
    monkeypatch.chdir(tmp_path)
    out, printed = run_page_example("api.md")
    # the chapter's eight claims: c1, c3, c7, c8 SUPPORTED; c2 NUMBER_MISMATCH; c4 UNCITED; c5 UNSUPPORTED;
    # c6 DANGLING, so the share supported is 4/8
    assert out == printed
    assert "supported share 0.5\n" in printed and "SUPPORTED 4\n" in printed
    assert (tmp_path / "out" / "report.html").exists()


def test_make_demo_ends_at_what_got_worse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo's evalwh commands, read from the Makefile and run in a fresh folder: the report of the latest
    run (the handbook's second) leads with what got worse, u1 (answered, though it must be refused) first."""

    from typer.testing import CliRunner

    from evalwh.app import app

    recipe = (ROOT / "Makefile").read_text(encoding="utf-8").split("\ndemo:", 1)[1].split("\n\n", 1)[0]
    commands = [shlex.split(line.strip().removeprefix("$(BIN)/evalwh").split("||")[0])
                for line in recipe.splitlines() if line.strip().startswith("$(BIN)/evalwh")]
    assert [c[2] for c in commands][:4] == ["seed", "cases", "seed", "seed"]
    monkeypatch.chdir(tmp_path)
    codes = [CliRunner().invoke(app, args).exit_code for args in commands]
    assert codes[:-1] == [0] * (len(codes) - 1) and codes[-1] == 1  # the gate fails, naming what got worse
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    worse = report[report.index("### What got worse since handbook"):report.index("### What got better")]
    assert worse.index("| u1: Can I bring my dog to the office? |") < worse.index("| q1: How many days")
    assert (tmp_path / "cases.tsv").read_text(encoding="utf-8").startswith("q1\tanswer\thandbook-1\n")  # the chapter's cases
