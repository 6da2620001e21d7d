"""Benchmark: scoring 10,000 answers, `evalwh load` against the SQuAD v2 evaluation script, side by side.

`python bench/squad.py [ANSWERS] [--repeat N]` (default 10,000 answers, best of 5) generates ANSWERS
questions, each with one to three acceptable answers, and a predicted answer for each (a third of them an
acceptable answer with its case, punctuation and articles changed, a third sharing some of its words, a
third none), then, in separate processes measured by the kernel (wait4), runs

  squad   the SQuAD v2 script's scoring (evaluate-v2.0.py: normalize_answer, compute_exact, compute_f1,
          the best over a question's answers, the means) over its dataset and predictions JSON files,
          as that script reads them: the program a team would otherwise run;
  evalwh  the installed command, `evalwh load` of the same questions and answers as a run folder into a
          new warehouse, which validates them, scores every answer and stores the run's metrics;
  floor   the least a DuckDB program does for the same two numbers: read the run folder's questions and
          answers, normalise them with evalwh's native macros, score each answer against each acceptable
          one and take the means, with no validation, no warehouse file and no other column or metric.
          evalwh / floor is what the warehouse around the scoring costs.

evalwh's modules are byte-compiled first, as an installation has them (see measure.byte_compiled).
evalwh keeps its cached empty warehouse (evalwh.warehouse.template) in a directory of its own here: the
first load builds it, and is printed apart ("evalwh, first"); every later one copies it.

It prints each side's minimum wall and CPU seconds (user + system, the whole process: starting Python,
imports and all) and peak RSS, the CPU ratios, and checks that all three give the same mean exact match
and F1.
The answers are ASCII, where SQuAD's punctuation (ASCII's) and evalwh's (Unicode's) delete the same
characters.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

import duckdb

from measure import byte_compiled, measured

WORDS = ("refund window thirty days laptop loan returned the staff manager a extension register an lost security "
         "team device guest wifi password monday month network printer visitors reception expense receipt").split()

# The SQuAD v2 script's scoring, as evaluate-v2.0.py defines it, over its input files: the dataset (data >
# paragraphs > qas, each with its answers) and the predictions (question id -> predicted text)
SQUAD_SCRIPT = r'''
import collections, json, re, string, sys
def normalize_answer(s):
    def remove_articles(text):
        return re.sub(re.compile(r"\b(a|an|the)\b", re.UNICODE), " ", text)
    def white_space_fix(text):
        return " ".join(text.split())
    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)
    return white_space_fix(remove_articles(remove_punc(s.lower())))
def get_tokens(s):
    return normalize_answer(s).split() if s else []
def compute_exact(a_gold, a_pred):
    return int(normalize_answer(a_gold) == normalize_answer(a_pred))
def compute_f1(a_gold, a_pred):
    gold_toks, pred_toks = get_tokens(a_gold), get_tokens(a_pred)
    common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
    num_same = sum(common.values())
    if len(gold_toks) == 0 or len(pred_toks) == 0:
        return int(gold_toks == pred_toks)
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(pred_toks)
    recall = 1.0 * num_same / len(gold_toks)
    return (2 * precision * recall) / (precision + recall)
with open(sys.argv[1]) as f:
    dataset = json.load(f)["data"]
with open(sys.argv[2]) as f:
    preds = json.load(f)
exact_scores, f1_scores = {}, {}
for article in dataset:
    for p in article["paragraphs"]:
        for qa in p["qas"]:
            qid = qa["id"]
            gold_answers = [a["text"] for a in qa["answers"] if normalize_answer(a["text"])] or [""]
            a_pred = preds[qid]
            exact_scores[qid] = max(compute_exact(a, a_pred) for a in gold_answers)
            f1_scores[qid] = max(compute_f1(a, a_pred) for a in gold_answers)
total = len(exact_scores)
print(json.dumps({"mean_em": sum(exact_scores.values()) / total, "mean_f1": sum(f1_scores.values()) / total}))
'''


# the floor: plain DuckDB over the run folder, EM and F1 as the view answer_scores defines them (tokens
# equal and not empty; 2 * common / (predicted + reference tokens), common counted as a multiset)
FLOOR = r'''
import json, sys
import duckdb
from evalwh.text.nativetext import register_native_macros
folder = sys.argv[1]
con = duckdb.connect()
register_native_macros(con)  # ASCII answers: no capital sigma
mean_em, mean_f1 = con.execute(f"""
WITH q AS (SELECT question_id, acceptable_answers FROM read_csv('{folder}/questions.csv', all_varchar=true)),
r AS (SELECT question_id, answer FROM read_json('{folder}/responses.jsonl', format='newline_delimited')),
v AS (SELECT q.question_id, native_squad_tokens(r.answer) AS pred, unnest(native_squad_variants(q.acceptable_answers))
             AS ref FROM q JOIN r USING (question_id)),
n AS (SELECT *, row_number() OVER () AS vid FROM v),
pc AS (SELECT vid, tok, count(*) AS k FROM (SELECT vid, unnest(pred) AS tok FROM n) GROUP BY ALL),
rc AS (SELECT vid, tok, count(*) AS k FROM (SELECT vid, unnest(ref) AS tok FROM n) GROUP BY ALL),
c AS (SELECT vid, sum(least(rc.k, pc.k)) AS common FROM rc JOIN pc USING (vid, tok) GROUP BY vid),
per AS (SELECT n.question_id, CASE WHEN len(ref) > 0 AND ref = pred THEN 1 ELSE 0 END AS em,
               CASE WHEN len(pred) = 0 OR len(ref) = 0 THEN 0.0
                    ELSE 2.0 * coalesce(c.common, 0) / (len(pred) + len(ref)) END AS f1
        FROM n LEFT JOIN c USING (vid)),
