"""Gates in evalwh.toml: read by check and report, flags laid over them, every malformed entry refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalwh.app import app
from evalwh.errors import UsageError
from evalwh.history.check import Condition
from evalwh.history.gates import Gates, merge, read_gates
from evalwh.loader import load_run
from tests.conftest import CHAPTER3


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "evalwh.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_check_table_reads_every_kind(tmp_path: Path) -> None:
    gates = read_gates(write(tmp_path, """
[check]
require_baseline = true
min = { supported_share = 0.8 }
max = { DANGLING = 0 }
max_drop = { pair_precision = 0.05 }
max_regressions = { questions = 0, claims = 2 }
"""))
    assert gates.require_baseline
    assert gates.conditions == [Condition("min", "supported_share", 0.8), Condition("max", "dangling", 0.0),
                                Condition("max-drop", "pair_precision", 0.05),
                                Condition("max-regressions", "questions", 0.0),
                                Condition("max-regressions", "claims", 2.0)]


def test_a_file_without_a_check_table_sets_no_gates(tmp_path: Path) -> None:
    assert read_gates(write(tmp_path, "[other]\nx = 1\n")).empty


@pytest.mark.parametrize(("text", "message"), [
    ("[check]\nminimum = { a = 1 }\n", "[check] has no key 'minimum' (did you mean 'min'?)"),
    ("[check]\nmin = 0.8\n", "[check] min must be a table of METRIC = NUMBER"),
    ("[check]\nmin = { supported_share = \"0.8\" }\n", "[check] min.supported_share: expected a finite number"),
    ("[check]\nmax = { dangling = true }\n", "[check] max.dangling: expected a finite number, got True"),
    ("[check]\nmax = { dangling = inf }\n", "[check] max.dangling: expected a finite number"),
    ("[check]\nmax_regressions = { questoins = 0 }\n", "max_regressions.questoins: count questions or claims"),
    ("[check]\nrequire_baseline = \"yes\"\n", "require_baseline: expected true or false"),
    ("[check\n", "not valid TOML"),
    ("check = 1\n", "[check] must be a table"),
])
def test_a_malformed_entry_names_the_file_and_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(UsageError) as error:
        read_gates(path)
    assert str(error.value).startswith(f"{path}: ") and message in str(error.value)


def test_a_flag_replaces_the_files_condition_on_the_same_metric_only() -> None:
    configured = Gates([Condition("min", "supported_share", 0.8), Condition("max", "dangling", 0.0)], False,
                       Path("evalwh.toml"))
    merged = merge(configured, [Condition("min", "supported_share", 0.5)], require_baseline=True)
    assert merged.conditions == [Condition("max", "dangling", 0.0), Condition("min", "supported_share", 0.5)]
    assert merged.require_baseline and merged.source == Path("evalwh.toml")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder with a warehouse holding the chapter's run; the working directory."""
    load_run(tmp_path / "wh.duckdb", CHAPTER3, run="base")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["--db", "wh.duckdb", "check", *args])
    return result.exit_code, result.stdout, result.stderr


def test_check_reads_evalwh_toml_in_the_working_directory(project: Path) -> None:
    # the chapter's run: 4 of 8 claims supported (0.5), one DANGLING claim
    (project / "evalwh.toml").write_text("[check]\nmin = { supported_share = 0.6 }\nmax = { DANGLING = 1 }\n",
                                         encoding="utf-8")
    code, out, err = check()
    assert code == 1
    assert out.splitlines()[1:3] == ["FAIL  supported_share >= 0.600: is 0.500", "ok    dangling <= 1: is 1"]
    assert err == "evalwh: check failed: 1 of 2 conditions\n"
    # the flag replaces the file's supported_share gate; the file's DANGLING gate still holds
    code, out, _ = check("--min", "supported_share=0.5")
    assert code == 0 and out.splitlines()[1:] == ["ok    dangling <= 1: is 1",
                                                  "ok    supported_share >= 0.500: is 0.500",
                                                  "run base: all 2 conditions hold"]
    code, out, _ = check("--no-config", "--max", "DANGLING=0")
    assert code == 1 and len(out.splitlines()) == 3


def test_check_with_neither_flags_nor_a_file_is_a_usage_error(project: Path) -> None:
    code, out, err = check()
    assert (code, out) == (2, "")
    assert "a [check] table in evalwh.toml" in err


def test_a_missing_or_malformed_config_is_a_usage_error(project: Path) -> None:
    code, _, err = check("--config", "nope.toml")
    assert code == 2 and err == "evalwh: error: --config nope.toml: no such file\n"
    (project / "evalwh.toml").write_text("[check]\nmin = { supported_share = 'high' }\n", encoding="utf-8")
    code, out, err = check()
    assert (code, out) == (2, "")
    assert err.startswith("evalwh: error: ") and "evalwh.toml: [check] min.supported_share" in err
    assert err.count("\n") == 1
