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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
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


def two_runs(root: Path, first: tuple[str, dict[str, tuple[str, str]], list[tuple[str, str, str, str]]],
             second: tuple[str, dict[str, tuple[str, str]], list[tuple[str, str, str, str]]]) -> Path:
    """A warehouse in ``root`` holding two runs of the dataset, each (name, answers, claims), in that order."""
    db = root / "wh.duckdb"
    for name, answers, claims in (first, second):
        load_run(db, run_folder(root, name, answers, claims))
    return db


@pytest.fixture(scope="module")
def hr(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return two_runs(tmp_path_factory.mktemp("hr"), ("monday", BASE_ANSWERS, BASE_CLAIMS),
                    ("tuesday", NEXT_ANSWERS, NEXT_CLAIMS))


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
        pairs = con.execute("SELECT run_id, baseline_run_id, is_previous FROM run_pairs ORDER BY run_id").fetchall()
        every = con.execute("SELECT run_id, baseline_run_id, same_dataset, is_previous FROM run_pairs_all "
                            "ORDER BY run_id").fetchall()
    assert pairs == [("monday", "tuesday", False), ("tuesday", "monday", True)]
    assert every == [("monday", "tuesday", True, False), ("tuesday", "monday", True, True)]


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


def test_severity_and_reason_follow_the_scale(hr: Path) -> None:
    # q3: an answer given to a must-refuse question that was refused: 5; q4: F1 1.0 -> 0.5: 1 + 0.5;
    # c1 and c4: a claim failing: 3; a row that is not worse has no severity
    with open_warehouse(hr) as con:
        questions = {r[0]: r[1:] for r in con.execute(
            "SELECT question_id, severity, reason FROM question_changes "
            "WHERE baseline_run_id = 'monday' AND run_id = 'tuesday'").fetchall()}
        claims = {r[0]: r[1:] for r in con.execute(
            "SELECT claim_id, severity, reason FROM claim_changes "
            "WHERE baseline_run_id = 'monday' AND run_id = 'tuesday'").fetchall()}
    assert questions == {
        "q1": (None, None),
        "q2": (None, "f1 0.5 -> 1.0"),
        "q3": (5.0, "outcome correct action -> wrong action (expected refuse, the response did answer)"),
        "q4": (1.5, "f1 1.0 -> 0.5"),
    }
    assert claims == {
        "c1": (3.0, "SUPPORTED -> NUMBER_MISMATCH"),
        "c2": (None, "NUMBER_MISMATCH -> SUPPORTED"),
        "c3": (None, "only in the baseline"),
        "c4": (3.0, "new claim: DANGLING"),
        "c5": (None, "new claim: SUPPORTED"),
    }


def test_the_reverse_pair_swaps_better_and_worse_and_a_fix_is_better(hr: Path) -> None:
    # q3 back: a wrong answer turned into a correct refusal is better, though its citation axis fell
    # (the refusal cites nothing while h1 was retrieved: note 003 scores that BAD)
    with open_warehouse(hr) as con:
        back = {r[0]: r[1:] for r in con.execute(
            "SELECT question_id, change, worse_in, reason FROM question_changes "
            "WHERE baseline_run_id = 'tuesday' AND run_id = 'monday'").fetchall()}
    assert {q: v[0] for q, v in back.items()} == {"q1": "same", "q2": "worse", "q3": "better", "q4": "better"}
    assert back["q3"][1:] == ("citation", "outcome wrong action -> correct action (expected refuse, the response "
                              "did refuse); citation BAD as note 003 scores a refusal: it cites nothing while a "
                              "chunk was retrieved")


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
            labels |= {row[-3] for row in view}
            claims = con.execute("SELECT * FROM claim_changes WHERE baseline_run_id = ? AND run_id = ? "
                                 "ORDER BY claim_id", [a, b]).fetchall()
            claims_apart = con.execute(f"SELECT * FROM {changes_of(con, 'claim_changes', a, b)} "
                                       "WHERE baseline_run_id = ? AND run_id = ? ORDER BY claim_id", [a, b]).fetchall()
            assert claims_apart == claims and claims
            claim_labels |= {row[-3] for row in claims}
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
    conditions = [line for line in out.splitlines() if not line.startswith(" ")]
    assert conditions[:3] == ["baseline: monday (the previous run of dataset hr-policy; none is blessed)","FAIL  questions worse <= 1: 2 questions got worse",
                              "ok    claims worse <= 2: 2 claims got worse"]
    assert "check failed: 1 of 2 conditions" in err
    assert cli(hr, "check", "--max-regressions", "questions=2", "--max-regressions", "claims=2")[0] == 0
    # monday has no earlier run: the counts hold, with a note, unless a baseline is required
    code, out, err = cli(hr, "check", "--run", "monday", "--max-regressions", "questions=0", "-f", "json")
    assert code == 0 and "has no baseline" in err
    assert json.loads(out)["conditions"][0]["detail"] == "no baseline: no earlier run of this dataset"
    code, out, err = cli(hr, "check", "--run", "monday", "--require-baseline")
    assert code == 1
    assert out.splitlines()[1] == "FAIL  baseline required: no baseline: no earlier run of this dataset"
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
    # beside the metric cards, the regression counts: q3 and q4 worse, q2 better; c1 and c4 worse, c2 better
    assert '<div class="name">questions worse</div><div class="value">2</div>\n    <div class="worse">vs monday; ' \
           '1 better</div>' in top
    assert '<div class="name">claims worse</div><div class="value">2</div>' in top
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


# --- the change rule on every pair of outcomes, against a reference written from the model's header ---

OUTCOMES = ("correct action", "wrong action", "failed before reading", None)
FACT_COLUMNS = ("run_id", "question_id", "ordinal", "question", "expected", "answer", "action", "outcome",
                "exact_match", "f1", "retrieval_ok", "citation_ok", "refusal_ok")


def reference_change(old: dict | None, new: dict | None) -> tuple[str, float | None]:
    """(change, severity) of one question by question_changes' header: outcome, then answer score, then axes."""
    if new is None:
        return "removed", None
    if old is None:
        fails = new["outcome"] is not None and new["outcome"] != "correct action"
        if not fails:
            return "new", None
        return "worse", 5.0 if new["expected"] != "answer" and new["action"] == "answer" else 4.0
    o, n = old["outcome"], new["outcome"]
    if o is not None and n is not None and (o == "correct action") != (n == "correct action"):
        if o == "correct action":
            return "worse", 5.0 if new["expected"] != "answer" and new["action"] == "answer" else 4.0
        return "better", None
    drop = 0.0
    if old["f1"] is not None and new["f1"] is not None and old["f1"] != new["f1"]:
        drop = old["f1"] - new["f1"]
    elif old["exact_match"] is not None and new["exact_match"] is not None:
        drop = float(old["exact_match"] - new["exact_match"])
    if drop > 0:
        return "worse", 1.0 + drop
    if drop < 0:
        return "better", None
    axes = [(old[a], new[a]) for a in ("retrieval_ok", "citation_ok", "refusal_ok")
            if old[a] is not None and new[a] is not None]
    if any(a and not b for a, b in axes):
        return "worse", 1.0
    if any(b and not a for a, b in axes):
        return "better", None
    return "same", None


def view_changes(db: Path, facts: list[dict]) -> dict[str, tuple[str, float | None]]:
    """question_changes's own SELECT over the given facts of monday (baseline) and tuesday (run)."""
    from evalwh.resources import model_source

    with open_warehouse(db) as con:
        con.execute("CREATE TEMP TABLE given_facts AS SELECT * FROM question_facts LIMIT 0")
        if facts:
            con.executemany(f"INSERT INTO temp.given_facts ({', '.join(FACT_COLUMNS)}) VALUES "
                            f"({', '.join('?' for _ in FACT_COLUMNS)})", [[f[c] for c in FACT_COLUMNS] for f in facts])
        select = model_source("question_changes").replace("question_facts", "temp.given_facts")
        rows = con.execute(f"SELECT question_id, change, severity FROM ({select}) "
                           "WHERE baseline_run_id = 'monday' AND run_id = 'tuesday'").fetchall()
    return {q: (c, s) for q, c, s in rows}


def side(run: str, qid: str, expected: str, outcome: str | None, action: str | None, em: int | None,
         f1: float | None, axes: tuple[bool | None, bool | None, bool | None]) -> dict:
    return dict(zip(FACT_COLUMNS, (run, qid, int(qid[1:]), "?", expected, "a", action, outcome, em, f1, *axes), strict=True))


def test_every_pair_of_outcomes_is_decided_outcome_first(hr: Path, tmp_path: Path) -> None:
    # every (old, new) outcome, a question absent on either side included, crossed with the answer score
    # and the axes moving the other way, or not at all: a moved outcome decides whatever the rest did
    db = tmp_path / "wh.duckdb"
    shutil.copy(hr, db)
    facts, expected = [], {}
    scores = {"fell": ((1, 1.0), (0, 0.5)), "rose": ((0, 0.5), (1, 1.0)), "held": ((1, 1.0), (1, 1.0))}
    axes = {"fell": ((True, True, True), (False, True, False)), "rose": ((False, True, False), (True, True, True)),
            "held": ((True, False, True), (True, False, True))}
    n = 0
    for old_outcome in (*OUTCOMES, "absent"):
        for new_outcome in (*OUTCOMES, "absent"):
            if old_outcome == new_outcome == "absent":
                continue
            for score in scores:
                for axis in axes:
                    n += 1
                    qid = f"q{n}"
                    sides: list[dict | None] = []
                    for run, outcome, i in (("monday", old_outcome, 0), ("tuesday", new_outcome, 1)):
                        if outcome == "absent":
                            sides.append(None)
                            continue
                        action = "refuse" if outcome == "correct action" else "answer"
                        em, f1 = scores[score][i]
                        sides.append(side(run, qid, "refuse", outcome, action, em, f1, axes[axis][i]))
                    facts += [s for s in sides if s is not None]
                    expected[qid] = reference_change(sides[0], sides[1])
    found = view_changes(db, facts)
    assert found == expected
    # the rule's own cases, by hand: a fix is better whatever fell beside it; a lost outcome on a
    # must-refuse question, answered, is the most severe
    assert {c for c, _ in found.values()} == {"worse", "better", "same", "new", "removed"}
    fix = side("monday", "q0", "refuse", "wrong action", "answer", 0, 0.0, (True, True, False))
    fixed = side("tuesday", "q0", "refuse", "correct action", "refuse", 0, 0.0, (True, False, True))
    assert view_changes(db, [fix, fixed]) == {"q0": ("better", None)}
    assert view_changes(db, [fixed | {"run_id": "monday"}, fix | {"run_id": "tuesday"}]) == {"q0": ("worse", 5.0)}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(
    st.sampled_from(["answer", "refuse", "flag_premise"]),
    *[st.one_of(st.none(), st.fixed_dictionaries({
        "outcome": st.sampled_from(OUTCOMES), "action": st.sampled_from(["answer", "refuse", "flag_premise", None]),
        "em": st.sampled_from([None, 0, 1]), "f1": st.sampled_from([None, 0.0, 0.25, 0.5, 1.0]),
        "axes": st.tuples(*[st.sampled_from([None, True, False])] * 3)})) for _ in range(2)],
), min_size=1, max_size=30))
def test_question_changes_equal_the_reference_rule(hr: Path, questions: list) -> None:
    facts, expected = [], {}
    for i, (exp, old, new) in enumerate(questions):
        qid = f"q{i + 1}"
        sides = [None if s is None else side(run, qid, exp, s["outcome"], s["action"], s["em"], s["f1"], s["axes"])
                 for run, s in (("monday", old), ("tuesday", new))]
        if sides == [None, None]:
            continue
        facts += [s for s in sides if s is not None]
        expected[qid] = reference_change(sides[0], sides[1])
    assert view_changes(hr, facts) == expected


