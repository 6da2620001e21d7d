"""Benchmark: the chapter's pure-Python check against `evalwh load` + metrics, side by side.

`python bench/claims.py [CLAIMS] [CHUNKS] [--questions N] [--repeat N]` (default 1,000,000 claims over
250,000 chunks, and 2,000 questions per 1,000,000 claims; `--questions 0` for a run of claims alone)
generates one run folder, then, in separate processes measured by the kernel (wait4), runs

  chapter the chapter's project code as it is written, over the run's CSVs: CHUNKS a dict of chunk texts,
          CLAIMS a list of (claim id, text, cited ids, quote), check_claim(claim) applying the claim-status
          rule to norm(quote) and norm(chunk text), then the share supported and the pair precision as
          the chapter defines them: the program evalwh replaces, and the bench's reference;
  tuned   the same rule hand-tuned in Python: every chunk text normalised once, claims streamed from
          the file rather than held in a list (about 2.3x faster than the chapter's code, in less
          than half its memory): how far plain Python goes;
  evalwh  `evalwh load` into a new warehouse (which computes the run's headline metrics once and stores
          them), then the run's supported share and pair precision as `evalwh check` reads them;
  floor   the least a DuckDB program does for those two numbers and the texts they came from: read the
          three CSVs, normalise the chunk texts and quotes with evalwh's native macros, store the texts and
          what the rule reads in a database file and apply the claim-status rule, with no validation, no
          run history and no other column or metric. It is what plain DuckDB SQL does for the
          rule alone on this machine: evalwh / floor is what the warehouse around the rule costs.

With questions every side also does the chapter's Task 2 for them: each question's best score (the number
of distinct non-stop words it shares with a chunk, the highest over the run's chunks) and the number of
correct refusal decisions at each threshold 1..5, whose largest is best_correct. The Python sides find
the chunks sharing a word with a question through an inverted index (the chapter's loop over every chunk
for every question would take hours), then apply the chapter's score() to those chunks. evalwh does
more than any other side (validation, its built-in retriever's top k, every stored metric); the floor
does only these numbers.

It repeats the four N times (default 2) and prints the minimum wall time of each, the ratios, each side's
minimum CPU time (user + system, over all threads) and peak RSS, and checks that all give the same supported
share, pair precision and best_correct. Then it loads a second run over the same chunk file and prints how many texts were
normalised and how much the file grew, and times `evalwh check` on that run (the CI gate, reading the
metrics that load stored).
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import sys
import tempfile
from pathlib import Path

from measure import Measurement, measured

WORDS = ("loan laptop returned days issue date staff manager extension register lost security team device "
         "guest wifi password monday month network printer visitors reception expense receipt portal claims "
         "dollars project code payment weekly Ünïcode naïve café İstanbul").split()

# What both Python sides share: the chapter's words and norm, and each claim's cited ids from citations.csv
PYTHON_PROLOGUE = r'''
import csv, json, re, sys
csv.field_size_limit(1 << 30)
folder = sys.argv[1]
def words(text):
    return re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", text.lower())
def norm(text):
    # lower-cased words joined by single spaces: ignores case and punctuation
    return " ".join(words(text))
cited = {}
with open(f"{folder}/citations.csv", newline="", encoding="utf-8") as f:
    for row in csv.DictReader(f):
        cited.setdefault(row["claim_id"], []).append(row["chunk_id"])
'''

# What both Python sides do for the questions: the chapter's Task 2 (each question's best score, the
# threshold sweep), with the chunks sharing a word with a question found by an inverted index (the chapter's
# loop over every chunk for every question would take hours). {SCORING} is each side's way to score them.
PYTHON_QUESTIONS = r'''
import os
from collections import Counter
STOP = set("the a an of to is are in on for be by and or it that this who which what how do i can will must from at with as when".split())
def score(question, chunk_text):
    # the chapter's score: the number of different non-stop words the question and the chunk share
    return len((set(words(question)) - STOP) & (set(words(chunk_text)) - STOP))
best_correct = None
if os.path.exists(f"{folder}/questions.csv"):
    with open(f"{folder}/questions.csv", newline="", encoding="utf-8") as f:
        QUESTIONS = [(r["question_id"], r["question"], r["expected"]) for r in csv.DictReader(f)]
    wanted = {w for _, q, _ in QUESTIONS for w in words(q)} - STOP
    index = {}  # word -> the chunks holding it (their texts, or their numbers)
    with open(f"{folder}/chunks.csv", newline="", encoding="utf-8") as f:
        for n, row in enumerate(csv.DictReader(f)):
            for w in set(words(row["text"])) & wanted:
                index.setdefault(w, []).append({POSTING})
    best = {}
    for qid, question, _ in QUESTIONS:
        {SCORING}
    correct = [sum((best[q] >= t) == (e == "answer") for q, _, e in QUESTIONS) for t in range(1, 6)]
    best_correct = max(correct)
'''
# the chapter's score() on each candidate chunk's text
CHAPTER_QUESTIONS = PYTHON_QUESTIONS.replace("{POSTING}", 'row["text"]').replace(
    "{SCORING}", "texts = {t for w in set(words(question)) - STOP for t in index.get(w, ())}\n"
                 "        best[qid] = max((score(question, t) for t in texts), default=0)")
# tuned: a chunk's score is how many of the question's words list it
TUNED_QUESTIONS = PYTHON_QUESTIONS.replace("{POSTING}", "n").replace(
    "{SCORING}", "counts = Counter(c for w in set(words(question)) - STOP for c in index.get(w, ()))\n"
                 "        best[qid] = max(counts.values(), default=0)")

# The chapter's project code as written (the claim-status rule over CHUNKS and CLAIMS), with the CSVs
# read into the chapter's data shapes: what evalwh replaces.
CHAPTER_CODE = PYTHON_PROLOGUE + r'''
with open(f"{folder}/chunks.csv", newline="", encoding="utf-8") as f:
    CHUNKS = {row["chunk_id"]: row["text"] for row in csv.DictReader(f)}
with open(f"{folder}/claims.csv", newline="", encoding="utf-8") as f:
    CLAIMS = [(row["claim_id"], row["text"], cited.get(row["claim_id"], []), row["quote"])
              for row in csv.DictReader(f)]
def check_claim(claim):
    claim_id, text, ids, quote = claim
    if not ids:
        return "UNCITED"
    if any(i not in CHUNKS for i in ids):
        return "DANGLING"
    if not any(norm(quote) in norm(CHUNKS[i]) for i in ids):
        return "UNSUPPORTED"
    if set(re.findall(r"\d+", text)) - set(re.findall(r"\d+", quote)):
        return "NUMBER_MISMATCH"
    return "SUPPORTED"
statuses = [check_claim(claim) for claim in CLAIMS]
share = statuses.count("SUPPORTED") / len(CLAIMS)
pairs = sum(len(ids) for _, _, ids, _ in CLAIMS)
sound = sum(1 for _, _, ids, quote in CLAIMS for i in ids if i in CHUNKS and norm(quote) in norm(CHUNKS[i]))
''' + CHAPTER_QUESTIONS + r'''
print(json.dumps({"supported_share": share, "pair_precision": sound / pairs, "best_correct": best_correct}))
'''

# The same rule hand-tuned: chunk texts normalised once, claims streamed
TUNED_LOOP = PYTHON_PROLOGUE + r'''
with open(f"{folder}/chunks.csv", newline="", encoding="utf-8") as f:
    chunks = {row["chunk_id"]: norm(row["text"]) for row in csv.DictReader(f)}
claims = supported = pairs = sound = 0
with open(f"{folder}/claims.csv", newline="", encoding="utf-8") as f:
    for row in csv.DictReader(f):
        claims += 1
        ids = cited.get(row["claim_id"], [])
        q = norm(row["quote"])
        ok = [i in chunks and q in chunks[i] for i in ids]
        pairs += len(ids)
        sound += sum(ok)
        if not ids or any(i not in chunks for i in ids) or not any(ok):
            continue
        if set(re.findall(r"\d+", row["text"])) - set(re.findall(r"\d+", row["quote"])):
            continue
        supported += 1
del chunks
''' + TUNED_QUESTIONS + r'''
print(json.dumps({"supported_share": supported / claims, "pair_precision": sound / pairs, "best_correct": best_correct}))
'''

EVALWH_LOAD = r'''
import json, sys
from pathlib import Path
from evalwh.history import metric_values
from evalwh.loader import load_run
from evalwh.warehouse import open_warehouse
db, folder, run = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
result = load_run(db, folder, run=run)
with open_warehouse(db) as con:
    values = metric_values(con, run, logs=False)
print(json.dumps({"supported_share": values["supported_share"], "pair_precision": values["pair_precision"],
                  "best_correct": values.get("best_correct"), "normalised": getattr(result, "normalised", None)}))
'''

# The floor: read, normalise, store, apply the rule and (with questions) score them, nothing else
# The claim-status rule as plain DuckDB SQL, for supported_share and pair_precision alone: the floor's, over
# tables citations(claim_id, chunk_id), claims(claim_id, quote_norm, text_digits, quote_digits) and
# chunks(chunk_id, text_norm), each joined on one key (bench/metrics_store.py applies it to the stored run)
CLAIM_RULE = """
    WITH pairs AS (
        SELECT ci.claim_id, count(*) AS pairs, count(*) FILTER (WHERE ch.chunk_id IS NULL) AS dangling,
               count(*) FILTER (WHERE strpos(ch.text_norm, cl.quote_norm) > 0) AS sound
        FROM {citations} AS ci JOIN {claims} AS cl USING (claim_id)
        LEFT JOIN {chunks} AS ch ON ch.chunk_id = ci.chunk_id
        GROUP BY ci.claim_id
    )
    SELECT count(*) FILTER (WHERE p.dangling = 0 AND p.sound > 0
                              AND len(list_filter(cl.text_digits, lambda d: NOT list_contains(cl.quote_digits, d))) = 0)
               / count(*),
           sum(p.sound) / sum(p.pairs)
    FROM {claims} AS cl LEFT JOIN pairs AS p USING (claim_id)"""

DUCKDB_FLOOR = r'''
import json, os, sys
import duckdb
from evalwh.text.nativetext import register_native_macros
from evalwh.text.textnorm import register_udfs
folder, db = sys.argv[1], sys.argv[2]
con = duckdb.connect(db)
con.execute("SET enable_progress_bar = false")  # DuckDB draws it on stdout, which carries this side's result
register_udfs(con)  # the macros' fallbacks for a capital sigma, which Python lower-cases by its context
register_native_macros(con)
con.execute(f"""CREATE TABLE chunks AS SELECT chunk_id, text, native_join(native_words(text)) AS text_norm
    FROM read_csv('{folder}/chunks.csv', all_varchar=true)""")
con.execute(f"""CREATE TABLE claims AS SELECT claim_id, text, quote, native_join(native_words(quote)) AS quote_norm,
    native_digit_runs(text) AS text_digits, native_digit_runs(quote) AS quote_digits
    FROM read_csv('{folder}/claims.csv', all_varchar=true)""")
con.execute(f"CREATE TABLE citations AS SELECT * FROM read_csv('{folder}/citations.csv', all_varchar=true)")
share, precision = con.execute("""@RULE@""").fetchone()
best_correct = None
if os.path.exists(f"{folder}/questions.csv"):
    stop = "the a an of to is are in on for be by and or it that this who which what how do i can will must from at with as when".split()
    con.execute(f"""CREATE TABLE questions AS SELECT question_id, expected,
        list_distinct(list_filter(native_words(question), lambda w: NOT list_contains($stop, w))) AS terms
        FROM read_csv('{folder}/questions.csv', all_varchar=true)""", {"stop": stop})
    best_correct = con.execute("""
        WITH q AS (SELECT question_id, expected, unnest(terms) AS term FROM questions),
        c AS (SELECT DISTINCT chunk_id, unnest(string_split(text_norm, ' ')) AS term FROM chunks
              WHERE text_norm <> ''),
        hits AS (SELECT q.question_id, c.chunk_id, count(*) AS score FROM q JOIN c USING (term)
                 GROUP BY ALL),
        best AS (SELECT qs.question_id, qs.expected, coalesce(max(h.score), 0) AS best FROM questions AS qs
                 LEFT JOIN hits AS h USING (question_id) GROUP BY ALL)
        SELECT max(correct) FROM (SELECT t, count(*) FILTER (WHERE (best >= t) = (expected = 'answer')) AS correct
                                  FROM best, range(1, 6) AS r(t) GROUP BY t)""").fetchone()[0]
con.close()
print(json.dumps({"supported_share": share, "pair_precision": precision, "best_correct": best_correct}))
'''.replace("@RULE@", CLAIM_RULE.format(citations="citations", claims="claims", chunks="chunks"))

# The CI gate on the run: `evalwh check` reads its headline metrics, stored by the load
EVALWH_CHECK = r'''
import json, sys
from pathlib import Path
from evalwh.history.check import parse_condition, run_check
result = run_check(Path(sys.argv[1]), sys.argv[2], [parse_condition("min", "supported_share=0")])
print(json.dumps({"ok": result.ok}))
'''


# a corpus's vocabulary: the few common words above, and a long tail of rarer ones, each drawn about
# as often as Zipf's law has it (the n-th word of the tail in proportion to 1 / (n + 10))
RARE = [f"term{n}" for n in range(50_000)]
RARE_WEIGHTS = list(__import__("itertools").accumulate(1 / (n + 10) for n in range(len(RARE))))


def sentence(rng: random.Random, n: int, rare: int = 0) -> str:
    """``n`` common words and ``rare`` words of the tail, shuffled, and a number."""
    picked = [rng.choice(WORDS) for _ in range(n)] + rng.choices(RARE, cum_weights=RARE_WEIGHTS, k=rare)
    rng.shuffle(picked)
    return " ".join(picked) + f" {rng.randint(1, 90)}."


def generate(folder: Path, claims: int, chunks: int, questions: int = 0, seed: int = 7) -> None:
    """chunks.csv, claims.csv and citations.csv: 0-2 citations a claim, 5% dangling, 80% quotes copied,
    30% of claims adding a number; and ``questions`` questions (questions.csv): 80% asking about words
    of a chunk (four of its rarer words), whose six words are their gold, and the rest refusals
    asking about four words of the tail drawn evenly."""
    rng = random.Random(seed)
    texts = [sentence(rng, 20, rare=10) for _ in range(chunks)]
    ids = [f"doc-{i // 10}/chunk-{i}" for i in range(chunks)]
    with (folder / "chunks.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["chunk_id", "text"])
        w.writerows(zip(ids, texts, strict=True))
    with (folder / "claims.csv").open("w", newline="", encoding="utf-8") as fc, \
            (folder / "citations.csv").open("w", newline="", encoding="utf-8") as fi:
        wc, wi = csv.writer(fc), csv.writer(fi)
        wc.writerow(["claim_id", "text", "quote"])
        wi.writerow(["claim_id", "chunk_id"])
        for n in range(claims):
            picked = [rng.randrange(chunks) for _ in range(rng.randint(0, 2))]
            cited = [ids[i] for i in picked]
            if rng.random() < 0.05:
                cited.append("missing/chunk")
            tokens = (texts[picked[0]] if picked else sentence(rng, 8)).split()
            start = rng.randrange(len(tokens))
            quote = " ".join(tokens[start:start + 6]) if rng.random() < 0.8 else sentence(rng, 4)
            number = f" {rng.randint(1, 90)}" if rng.random() < 0.3 else ""
            wc.writerow([f"claim-{n}", quote + number, quote])
            wi.writerows([f"claim-{n}", c] for c in cited)
    if questions:
        with (folder / "questions.csv").open("w", newline="", encoding="utf-8") as fq:
            wq = csv.writer(fq)
            wq.writerow(["question_id", "question", "expected", "gold"])
            # a question asks about rarer words (beyond the 500 most frequent of the tail), as a real question's
            # content words, its stop words left out, are
            for n in range(questions):
                if rng.random() < 0.8:
                    tokens = texts[rng.randrange(chunks)].split()
                    start = rng.randrange(max(1, len(tokens) - 6))
                    gold = " ".join(tokens[start:start + 6])
                    tail = [t for t in tokens if t.startswith("term") and int(t[4:]) >= 500]
                    asked = rng.sample(tail, 4) if len(tail) >= 4 else tail + [rng.choice(RARE[500:])] * (4 - len(tail))
                    wq.writerow([f"q-{n}", "What about " + " ".join(asked) + "?", "answer", gold])
                else:
                    asked = [rng.choice(RARE) for _ in range(4)]
                    wq.writerow([f"q-{n}", "What about " + " ".join(asked) + "?", "refuse", ""])


def run_arguments(doc: str, repeat: int) -> argparse.Namespace:
    """The command line of a bench over a generated run: CLAIMS [CHUNKS] [--questions N] [--repeat N]."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("claims", type=int, nargs="?", default=1_000_000)
    parser.add_argument("chunks", type=int, nargs="?", default=None)
    parser.add_argument("--questions", type=int, default=None, help="default: 2,000 per 1,000,000 claims")
    parser.add_argument("--repeat", type=int, default=repeat)
    return parser.parse_args()