best AS (SELECT question_id, max(em) AS em, max(f1) AS f1 FROM per GROUP BY question_id)
SELECT avg(em), avg(f1) FROM best""").fetchone()
print(json.dumps({"mean_em": mean_em, "mean_f1": mean_f1}))
'''


def phrase(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def generate(folder: Path, answers: int, seed: int = 5) -> tuple[Path, Path, Path]:
    """The SQuAD dataset and predictions files, and the run folder, of the same questions and answers."""
    rng = random.Random(seed)
    qas, preds, rows, responses = [], {}, [], []
    for n in range(answers):
        acceptable = [phrase(rng, rng.randint(1, 5)) + rng.choice(["", "."]) for _ in range(rng.randint(1, 3))]
        # no answer normalises to nothing (where the script's rule and the method's differ: evalwh scores such
        # an answer 0, the script drops it, or counts an empty prediction a match when it had no other)
        acceptable = [a for a in acceptable if set(a.rstrip(".").split()) - {"a", "an", "the"}] or ["laptop loan"]
        kind = n % 3
        if kind == 0:  # an acceptable answer, written otherwise
            predicted = f"The {rng.choice(acceptable).upper()}!"
        elif kind == 1:  # some of its words, and others
            predicted = " ".join(rng.sample(rng.choice(acceptable).split(), 1)) + ", " + phrase(rng, rng.randint(1, 6))
        else:
            predicted = phrase(rng, rng.randint(1, 8))
        qid = f"q{n}"
        qas.append({"id": qid, "question": f"What about {phrase(rng, 3)}?",
                    "answers": [{"text": a, "answer_start": 0} for a in acceptable], "is_impossible": False})
        preds[qid] = predicted
        rows.append([qid, qas[-1]["question"], "answer", "|".join(acceptable)])
        responses.append({"question_id": qid, "answer": predicted, "cited": [], "refused": False})
    dataset, predictions = folder / "dev-v2.0.json", folder / "predictions.json"
    dataset.write_text(json.dumps({"version": "v2.0", "data": [
        {"title": "bench", "paragraphs": [{"context": "", "qas": qas}]}]}), encoding="utf-8")
    predictions.write_text(json.dumps(preds), encoding="utf-8")
    run = folder / "run"
    run.mkdir()
    with (run / "questions.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["question_id", "question", "expected", "acceptable_answers"])
        writer.writerows(rows)
    with (run / "responses.jsonl").open("w", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in responses)
    (run / "run.toml").write_text('[reader]\nformat = "structured"\n', encoding="utf-8")
    return dataset, predictions, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("answers", type=int, nargs="?", default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(byte_compiled())
    evalwh = shutil.which("evalwh", path=str(Path(sys.executable).parent)) or sys.exit("evalwh is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        dataset, predictions, run = generate(root, args.answers)
        print(f"{args.answers:,} answers; best of {args.repeat}; load average {os.getloadavg()[0]:.2f}")
        squad, wh, floor = [], [], []
        env = {**os.environ, "EVALWH_CACHE_DIR": str(root / "cache")}
        first = measured([evalwh, "--quiet", "--db", str(root / "first.duckdb"), "load", str(run)], env)
        for attempt in range(args.repeat):
            squad.append(measured([sys.executable, "-c", SQUAD_SCRIPT, str(dataset), str(predictions)]))
            wh.append(measured([evalwh, "--quiet", "--db", str(root / f"bench{attempt}.duckdb"), "load", str(run)], env))
            floor.append(measured([sys.executable, "-c", FLOOR, str(run)]))
        print(f"{'':<16}{'wall min s':>12}{'CPU min s':>11}{'peak RSS MiB':>14}")
        for name, runs in (("squad", squad), ("evalwh", wh), ("evalwh, first", [first]), ("floor", floor)):
            print(f"{name:<16}{min(r.wall for r in runs):>12.3f}{min(r.cpu for r in runs):>11.3f}"
                  f"{max(r.peak_mib for r in runs):>14.0f}")
        ratio = min(r.cpu for r in wh) / min(r.cpu for r in squad)
        print(f"evalwh takes {ratio:.2f}x the SQuAD script's CPU time "
              f"({first.cpu / min(r.cpu for r in squad):.2f}x for the first new warehouse, which builds the template)")
        print(f"the floor takes {min(r.cpu for r in floor) / min(r.cpu for r in squad):.2f}x the script's CPU time; "
              f"evalwh {min(r.cpu for r in wh) / min(r.cpu for r in floor):.2f}x the floor's")
        con = duckdb.connect(str(root / "bench0.duckdb"), read_only=True)
        got = dict(con.execute("SELECT metric, value FROM metrics_history WHERE metric IN ('mean_em', 'mean_f1')").fetchall())
        con.close()
        want = squad[0].output
        same = all(abs(side[k] - want[k]) < 1e-12 for side in (got, floor[0].output) for k in ("mean_em", "mean_f1"))
        print(f"mean_em {got['mean_em']:.6f}  mean_f1 {got['mean_f1']:.6f}  evalwh's and the floor's "
              f"the same as the script's: {same}")
        if not same:
            sys.exit(f"evalwh, the floor and the SQuAD script disagree: {got}, {floor[0].output} against {want}")


if __name__ == "__main__":
    main()