# --- severity order, a fix that is no regression, naming what failed, JUnit, datasets ---

# From BASE_ANSWERS (every question right), by hand:
#   q1  '25 days' -> '25 days of leave': F1 1 -> 2*2/(4+2) = 2/3: severity 1 + 1/3
#   q2  '16 weeks'... BASE has '12 weeks' (F1 0.5); here the baseline answers '16 weeks' and the run refuses
#       an answerable question: correct action -> wrong action, severity 4
#   q3  a correct refusal -> an answer: a must-refuse question answered, severity 5
# so the worse rows come q3, q2, q1, against their order q1, q2, q3.
GOOD_ANSWERS = {"q1": ("25 days", "h1"), "q2": ("16 weeks", "h2"), "q3": ("NOT IN HANDBOOK", "none"),
                "q4": ("over 50 dollars", "h3")}
MIXED_ANSWERS = {"q1": ("25 days of leave", "h1"), "q2": ("NOT IN HANDBOOK", "none"), "q3": ("14 days", "h1"),
                 "q4": ("over 50 dollars", "h3")}


@pytest.fixture(scope="module")
def severe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return two_runs(tmp_path_factory.mktemp("severe"), ("good", GOOD_ANSWERS, BASE_CLAIMS),
                    ("mixed", MIXED_ANSWERS, NEXT_CLAIMS))