def run_shape(args: argparse.Namespace) -> tuple[int, int]:
    """(chunks, questions) of the run: by default a chunk per four claims and 2,000 questions per 1,000,000."""
    chunks = args.chunks or max(1, args.claims // 4)
    questions = args.questions if args.questions is not None else max(1, args.claims // 500)
    return chunks, questions


def main() -> None:
    args = run_arguments(__doc__, repeat=2)
    chunks, questions = run_shape(args)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "run"
        folder.mkdir()
        generate(folder, args.claims, chunks, questions)
        print(f"{args.claims:,} claims over {chunks:,} chunks, {questions:,} questions; best of {args.repeat}; "
              f"load average {os.getloadavg()[0]:.2f}")
        run = str(folder)
        programs = {  # each side's program and its arguments at one attempt
            "python chapter code": lambda attempt: [CHAPTER_CODE, run],
            "python tuned loop": lambda attempt: [TUNED_LOOP, run],
            "evalwh load+metrics": lambda attempt: [EVALWH_LOAD, str(root / f"bench{attempt}.duckdb"), run, "first"],
            "duckdb floor": lambda attempt: [DUCKDB_FLOOR, run, str(root / f"floor{attempt}.duckdb")],
        }
        sides: dict[str, list[Measurement]] = {name: [] for name in programs}
        for attempt in range(args.repeat):
            for name, program in programs.items():
                sides[name].append(measured([sys.executable, "-c", *program(attempt)]))
        best = {name: min(r.wall for r in runs) for name, runs in sides.items()}
        print(f"{'':<22}{'wall min s':>12}{'CPU min s':>11}{'peak RSS MiB':>14}")
        for name, runs in sides.items():
            # CPU is user + system time over all threads: the loops use one core, DuckDB both
            print(f"{name:<22}{best[name]:>12.2f}{min(r.cpu for r in runs):>11.2f}"
                  f"{max(r.peak_mib for r in runs):>14.0f}")
        wh, floor = best["evalwh load+metrics"], best["duckdb floor"]
        for loop in ("python chapter code", "python tuned loop"):
            print(f"ratio ({loop} / evalwh): {best[loop] / wh:.2f}x   ({loop} / floor): {best[loop] / floor:.2f}x")
        cpu = {name: min(r.cpu for r in runs) for name, runs in sides.items()}
        print(f"evalwh takes {wh / floor:.2f}x the floor's wall time and {cpu['evalwh load+metrics'] / cpu['duckdb floor']:.2f}x "
              f"its CPU time; the tuned loop takes {best['python tuned loop'] / wh:.2f}x evalwh's wall time")
        outputs = [runs[0].output for runs in sides.values()]
        same = all(abs(outputs[0][k] - out[k]) < 1e-12 for out in outputs for k in ("supported_share", "pair_precision"))
        same = same and len({out["best_correct"] for out in outputs}) == 1
        wh_out = sides["evalwh load+metrics"][0].output
        print(f"supported_share {wh_out['supported_share']:.6f}  pair_precision {wh_out['pair_precision']:.6f}  "
              f"best_correct {wh_out['best_correct']}  identical in all four: {same}")
        db = root / "bench0.duckdb"
        before = db.stat().st_size
        second = measured([sys.executable, "-c", EVALWH_LOAD, str(db), str(folder), "second"])
        print(f"second run over the same chunks: {second.wall:.2f} s, texts normalised: {second.output['normalised']}, "
              f"file {before / 2**20:.0f} -> {db.stat().st_size / 2**20:.0f} MiB")
        gate = measured([sys.executable, "-c", EVALWH_CHECK, str(db), "second"])
        print(f"evalwh check on the second run (the metrics its load stored): {gate.wall:.2f} s, "
              f"{gate.peak_mib:.0f} MiB peak")
        if not same:
            sys.exit("evalwh, the floor and the Python loops disagree")


if __name__ == "__main__":
    main()
