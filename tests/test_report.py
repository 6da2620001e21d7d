"""evalwh report: golden Markdown, escaping of data, capped tables with the full CSV beside."""

from __future__ import annotations

import csv
import os
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalwh.app import app
from evalwh.loader import load_run
from evalwh.report import build_report
from tests.conftest import CHAPTER3, write_table

GOLDEN = Path(__file__).resolve().parent / "golden"
SCRIPT = "<script>alert(1)</script>"


def run(db: Path, *args: str):
    return CliRunner().invoke(app, ["--db", str(db), *args])


def without_timestamps(text: str) -> str:
    return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", "<created>", text)


def test_markdown_report_matches_golden(two_runs: Path) -> None:
    result = run(two_runs, "report", "--run", "latest", "--format", "md")
    assert (result.exit_code, result.stderr) == (0, "")
    golden = GOLDEN / "report_fixed.md"
    if os.environ.get("EVALWH_UPDATE_GOLDEN"):
        golden.write_text(without_timestamps(result.stdout), encoding="utf-8")
    assert without_timestamps(result.stdout) == golden.read_text(encoding="utf-8")


def test_html_report_shows_changes_highlights_and_limits(two_runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "site" / "report.html"
    result = run(two_runs, "report", "-o", str(out))
    assert result.exit_code == 0
    assert result.stdout == ""
    assert str(out) in result.stderr
    html = out.read_text(encoding="utf-8")
    assert "<mark>must be returned within 14 days</mark> of the issue date" in html
    assert "<mark>changes on the first Monday</mark>" in html
    assert re.search(r"<td>c5</td><td>UNSUPPORTED</td><td>SUPPORTED</td>", html)
    assert "http://" not in html and "https://" not in html
    assert html.count("<script") == 1  # the report's own, and the page allows no other (CSP by hash)
    assert "claim says nothing beyond its quote" in html


def test_chunk_text_is_data_in_both_formats(db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "xss"
    shutil.copytree(CHAPTER3, folder)
    chunks = folder / "chunks.csv"
    chunks.write_text(chunks.read_text(encoding="utf-8").replace("Loan laptops are issued", SCRIPT + " Loan laptops | are *issued*"),
                      encoding="utf-8")
    claims = folder / "claims.csv"
    claims.write_text(claims.read_text(encoding="utf-8").replace('"Remote staff', '"<b>Remote</b> staff'), encoding="utf-8")
    load_run(db, folder, run="xss")
    html = build_report(db, "xss", "html", None)
    assert html.count("<script") == 1 and html.count("<script>// Every table") == 1  # only the report's own
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;b&gt;Remote&lt;/b&gt;" in html
    md = build_report(db, "xss", "md", None)
    assert "<script" not in md and "<b>" not in md
    assert "&lt;script&gt;alert(1)&lt;/script&gt; Loan laptops \\| are \\*issued\\*" in md


def test_long_tables_are_capped_and_the_full_table_is_written_beside(db: Path, tmp_path: Path) -> None:
    load_run(db, CHAPTER3, run="r")
    out = tmp_path / "r.md"
    md = build_report(db, "r", "md", out, max_rows=3)
    assert "Showing the first 3 of 8 claims, failing first; 5 left out. The full table is in r.claims.csv." in md
    claim_rows = [line.split(" | ")[0] for line in md.splitlines() if re.match(r"\| c\d \| ", line)]
    assert claim_rows == ["| c6", "| c4", "| c5"]  # DANGLING, UNCITED, UNSUPPORTED first
    with (tmp_path / "r.claims.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 8
    assert [r["status"] for r in rows].count("SUPPORTED") == 4
    assert "5 more cases left out" in md


def test_report_of_unknown_run_and_bad_max_rows(db: Path) -> None:
    load_run(db, CHAPTER3, run="r")
    missing = run(db, "report", "--run", "nope")
    assert missing.exit_code == 2 and missing.stdout == ""
    assert run(db, "report", "--max-rows", "0").exit_code == 2


def test_report_shows_retrieval_and_reader_sections(db: Path) -> None:
    from tests.conftest import REPO

    load_run(db, REPO / "seeds" / "handbook", run="handbook")
    md = build_report(db, "handbook", "md", None)
    assert "| answer | 6 | 1 | 0 | 1 |" in md            # expected answer: 6 answered, 1 refused, 1 unparsable
    assert "| always\\_refuse | 2 / 12 |" in md
    # every question shows its text (questions.csv) and the model's answer (responses.csv)
    assert ("| q3: When should I come in? | NOT IN HANDBOOK | answer | hours-1 | not retrieved (all scores 0) | — "
            "| refuse | failed before reading |") in md
    html = build_report(db, "handbook", "html", None)
    assert "<h2>Retrieval</h2>" in html and "<h3>Action confusion (expected × observed)</h3>" in html
    chapter = build_report(db, "handbook", "md", None)
    assert "recall\\_at\\_k | 0.900" in chapter


def test_chapter_report_has_no_reader_section(db: Path) -> None:
    load_run(db, CHAPTER3, run="c")
    assert "### Reader" not in build_report(db, "c", "md", None)


def test_a_label_cannot_become_a_markdown_heading_or_list(db: Path, tmp_path: Path) -> None:
    load_run(db, CHAPTER3, run="md", label="# Shipped - all green")
    md = build_report(db, "md", "md", None)
    line = next(x for x in md.splitlines() if "Shipped" in x)
    assert "· \\# Shipped - all green · created" in line
    assert not any(x.startswith("#") and "Shipped" in x for x in md.splitlines())
    load_run(db, CHAPTER3, run="md2", label="- 1. item")
    assert "· \\- 1. item · created" in build_report(db, "md2", "md", None)


def test_the_claims_csv_beside_a_report_is_safe_in_spreadsheets(db: Path, tmp_path: Path) -> None:
    import csv

    folder = tmp_path / "formula"
    shutil.copytree(CHAPTER3, folder)
    claims = folder / "claims.csv"
    claims.write_text(claims.read_text(encoding="utf-8").replace("c1,A loan laptop", 'c1,=HYPERLINK("x")+A loan laptop'),
                      encoding="utf-8")
    load_run(db, folder, run="f")
    build_report(db, "f", "md", tmp_path / "out" / "r.md")
    with (tmp_path / "out" / "r.claims.csv").open(encoding="utf-8", newline="") as handle:
        texts = {row["claim_id"]: row["text"] for row in csv.DictReader(handle)}
    assert texts["c1"].startswith("'=HYPERLINK(")
    assert texts["c2"] == "A loan laptop can be kept for 30 days."


def test_a_regression_is_red_and_an_improvement_green(two_runs: Path) -> None:
    improved = build_report(two_runs, "fixed", "html", None)
    assert '<td class="num better">+0.125</td>' in improved  # supported_share and pair_precision rose
    assert '<td class="num better">−1</td>' in improved  # unsupported fell: lower is better
    regressed = build_report(two_runs, "base", "html", None, baseline="fixed")
    assert '<td class="num worse">−0.125</td>' in regressed
    assert '<td class="num worse">+1</td>' in regressed  # unsupported rose
    md = build_report(two_runs, "base", "md", None, baseline="fixed")
    assert "| unsupported | 1 | 0 | +1 | 🔴 worse |" in md
    assert "| supported\\_share | 0.500 | −0.125 | 🔴 worse |" in md  # the headline table
    # base against fixed: c5 goes SUPPORTED -> UNSUPPORTED, the one claim that changed
    assert "against fixed: 1 claim got worse; 0 metrics better, 5 worse" in md


def test_sections_that_do_not_apply_are_left_out(db: Path) -> None:
    from evalwh.resources import seed_dir

    load_run(db, Path(str(seed_dir("handbook"))), run="handbook")
    md = build_report(db, "handbook", "md", None)
    html = build_report(db, "handbook", "html", None)
    for absent in ("Claim statuses", "Claims whose status changed", "This run has no claims"):
        assert absent not in md and absent not in html
    assert "### Refusal threshold sweep" in md
    load_run(db, CHAPTER3, run="chapter3")
    single = build_report(db, "chapter3", "md", None)
    assert "### Claim statuses" in single and "Claims whose status changed" not in single


def test_trend_charts_follow_the_dataset(two_runs: Path, tmp_path: Path) -> None:
    load_run(two_runs, CHAPTER3, run="third", default_dataset="chapter3")
    html = build_report(two_runs, "third", "html", None)
    charts = re.findall(r'<svg[^>]*class="chart trend" data-metric="([a-z_]+)"', html)
    assert charts == ["supported_share", "pair_precision", "best_correct"]
    share = html[html.index('data-metric="supported_share"'):]
    share = share[:share.index("</svg>")]
    assert re.findall(r"<title>([a-z0-9]+): ([0-9.]+)</title>", share) == [
        ("base", "0.500"), ("fixed", "0.625"), ("third", "0.500")]
    assert "run, oldest to newest (3)" in share
    assert re.findall(r'class="run-id">([a-z]+)</text>', share) == ["base", "fixed", "third"]  # the axis labels
    # another dataset's runs are not on the chart
    load_run(two_runs, CHAPTER3, run="elsewhere", default_dataset="other")
    assert 'class="chart trend"' not in build_report(two_runs, "elsewhere", "html", None)


def test_history_page_lists_every_run_of_the_dataset(two_runs: Path) -> None:
    result = run(two_runs, "report", "--dataset", "chapter3", "--format", "md")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "| supported\\_share | pair\\_precision | best\\_correct |" in lines[4]
    assert lines[6].startswith("| base |") and lines[6].endswith("| — | 0.500 | 0.625 | 7 |")
    assert lines[7].startswith("| fixed |") and lines[7].endswith("| c5 quotes network-1 | 0.625 | 0.750 | 7 |")
    assert "supported\\_share `▁█`" in result.stdout
    html = run(two_runs, "report", "--dataset", "chapter3")
    assert 'class="chart trend"' not in html.stdout  # two points are no trend: charts start at three runs
    assert '<div class="scroll">' in html.stdout  # the table scrolls inside its box, not the page
    load_run(two_runs, CHAPTER3, run="third", default_dataset="chapter3")
    html = run(two_runs, "report", "--dataset", "chapter3")
    assert html.stdout.count('class="chart trend"') == 3
    missing = run(two_runs, "report", "--dataset", "nope")
    assert missing.exit_code == 2 and "no dataset named 'nope' (datasets: chapter3)" in missing.stderr


def test_markdown_report_of_100000_claims_fits_a_github_comment(db: Path, tmp_path: Path) -> None:
    import duckdb

    folder = tmp_path / "big"
    folder.mkdir()
    con = duckdb.connect()
    con.execute(f"COPY (SELECT 'k' || i AS chunk_id, repeat('Loan laptops are issued by the equipment desk. ', 8) "
                f"|| 'Loan laptops go back within ' || i || ' days of issue.' AS text "
                f"FROM range(1000) t(i)) TO '{folder / 'chunks.csv'}' (HEADER)")
    con.execute(f"COPY (SELECT 'c' || i AS claim_id, 'Laptops go back in ' || (i % 997) || ' days, checked by '"
                f" || repeat('the equipment desk ', 3) AS text, 'go back within ' || (i % 1000) || ' days' AS quote "
                f"FROM range(100000) t(i)) TO '{folder / 'claims.csv'}' (HEADER)")
    con.execute(f"COPY (SELECT 'c' || i AS claim_id, 'k' || (i % 1000) AS chunk_id FROM range(100000) t(i)) "
                f"TO '{folder / 'citations.csv'}' (HEADER)")
    con.close()
    load_run(db, folder, run="big")
    out = tmp_path / "r.md"
    text = build_report(db, "big", "md", out)
    assert len(text) <= 65_536
    assert "Tables are cut to" in text and "the full claim table is in r.claims.csv" in text
    with (tmp_path / "r.claims.csv").open(encoding="utf-8") as handle:
        assert sum(1 for _ in handle) == 100_001
    assert "| c" in text  # still shows the first failing claims
    # a larger --max-rows never shows fewer rows: the most rows that fit are kept
    cut = {rows: int(re.search(r"Tables are cut to (\d+) rows", build_report(db, "big", "md", None, rows)).group(1))
           for rows in (150, 200, 300, 1000)}
    assert cut[150] <= cut[200] <= cut[300] <= cut[1000]
    # and it is the most: allowed one row more, the page still keeps the same number (one more does not fit)
    again = build_report(db, "big", "md", None, cut[1000] + 1)
    assert f"Tables are cut to {cut[1000]} rows" in again


def test_claims_csv_keeps_its_order_past_one_row_group(tmp_path: Path) -> None:
    # 150,000 claims: more rows than one DuckDB row group (122,880), where COPY once wrote some
    # vectors of the file out of order. Claim n's status follows from n % 5 by the rule: 0 cites
    # nothing, 4 cites an unknown id, 2 quotes words no chunk holds, 1 and 3 quote their chunk but
    # name a number the quote lacks.
    folder, claims = tmp_path / "run", 150_000
    write_table(folder / "chunks.csv", ["chunk_id", "text"], [[f"c{k}", "The refund window is open."] for k in (1, 2, 3)])
    write_table(folder / "claims.csv", ["claim_id", "text", "quote"],
                [[f"claim-{n}", f"Refund window {n % 5} days.", "no such words" if n % 5 == 2 else "refund window is"]
                 for n in range(claims)])
    write_table(folder / "citations.csv", ["claim_id", "chunk_id"],
                [[f"claim-{n}", "missing" if n % 5 == 4 else f"c{n % 5}"] for n in range(claims) if n % 5])
    db = tmp_path / "wh.duckdb"
    load_run(db, folder, run="big", metrics=False)
    build_report(db, "big", "html", tmp_path / "report.html")
    status = {0: "UNCITED", 1: "NUMBER_MISMATCH", 2: "UNSUPPORTED", 3: "NUMBER_MISMATCH", 4: "DANGLING"}
    failing_first = ["DANGLING", "UNCITED", "UNSUPPORTED", "NUMBER_MISMATCH", "SUPPORTED"]
    expected = sorted(((f"claim-{n}", status[n % 5]) for n in range(claims)),
                      key=lambda row: (failing_first.index(row[1]), int(row[0].split("-")[1])))
    with (tmp_path / "report.claims.csv").open(encoding="utf-8", newline="") as f:
        written = [(row["claim_id"], row["status"]) for row in csv.DictReader(f)]
    assert written == expected


def test_a_trend_axis_spans_the_data_so_a_failed_drop_shows() -> None:
    from evalwh.history.check import Condition
    from evalwh.report.gather import Trend, trends

    # 0.956 -> 0.943 fails --max-drop 0.01: drawn on an axis from 0 it would move 1.4 of 110 units
    t = Trend("action_accuracy", [("a", 0.956), ("b", 0.95), ("c", 0.943)])
    ys = [y for _, y, _, _ in t.coords()]
    assert all(0 <= y <= Trend.HEIGHT for y in ys)
    assert ys[-1] - ys[0] > Trend.HEIGHT / 2
    assert 0.9 < t.low < 0.943 < 0.956 < t.high <= 1
    # a flat line still has an axis; a share never leaves 0..1; a count keeps its own range
    flat = Trend("supported_share", [("a", 1.0), ("b", 1.0)])
    assert flat.low < 1.0 == flat.high and flat.coords()[0][1] == 0
    assert Trend("claims", [("a", 100.0), ("b", 120.0)]).high > 120
    # a gate's line: --min's limit; --max-drop's the baseline less the drop, or more where lower is better
    values: dict[str, dict[str, float | None]] = {"a": {"action_accuracy": 0.956, "dangling": 2.0},
                                                  "b": {"action_accuracy": 0.943, "dangling": 3.0}}
    found = trends(values, ["a", "b"], ["action_accuracy", "dangling"],
                   [Condition("max-drop", "action_accuracy", 0.01), Condition("max-drop", "dangling", 0.5)])
    assert [(t.metric, t.threshold) for t in found] == [("action_accuracy", (pytest.approx(0.946), "drop gate 0.946")),
                                                        ("dangling", (2.5, "drop gate 2.500"))]
    gated = trends(values, ["a", "b"], ["action_accuracy"], [Condition("min", "action_accuracy", 0.9)])[0]
    assert gated.threshold == (0.9, "gate >= 0.900") and gated.low < 0.9  # the line is inside the axis
    assert 0 <= gated.y(0.9) <= Trend.HEIGHT