def test_diff_lists_the_worse_questions_most_severe_first(severe: Path) -> None:
    code, out, err = cli(severe, "diff", "-f", "json")
    assert (code, err) == (0, "")
    worse = [(r["name"], r["severity"]) for r in json.loads(out) if r["kind"] == "question" and r["change"] == "worse"]
    assert [q for q, _ in worse] == ["q3", "q2", "q1"]
    assert [s for _, s in worse] == pytest.approx([5.0, 4.0, 1 + 1 / 3])


def test_check_names_every_regression_most_severe_first(severe: Path) -> None:
    code, out, err = cli(severe, "check", "--max-regressions", "questions=0", "--max-regressions", "claims=5")
    assert code == 1 and "check failed: 1 of 2 conditions" in err
    lines = out.splitlines()[1:]  # after the baseline line
    assert lines[:4] == [
        "FAIL  questions worse <= 0: 3 questions got worse",
        "      q3 (severity 5): outcome correct action -> wrong action (expected refuse, the response did answer)",
        "      q2 (severity 4): outcome correct action -> wrong action (expected answer, the response did refuse)",
        "      q1 (severity 1.333): f1 1.0 -> 0.667",
    ]
    assert lines[4] == "ok    claims worse <= 5: 2 claims got worse"
    assert lines[5:7] == ["      c1 (severity 3): SUPPORTED -> NUMBER_MISMATCH", "      c4 (severity 3): new claim: DANGLING"]
    payload = json.loads(cli(severe, "check", "--max-regressions", "questions=0", "-f", "json")[1])
    assert [(r["kind"], r["id"], r["severity"]) for r in payload["regressions"]] == \
        [("questions", "q3", 5.0), ("questions", "q2", 4.0), ("questions", "q1", pytest.approx(4 / 3))]
    md = cli(severe, "check", "--max-regressions", "questions=0", "-f", "md")[1]
    assert md.index("| question | q3 | 5 |") < md.index("| question | q2 | 4 |") < md.index("| question | q1 | 1.333 |")


