"""The layering is a contract: the command line on top, Rich in one module, no import upward, no cycle."""

from __future__ import annotations

import shutil
import subprocess
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

from tests.layers import LAYERS, imports, layer_of, violations

PACKAGE = Path(__file__).resolve().parent.parent / "cli" / "evalwh"


def test_the_package_keeps_its_layers() -> None:
    assert violations(PACKAGE) == []


def test_no_module_imports_another_package_s_private_module() -> None:
    # duckdb's compiled _duckdb, Typer's vendored _click: public APIs only, so the installed command and the
    # tests use the same objects
    found = [(m, t) for m, targets in imports(PACKAGE).items() for t in targets
             if t.split(".")[0] != "evalwh" and any(part.startswith("_") and not part.startswith("__")
                                                    for part in t.split("."))]
    assert found == []


def test_every_module_belongs_to_a_layer() -> None:
    assert [m for m in imports(PACKAGE) if layer_of(m) is None] == []


def test_the_graph_has_arrows_and_no_cycle() -> None:
    found = imports(PACKAGE)
    graph = {m: {t for t in targets if t in found} for m, targets in found.items()}
    assert sum(len(t) for t in graph.values()) > 100  # the real graph: the modules do import each other
    try:
        TopologicalSorter({m: t - {m} for m, t in graph.items() if not m.endswith("__init__")}).static_order()
    except CycleError as exc:  # pragma: no cover - shown only when it fails
        pytest.fail(f"import cycle: {exc.args[1]}")
    assert len(LAYERS) == 9


@pytest.mark.parametrize(("module", "line", "why"), [
    ("loader/load.py", "import typer", "only evalwh.app imports the command-line library"),
    ("queries.py", "from rich.table import Table", "Rich is imported only in evalwh.output.terminal"),
    ("warehouse/connection.py", "from evalwh.report import build_report", "an import upward"),
    ("warehouse/views.py", "import _duckdb", "a private module of another package"),
    ("app/argv.py", "from typer._click.exceptions import ClickException", "a private module of another package"),
])
def test_the_check_fails_on_a_forbidden_import(tmp_path: Path, module: str, line: str, why: str) -> None:
    copy = tmp_path / "evalwh"
    shutil.copytree(PACKAGE, copy)
    target = copy / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")
    found = violations(copy)
    assert len(found) == 1 and why in found[0], found


def test_the_library_loads_without_the_command_line() -> None:
    # a fresh interpreter: this test process has imported the CLI already
    code = ("import sys, evalwh, evalwh.loader, evalwh.logs, evalwh.warehouse, evalwh.history, evalwh.report, "
            "evalwh.queries, evalwh.export; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'typer', 'rich', 'click', 'pandas', 'sqlglot', 'pyspark'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_import_evalwh_is_lazy_and_gives_the_library_face() -> None:
    code = ("import sys, evalwh; before = {m for m in sys.modules if m.startswith('evalwh.')}; "
            "print(sorted(before)); import evalwh as e; "
            "print(e.load_run.__module__, e.import_logs.__module__, e.open_warehouse.__module__, "
            "e.materialize.__module__, e.build_report.__module__, e.queries.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == "[]"
    assert out[1].split() == ["evalwh.loader.load", "evalwh.logs.importing", "evalwh.warehouse.connection",
                              "evalwh.history.materialize", "evalwh.report.render", "evalwh.queries"]


def test_the_public_paths_still_import() -> None:
    from evalwh.history import materialize
    from evalwh.loader import load_run
    from evalwh.logs import import_logs
    from evalwh.queries import cases, claim_status, metrics, runs, sweep
    from evalwh.report import build_report
    from evalwh.warehouse import open_warehouse

    assert all(callable(f) for f in (materialize, load_run, import_logs, build_report, open_warehouse,
                                     cases, claim_status, metrics, runs, sweep))
