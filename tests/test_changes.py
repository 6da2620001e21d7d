"""Per-question and per-claim comparison of two runs (question_changes, claim_changes, run_pairs, diff).

Two runs of one HR-policy dataset, built here: the second fixes a question and a claim and breaks
two questions and a claim, adds a failing and a passing claim and drops one. The metric means hide
part of it; the comparison must name each. Every expected label is worked out by hand below from
the rules in the models' headers, not read from the views.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalwh.app import app
from evalwh.history.check import regressions
from evalwh.history.pairs import changes_of
from evalwh.loader import load_run
from evalwh.report.gather import changed
from evalwh.warehouse import open_warehouse

CHUNKS = [("h1", "Staff get 25 days of annual leave."), ("h2", "Parental leave is 16 weeks."),
          ("h3", "Expenses over 50 dollars need a receipt.")]
QUESTIONS = [
    ("q1", "How many days of annual leave do staff get?", "answer", "25 days of annual leave", "h1", "25 days"),
    ("q2", "How long is parental leave?", "answer", "16 weeks", "h2", "16 weeks"),
    ("q3", "What is the guest wifi password?", "refuse", "", "", ""),
    ("q4", "When does an expense need a receipt?", "answer", "over 50 dollars", "h3", "over 50 dollars"),
]
RETRIEVED = {"q1": "h1", "q2": "h2", "q3": "h1", "q4": "h3"}  # the same top-1 chunk in both runs
BASE_ANSWERS = {"q1": ("25 days", "h1"), "q2": ("12 weeks", "h2"), "q3": ("NOT IN HANDBOOK", "none"),
                "q4": ("over 50 dollars", "h3")}
NEXT_ANSWERS = {"q1": ("25 days", "h1"), "q2": ("16 weeks", "h2"), "q3": ("14 days", "h1"),
                "q4": ("dollars", "h3")}
BASE_CLAIMS = [("c1", "Staff get 25 days of leave.", "25 days of annual leave", "h1"),
               ("c2", "Parental leave is 12 weeks.", "Parental leave is 16 weeks", "h2"),
               ("c3", "Receipts are needed over 50 dollars.", "over 50 dollars need a receipt", "h3")]
NEXT_CLAIMS = [("c1", "Staff get 30 days of leave.", "25 days of annual leave", "h1"),
               ("c2", "Parental leave is 16 weeks.", "Parental leave is 16 weeks", "h2"),
               ("c4", "Leave requests go to HR.", "requests go to HR", "h9"),
               ("c5", "Parental leave lasts 16 weeks.", "16 weeks", "h2")]


def write_csv(path: Path, header: list[str], rows: Sequence[tuple[str, ...]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)


def run_folder(root: Path, name: str, answers: dict[str, tuple[str, str]],
               claims: list[tuple[str, str, str, str]]) -> Path:
    folder = root / name
    folder.mkdir()
    write_csv(folder / "chunks.csv", ["chunk_id", "text"], CHUNKS)
    write_csv(folder / "questions.csv",
              ["question_id", "question", "expected", "gold", "gold_chunk_id", "acceptable_answers"], QUESTIONS)
    write_csv(folder / "retrievals.csv", ["question_id", "chunk_id", "rank", "score"],
              [(q, c, "1", "1.0") for q, c in RETRIEVED.items()])
    write_csv(folder / "responses.csv", ["question_id", "output"],
              [(q, f"Answer: {a}\nSources: {s}") for q, (a, s) in answers.items()])
    write_csv(folder / "claims.csv", ["claim_id", "text", "quote"], [c[:3] for c in claims])
    write_csv(folder / "citations.csv", ["claim_id", "chunk_id"], [(c[0], c[3]) for c in claims])
    (folder / "run.toml").write_text('[run]\ndataset = "hr-policy"\n', encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def hr(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hr")
    db = root / "wh.duckdb"
    load_run(db, run_folder(root, "monday", BASE_ANSWERS, BASE_CLAIMS))
    load_run(db, run_folder(root, "tuesday", NEXT_ANSWERS, NEXT_CLAIMS))
    return db


def cli(db: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["--db", str(db), *args])
    return result.exit_code, result.stdout, result.stderr


# By hand, tuesday against monday:
#   q1  same answer                                                      same
#   q2  '12 weeks' -> '16 weeks': EM 0 -> 1, F1 2*1/(2+2)=0.5 -> 1.0      better (exact_match, f1)
#   q3  a correct refusal -> an answer citing h1 (= the top retrieval):
#       outcome and refusal worse, citation better                       worse (outcome, refusal)
#   q4  'over 50 dollars' -> 'dollars': EM 1 -> 0, F1 1.0 -> 2*1/(1+3)    worse (exact_match, f1)
EXPECTED_QUESTIONS = {
    "q1": ("same", None, None),
    "q2": ("better", None, "exact_match, f1"),
    "q3": ("worse", "outcome, refusal", "citation"),
    "q4": ("worse", "exact_match, f1", None),
}
#   c1  SUPPORTED -> NUMBER_MISMATCH (30 is not in the quote)             worse
#   c2  NUMBER_MISMATCH (12 not in the quote) -> SUPPORTED                better
#   c3  only monday                                                       removed
#   c4  only tuesday, cites h9 which is no chunk: DANGLING                worse
#   c5  only tuesday, SUPPORTED                                           new
EXPECTED_CLAIMS = {
    "c1": ("SUPPORTED", "NUMBER_MISMATCH", "worse"),
    "c2": ("NUMBER_MISMATCH", "SUPPORTED", "better"),
    "c3": ("SUPPORTED", None, "removed"),
    "c4": (None, "DANGLING", "worse"),
    "c5": (None, "SUPPORTED", "new"),
}


def test_run_pairs_name_the_previous_run_of_the_dataset(hr: Path) -> None:
    with open_warehouse(hr) as con:
        pairs = con.execute("SELECT run_id, baseline_run_id, same_dataset, is_previous FROM run_pairs "
                            "ORDER BY run_id").fetchall()
    assert pairs == [("monday", "tuesday", True, False), ("tuesday", "monday", True, True)]


def test_question_changes_label_each_question_by_its_columns(hr: Path) -> None:
    with open_warehouse(hr) as con:
        rows = con.execute(
            "SELECT question_id, change, worse_in, better_in, old_f1, new_f1, old_outcome, new_outcome "
            "FROM question_changes WHERE baseline_run_id = 'monday' AND run_id = 'tuesday'").fetchall()
    found = {r[0]: r[1:4] for r in rows}
    assert found == EXPECTED_QUESTIONS
    f1 = {r[0]: (r[4], r[5]) for r in rows}
    assert f1["q2"] == pytest.approx((0.5, 1.0)) and f1["q4"] == pytest.approx((1.0, 0.5))
    outcomes = {r[0]: (r[6], r[7]) for r in rows}
    assert outcomes["q3"] == ("correct action", "wrong action")
    # the means hide q3 and q4: two questions got worse while one got better
    assert sorted(r[1] for r in rows) == ["better", "same", "worse", "worse"]


def test_the_reverse_pair_swaps_better_and_worse(hr: Path) -> None:
    with open_warehouse(hr) as con:
        back = dict(con.execute("SELECT question_id, change FROM question_changes "
                                "WHERE baseline_run_id = 'tuesday' AND run_id = 'monday'").fetchall())
    assert back == {"q1": "same", "q2": "worse", "q3": "worse", "q4": "better"}  # q3: citation got worse back


def test_a_pair_read_one_run_at_a_time_equals_the_view(hr: Path, tmp_path: Path) -> None:
    # a third run without q4, so that its pairs hold a removed and a new question; every pair of the three
    # runs read through changes_of holds the view's rows for it, row for row
    db = tmp_path / "wh.duckdb"
    shutil.copy(hr, db)
    folder = run_folder(tmp_path, "wednesday", {q: a for q, a in NEXT_ANSWERS.items() if q != "q4"}, BASE_CLAIMS)
    write_csv(folder / "questions.csv",
              ["question_id", "question", "expected", "gold", "gold_chunk_id", "acceptable_answers"], QUESTIONS[:3])
    write_csv(folder / "retrievals.csv", ["question_id", "chunk_id", "rank", "score"],
              [(q, c, "1", "1.0") for q, c in RETRIEVED.items() if q != "q4"])
    load_run(db, folder)
    with open_warehouse(db) as con:
        pairs = con.execute("SELECT baseline_run_id, run_id FROM run_pairs ORDER BY ALL").fetchall()
        assert len(pairs) == 6
        labels: set[str] = set()
        claim_labels: set[str] = set()
        for a, b in pairs:
            view = con.execute("SELECT * FROM question_changes WHERE baseline_run_id = ? AND run_id = ? "
                               "ORDER BY question_id", [a, b]).fetchall()
            apart = con.execute(f"SELECT * FROM {changes_of(con, 'question_changes', a, b)} "
                                "WHERE baseline_run_id = ? AND run_id = ? ORDER BY question_id", [a, b]).fetchall()
            assert apart == view and len(view) == 4
            labels |= {row[-1] for row in view}
            claims = con.execute("SELECT * FROM claim_changes WHERE baseline_run_id = ? AND run_id = ? "
                                 "ORDER BY claim_id", [a, b]).fetchall()
            claims_apart = con.execute(f"SELECT * FROM {changes_of(con, 'claim_changes', a, b)} "
                                       "WHERE baseline_run_id = ? AND run_id = ? ORDER BY claim_id", [a, b]).fetchall()
            assert claims_apart == claims and claims
            claim_labels |= {row[-1] for row in claims}
    assert labels == {"same", "better", "worse", "removed", "new"}
    assert claim_labels == {"same", "better", "worse", "removed", "new"}


def test_claim_changes_label_new_and_removed_claims(hr: Path) -> None:
    with open_warehouse(hr) as con:
        rows = con.execute("SELECT claim_id, old_status, new_status, change FROM claim_changes "
                           "WHERE baseline_run_id = 'monday' AND run_id = 'tuesday'").fetchall()
    assert {r[0]: r[1:] for r in rows} == EXPECTED_CLAIMS


def test_the_report_shows_each_changed_claim_with_the_chunks_it_cites(hr: Path) -> None:
    # a removed claim with the chunks it cited in the baseline, a claim of the run with the run's; a cited
    # id that is no chunk has no text; at most `limit` rows of a label, and how many there are
    with open_warehouse(hr) as con:
        found = changed(con, "monday", "tuesday", ("removed", "worse"), 1)
    removed, worse = found["removed"].claims, found["worse"].claims
    assert (removed.total, worse.total) == (1, 2)
    assert [(r["claim_id"], r["chunks"]) for r in removed.rows] == \
        [("c3", [{"chunk_id": "h3", "chunk_exists": True, "text": CHUNKS[2][1]}])]
    assert [(r["claim_id"], r["quote"], r["chunks"]) for r in worse.rows] == \
        [("c1", "25 days of annual leave", [{"chunk_id": "h1", "chunk_exists": True, "text": CHUNKS[0][1]}])]
    with open_warehouse(hr) as con:
        worse = changed(con, "monday", "tuesday", ("worse",), 10)["worse"].claims
    assert [(r["claim_id"], r["chunks"]) for r in worse.rows] == \
        [("c1", [{"chunk_id": "h1", "chunk_exists": True, "text": CHUNKS[0][1]}]),
         ("c4", [{"chunk_id": "h9", "chunk_exists": False, "text": None}])]


def test_diff_lists_the_regressions_worst_first_in_every_format(hr: Path) -> None:
    code, out, err = cli(hr, "diff", "-f", "json")
    assert (code, err) == (0, "")
    rows = json.loads(out)
    questions = [(r["name"], r["change"], r["detail"]) for r in rows if r["kind"] == "question"]
    assert questions == [("q3", "worse", "outcome, refusal"), ("q4", "worse", "exact_match, f1"),
                         ("q2", "better", "exact_match, f1")]
    claims = [(r["name"], r["a"], r["b"], r["change"]) for r in rows if r["kind"] == "claim"]
    assert claims == [("c1", "SUPPORTED", "NUMBER_MISMATCH", "worse"), ("c4", None, "DANGLING", "worse"),
                      ("c3", "SUPPORTED", None, "removed"), ("c5", None, "SUPPORTED", "new"),
                      ("c2", "NUMBER_MISMATCH", "SUPPORTED", "better")]
    code, out, _ = cli(hr, "diff", "monday", "tuesday", "-f", "csv")
    assert code == 0
    csv_rows = [r for r in csv.DictReader(io.StringIO(out)) if r["kind"] != "metric"]
    assert [(r["kind"], r["name"], r["change"]) for r in csv_rows] == \
        [("question", q, c) for q, c, _ in questions] + [("claim", c, v) for c, _, _, v in claims]
    code, md, _ = cli(hr, "diff", "-f", "md")
    assert code == 0
    assert "**2 questions and 2 claims got worse.**" in md
    assert md.index("| q3 |") < md.index("| q4 |") < md.index("| q2 |")
    assert "| c4 | (absent) | DANGLING | 🔴 worse |" in md


def test_check_counts_regressions_and_can_require_a_baseline(hr: Path) -> None:
    code, out, err = cli(hr, "check", "--max-regressions", "questions=1", "--max-regressions", "claims=2")
    assert code == 1
    assert out.splitlines()[:2] == ["FAIL  questions worse <= 1: 2 questions got worse",
                                    "ok    claims worse <= 2: 2 claims got worse"]
    assert "check failed: 1 of 2 conditions" in err
    assert cli(hr, "check", "--max-regressions", "questions=2", "--max-regressions", "claims=2")[0] == 0
    # monday has no earlier run: the counts hold, with a note, unless a baseline is required
    code, out, err = cli(hr, "check", "--run", "monday", "--max-regressions", "questions=0", "-f", "json")
    assert code == 0 and "has no baseline" in err
    assert json.loads(out)["conditions"][0]["detail"] == "no baseline: no earlier run of this dataset"
    code, out, err = cli(hr, "check", "--run", "monday", "--require-baseline")
    assert code == 1
    assert out.splitlines()[0] == "FAIL  baseline required: no baseline: no earlier run of this dataset"
    assert cli(hr, "check", "--require-baseline")[0] == 0  # tuesday has monday


def test_check_compares_only_the_kinds_it_counts(hr: Path) -> None:
    # c1 and c4 got worse, q3 and q4 did (the labels above); a gate on claims alone never scores questions
    with open_warehouse(hr) as con:
        assert regressions(con, "monday", "tuesday", {"claims"}) == {"claims": 2}
        assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'pair_question_facts'"
                           ).fetchone() == (0,)
        assert regressions(con, "monday", "tuesday", {"questions"}) == {"questions": 2}
        assert regressions(con, "monday", "tuesday") == {"questions": 2, "claims": 2}


def test_claim_facts_are_each_run_claims_with_their_status(hr: Path) -> None:
    with open_warehouse(hr) as con:
        facts = con.execute("SELECT run_id, claim_id, status, text FROM claim_facts ORDER BY ALL").fetchall()
        tuesday = con.execute("SELECT claim_id, status FROM claim_facts WHERE run_id = 'tuesday' ORDER BY ALL"
                              ).fetchall()
        claims = con.execute("SELECT run_id, claim_id, text FROM claims ORDER BY ALL").fetchall()
    assert [(r, c, t) for r, c, _, t in facts] == claims
    assert {c: s for c, s in tuesday} == {c: new for c, (_, new, _) in EXPECTED_CLAIMS.items() if new is not None}


def test_diff_and_check_compare_within_the_memory_limit(hr: Path) -> None:
    # given --memory-limit, both runs' facts are computed under that cap: past it, one line naming the
    # option and exit 3
    for args in (["diff"], ["check", "--max-regressions", "claims=0"]):
        code, out, err = cli(hr, "--memory-limit", "1MB", *args)
        assert (code, out) == (3, ""), err
        assert err.startswith("evalwh: error: Out of Memory Error: ") and "--memory-limit SIZE" in err
    assert cli(hr, "diff")[0] == 0


def test_a_malformed_regression_gate_is_a_usage_error(hr: Path) -> None:
    code, out, err = cli(hr, "check", "--max-regressions", "questoins=0")
    assert (code, out) == (2, "")
    assert "count questions or claims" in err and "questions" in err and err.count("\n") == 1


def test_a_backfilled_run_takes_its_place_by_created_at(tmp_path: Path) -> None:
    db = tmp_path / "wh.duckdb"
    tuesday = run_folder(tmp_path, "tuesday", NEXT_ANSWERS, NEXT_CLAIMS)
    monday = run_folder(tmp_path, "monday", BASE_ANSWERS, BASE_CLAIMS)
    (tuesday / "run.toml").write_text('[run]\ndataset = "hr-policy"\ncreated_at = 2026-12-01T09:00:00Z\n',
                                      encoding="utf-8")
    load_run(db, tuesday)
    # loaded second, made first: monday is tuesday's baseline, and tuesday stays the latest run
    code, _, err = cli(db, "load", str(monday), "--created-at", "2026-11-30T10:00:00+01:00")
    assert (code, err.count("error")) == (0, 0)
    with open_warehouse(db) as con:
        order = con.execute("SELECT run_id, created_at::VARCHAR FROM runs ORDER BY created_at").fetchall()
        previous = con.execute("SELECT baseline_run_id FROM run_pairs WHERE run_id = 'tuesday' AND is_previous"
                               ).fetchall()
    assert order == [("monday", "2026-11-30 09:00:00"), ("tuesday", "2026-12-01 09:00:00")]
    assert previous == [("monday",)]
    rows = json.loads(cli(db, "diff", "-f", "json")[1])  # latest (tuesday) against its baseline (monday)
    assert ("q3", "worse") in {(r["name"], r["change"]) for r in rows if r["kind"] == "question"}
    assert cli(db, "check", "--max-regressions", "questions=0")[0] == 1


def test_created_at_must_be_a_time_and_unique(tmp_path: Path) -> None:
    db = tmp_path / "wh.duckdb"
    folder = run_folder(tmp_path, "monday", BASE_ANSWERS, BASE_CLAIMS)
    code, out, err = cli(db, "load", str(folder), "--created-at", "last week")
    assert (code, out) == (2, "") and "created_at must be an ISO 8601 date and time" in err
    assert not db.exists()
    assert cli(db, "load", str(folder), "--created-at", "2026-12-01")[0] == 0
    code, _, err = cli(db, "load", str(folder), "--run", "again", "--created-at", "2026-12-01T00:00:00")
    assert code == 2 and "run 'monday' has the same created_at" in err
    (folder / "run.toml").write_text('[run]\ncreated_at = "soon"\n', encoding="utf-8")
    code, _, err = cli(db, "load", str(folder), "--run", "later")
    assert code == 2 and "run.toml" in err and "created_at" in err


def test_responses_that_do_not_parse_are_counted_and_named_at_load(tmp_path: Path) -> None:
    answers = {"q1": ("25 days", "h1"), "q2": ("16 weeks", "h2")}
    folder = run_folder(tmp_path, "prose", answers, BASE_CLAIMS)
    # q2 and q4 are prose, not the two-line format; q1 and q3 parse
    write_csv(folder / "responses.csv", ["question_id", "output"],
              [("q1", "Answer: 25 days\nSources: h1"), ("q2", "Parental leave is 16 weeks [1]."),
               ("q3", "Answer: NOT IN HANDBOOK\nSources: none"), ("q4", "Over 50 dollars.")])
    code, _, err = cli(tmp_path / "wh.duckdb", "load", str(folder))
    assert code == 0
    assert "2 of 4 responses do not parse as two_line: first q2" in err
    code, _, err = cli(tmp_path / "wh.duckdb", "load", str(folder), "--run", "again", "--created-at", "2027-01-01")
    assert "do not parse" in err
    assert cli(tmp_path / "wh.duckdb", "--quiet", "load", str(folder), "--run", "quiet")[2] == ""
    assert "do not parse" not in cli(tmp_path / "fresh.duckdb", "load", str(run_folder(
        tmp_path, "clean", BASE_ANSWERS, BASE_CLAIMS)))[2]


def test_one_condition_is_one_condition(hr: Path) -> None:
    code, out, err = cli(hr, "check", "--max-regressions", "questions=0")
    assert code == 1
    assert out.splitlines()[-1] == "run tuesday: 1 of 1 condition failed"
    assert err == "evalwh: check failed: 1 of 1 condition\n"
    code, out, _ = cli(hr, "check", "--max-regressions", "questions=2")
    assert (code, out.splitlines()[-1]) == (0, "run tuesday: the condition holds")


@pytest.mark.parametrize("name", ["report.pdf", "report.txt"])
def test_a_report_named_for_another_format_is_refused(hr: Path, tmp_path: Path, name: str) -> None:
    code, out, err = cli(hr, "report", "-o", str(tmp_path / name))
    assert (code, out) == (2, "")
    assert err.startswith(f"evalwh: error: -o {name}: a report is HTML") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []
    assert cli(hr, "report", "-o", str(tmp_path / name), "--format", "md")[0] == 0  # asked for by name
    assert (tmp_path / name).read_text(encoding="utf-8").startswith("#")
    assert cli(hr, "report", "-o", str(tmp_path / "page.htm"))[0] == 0


# The report leads with the regressions: the verdict, the summary counting the claims and
# questions that got worse (c1, c4; q3, q4 above), then "What got worse" naming each with its text
# and answers, before any metric table or chart.
def first_screen(text: str, end_marker: str) -> str:
    return text[:text.index(end_marker)]


def test_the_markdown_report_leads_with_what_got_worse(hr: Path) -> None:
    code, md, err = cli(hr, "report", "-f", "md", "--no-config")
    assert (code, err) == (0, "")
    top = first_screen(md, "| headline |")
    assert "**No gates set**" in top
    assert "against monday: 2 claims and 2 questions got worse; 1 metric better" in top
    worse = top[top.index("### What got worse since monday"):top.index("### What got better")]
    better = top[top.index("### What got better"):]
    # q3 and q4 with their text and both answers, worst first by ordinal; q2 only under better
    assert worse.index("| q3: What is the guest wifi password? | refuse | NOT IN HANDBOOK | 14 days |") < \
        worse.index("| q4: When does an expense need a receipt? | answer | over 50 dollars | dollars |")
    assert "| 1 → 0.500 | exact\\_match, f1 |" in worse  # q4's F1: 1.0 -> 2*1/(1+3)
    assert "| c1: Staff get 30 days of leave. | SUPPORTED → NUMBER\\_MISMATCH | 25 days of annual leave | " \
           "h1: Staff get 25 days of annual leave. |" in worse
    assert "| c4: Leave requests go to HR. | (new) → DANGLING | requests go to HR | h9: *no such chunk* |" in worse
    assert "q2" not in worse and "c2" not in worse and "c5" not in worse
    assert "| q2: How long is parental leave? |" in better and "| c2: Parental leave is 16 weeks. |" in better


def test_the_html_report_leads_with_the_verdict_and_what_got_worse(hr: Path, tmp_path: Path) -> None:
    (tmp_path / "evalwh.toml").write_text("[check]\nmax_regressions = { questions = 1 }\n", encoding="utf-8")
    code, html, _ = cli(hr, "report", "--config", str(tmp_path / "evalwh.toml"))
    assert code == 0
    top = first_screen(html, "<h2>Metrics</h2>")
    assert 'data-verdict="fail"' in top and "questions worse &lt;= 1: 2 questions got worse" in top
    worse = top[top.index('<h2 id="worse"'):top.index('<h2 id="better"')]
    assert [row.split("</span>")[0] for row in worse.split('<tr class="worse"><td><span class="id">')[1:]] == \
        ["q3", "q4", "c1", "c4"]
    assert "<svg" not in top.split('<h2 id="better"')[0]  # no chart before the regressions
    # two runs make no trend chart: they start at three
    assert 'class="chart trend"' not in html


def test_the_verdict_passes_when_the_gates_hold(hr: Path, tmp_path: Path) -> None:
    config = tmp_path / "evalwh.toml"
    config.write_text("[check]\nmax_regressions = { questions = 2, claims = 2 }\n", encoding="utf-8")
    code, md, _ = cli(hr, "report", "-f", "md", "--config", str(config))
    assert code == 0 and "**✅ PASS**: all 2 gates hold (evalwh.toml)." in md


def test_counts_print_as_integers_and_shares_with_three_decimals(hr: Path) -> None:
    code, out, _ = cli(hr, "metrics")
    assert code == 0
    cells = {line.split("│")[2].strip(): line.split("│")[3].strip() for line in out.splitlines() if line.count("│") == 4}
    # tuesday: 4 claims, 1 dangling, 2 of 4 supported
    assert (cells["claims"], cells["dangling"], cells["supported_share"]) == ("4", "1", "0.500")


def test_the_report_names_the_responses_that_do_not_parse(tmp_path: Path) -> None:
    folder = run_folder(tmp_path, "plain", BASE_ANSWERS, BASE_CLAIMS)
    # every response written as bare text, with no Answer:/Sources: lines
    write_csv(folder / "responses.csv", ["question_id", "output"], [(q, a) for q, (a, _) in BASE_ANSWERS.items()])
    db = tmp_path / "wh.duckdb"
    load_run(db, folder)
    code, md, _ = cli(db, "report", "-f", "md", "--no-config")
    assert code == 0
    assert "**4 of 4 responses do not parse as two\\_line** (their action is parse\\_failure): q1, q2, q3, q4." in md
    code, html, _ = cli(db, "report", "--no-config")
    assert "<strong>4 of 4 responses do not parse as two_line</strong>" in html


def test_the_source_is_relative_to_where_the_load_ran(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = run_folder(tmp_path, "monday", BASE_ANSWERS, BASE_CLAIMS)
    monkeypatch.chdir(tmp_path)
    load_run(Path("wh.duckdb"), folder)
    with open_warehouse(Path("wh.duckdb")) as con:
        assert con.execute("SELECT source FROM runs").fetchall() == [("monday",)]
    code, md, _ = cli(Path("wh.duckdb"), "report", "-f", "md", "--no-config")
    assert code == 0 and " · source monday · " in md and str(tmp_path) not in md