def test_check_names_the_first_ten_in_text_and_says_how_many_more(tmp_path: Path) -> None:
    from evalwh.history.check import CheckResult, Outcome, Regression, format_text

    found = [Regression("claims", f"c{i}", 3.0, "SUPPORTED -> DANGLING") for i in range(12)]
    result = CheckResult("r", "b", [Outcome("claims worse <= 0", "max-regressions", "claims", 0.0, 12, None, False,
                                            "12 claims got worse")], found)
    lines = format_text(result).splitlines()
    assert lines[1] == "      c0 (severity 3): SUPPORTED -> DANGLING" and lines[10].startswith("      c9 ")
    assert lines[11] == "      ... and 2 more (check -f json or -f md names them all)"


def test_a_fix_alone_is_better_and_the_gate_holds(tmp_path: Path) -> None:
    # the only change: q3, a must-refuse question answered wrongly, is now refused correctly. Its citation
    # axis falls (the refusal cites nothing while h1 is retrieved), yet the fix is no regression.
    db = tmp_path / "wh.duckdb"
    wrong = dict(GOOD_ANSWERS, q3=("14 days", "h1"))
    load_run(db, run_folder(tmp_path, "before", wrong, BASE_CLAIMS))
    load_run(db, run_folder(tmp_path, "after", GOOD_ANSWERS, BASE_CLAIMS))
    code, out, err = cli(db, "check", "--max-regressions", "questions=0", "--max-regressions", "claims=0")
    assert (code, err) == (0, ""), out
    assert out.splitlines()[1:3] == ["ok    questions worse <= 0: 0 questions got worse",
                                    "ok    claims worse <= 0: 0 claims got worse"]
    rows = json.loads(cli(db, "diff", "-f", "json")[1])
    assert [(r["name"], r["change"], r["detail"]) for r in rows if r["kind"] == "question"] == \
        [("q3", "better", "outcome, refusal")]


def test_check_writes_junit_xml_that_ci_systems_read(severe: Path, tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    import xmlschema

    out = tmp_path / "results.xml"
    code, stdout, err = cli(severe, "check", "--min", "supported_share=0", "--max-regressions", "questions=0",
                            "--max-regressions", "claims=5", "-f", "junit", "-o", str(out))
    assert (code, stdout) == (1, "") and "check failed: 1 of 3 conditions" in err
    xmlschema.XMLSchema(str(Path(__file__).parent / "schemas" / "junit-10.xsd")).validate(str(out))
    suite = ET.parse(out).getroot().find("testsuite")
    assert suite is not None
    cases = [(c.get("classname"), c.get("name"), c.find("failure")) for c in suite.iter("testcase")]
    # 3 conditions, then 3 questions and 2 claims that got worse, most severe first; the claims' gate held
    assert [(k, n, f is not None) for k, n, f in cases] == [
        ("evalwh.gates", "supported_share >= 0", False), ("evalwh.gates", "questions worse <= 0", True),
        ("evalwh.gates", "claims worse <= 5", False), ("evalwh.questions", "q3", True),
        ("evalwh.questions", "q2", True), ("evalwh.questions", "q1", True), ("evalwh.claims", "c1", False),
        ("evalwh.claims", "c4", False)]
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("8", "4", "0")
    failure = cases[3][2]
    assert failure is not None and failure.get("message") == \
        "outcome correct action -> wrong action (expected refuse, the response did answer)"
    code, stdout, _ = cli(severe, "check", "--max-regressions", "questions=3", "-f", "junit")
    assert code == 0 and ET.fromstring(stdout).get("failures") == "0"


def test_runs_of_different_datasets_are_compared_only_when_asked(hr: Path, tmp_path: Path) -> None:
    db = tmp_path / "wh.duckdb"
    shutil.copy(hr, db)
    other = run_folder(tmp_path, "synth", BASE_ANSWERS, BASE_CLAIMS)
    (other / "run.toml").write_text('[run]\ndataset = "synthetic"\n', encoding="utf-8")
    load_run(db, other)
    code, out, err = cli(db, "diff", "tuesday", "synth")
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert "runs 'tuesday' (dataset 'hr-policy') and 'synth' (dataset 'synthetic') belong to different datasets" in err
    assert "--across-datasets" in err
    code, out, _ = cli(db, "diff", "tuesday", "synth", "--across-datasets", "-f", "json")
    assert code == 0
    # the same answers as monday's: what tuesday broke, synth fixes
    assert {(r["name"], r["change"]) for r in json.loads(out) if r["kind"] == "question"} == \
        {("q2", "worse"), ("q3", "better"), ("q4", "better")}
    code, out, err = cli(db, "check", "--run", "synth", "--baseline", "tuesday", "--max-regressions", "questions=0")
    assert (code, out) == (2, "") and "choose a baseline of the run's own dataset" in err
    with open_warehouse(db) as con:
        assert con.execute("SELECT count(*) FROM question_changes WHERE 'synth' IN (run_id, baseline_run_id)"
                           ).fetchone() == (0,)
        assert con.execute("SELECT count(*) FROM run_pairs_all WHERE NOT same_dataset").fetchone() == (4,)


def test_loading_identical_input_again_is_a_no_op_and_other_input_an_error(tmp_path: Path) -> None:
    db = tmp_path / "wh.duckdb"
    folder = run_folder(tmp_path, "eval-data", BASE_ANSWERS, BASE_CLAIMS)
    assert cli(db, "load", str(folder), "--run", "ci-1", "--label", "v1")[0] == 0
    before = db.read_bytes()
    code, out, err = cli(db, "load", str(folder), "--run", "ci-1", "--label", "v1")
    assert (code, out, err) == (0, "", "evalwh: run 'ci-1' already loaded from identical input; nothing written\n")
    assert db.read_bytes() == before  # nothing written
    # another label, or a file changed by one byte, is other input
    code, out, err = cli(db, "load", str(folder), "--run", "ci-1", "--label", "v2")
    assert (code, out) == (2, "") and "run 'ci-1' already exists with other input; pass --replace" in err
    write_csv(folder / "responses.csv", ["question_id", "output"],
              [(q, f"Answer: {a}\nSources: {s}") for q, (a, s) in NEXT_ANSWERS.items()])
    code, _, err = cli(db, "load", str(folder), "--run", "ci-1", "--label", "v1")
    assert code == 2 and "other input" in err
    assert cli(db, "load", str(folder), "--run", "ci-1", "--label", "v1", "--replace")[0] == 0
    with open_warehouse(db) as con:
        digest = con.execute("SELECT content_digest FROM runs").fetchall()
    assert len(digest) == 1 and len(digest[0][0]) == 64
    assert cli(db, "load", str(folder), "--run", "ci-1", "--label", "v1")[0] == 0  # the replaced run's input


def test_the_lesson_scores_split_at_python_s_white_space_as_documented(tmp_path: Path) -> None:
    # docs/rules.md: lesson_exact_match and lesson_f1 use evalwh's tokens, so U+001C..U+001F split words
    # (Python's str.split), where the lesson's stringr keeps them inside one: "25\x1cdays" is the two
    # tokens of "25 days" here, EM 1 (the lesson's R: one token, EM 0)
    answers = dict(BASE_ANSWERS, q1=("25\x1cdays", "h1"))
    db = tmp_path / "wh.duckdb"
    load_run(db, run_folder(tmp_path, "sep", answers, BASE_CLAIMS))
    with open_warehouse(db) as con:
        row = con.execute("SELECT exact_match, f1, lesson_exact_match, lesson_f1 FROM answer_scores "
                          "WHERE question_id = 'q1'").fetchall()
    assert row == [(1, 1.0, 1, 1.0)]
