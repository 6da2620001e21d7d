"""Benchmark: evalwh's built-in tf-idf retriever against scikit-learn, side by side, on identical scores.

`python bench/tfidf.py [QUESTIONS] [CHUNKS] [--repeat N]` (default 10,000 questions over 100,000 chunks;
needs the bench extra: `pip install -e '.[bench]'`). A generated corpus with a Zipf-distributed vocabulary
is written as one run folder (questions, chunks, run.toml with retriever = "tfidf", top_k = 3). Then, each
in its own process measured by the kernel (wait4), N times, from the CSV files to the top 3 of every question:

  sklearn  TfidfVectorizer (the run's tokens and stop list, raw counts, idf = ln(N/df), l2 norm) fitted on the
           chunks, the questions transformed, one sparse product, the top 3 per question by score then id;
  evalwh   `evalwh load --no-metrics` of the folder (validation, normalisation, the built-in retriever's top 3
           stored; not the run's headline metrics, which scikit-learn's side has no counterpart of).

Then it times once the default load, which also computes and stores the run's headline metrics.

It prints the minimum wall time of each, their ratio and peak RSS, and whether the top-3 lists are identical.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
import tempfile
from pathlib import Path

from measure import measured

SKLEARN = r'''
import csv, json, math, sys
import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from evalwh.text.textnorm import CHAPTER_STOPWORDS, words
folder, out = sys.argv[1], sys.argv[2]
with open(f"{folder}/chunks.csv", newline="", encoding="utf-8") as f:
    rows = list(csv.reader(f))[1:]
ids = np.array([r[0] for r in rows]); texts = [r[1] for r in rows]
with open(f"{folder}/questions.csv", newline="", encoding="utf-8") as f:
    qrows = list(csv.reader(f))[1:]
stop = set(CHAPTER_STOPWORDS)
vec = TfidfVectorizer(tokenizer=lambda t: [w for w in words(t) if w not in stop], lowercase=False,
                      token_pattern=None, smooth_idf=False, norm="l2")
chunk_matrix = vec.fit_transform(texts)
# sklearn's idf is ln(N/df) + 1: take the 1 back off, as the rule has it
vec.idf_ = vec.idf_ - 1.0
chunk_matrix = vec.transform(texts)
question_matrix = vec.transform([r[1] for r in qrows])
scores = (question_matrix @ chunk_matrix.T).tocsr()
order = np.argsort(ids)  # rank = position of the id in sorted order, for ties
rank_of = np.empty(len(ids), dtype=np.int64); rank_of[order] = np.arange(len(ids))
top = {}
for i, q in enumerate(qrows):
    start, end = scores.indptr[i], scores.indptr[i + 1]
    cols, vals = scores.indices[start:end], np.round(scores.data[start:end], 12)
    keep = vals > 0
    cols, vals = cols[keep], vals[keep]
    pick = np.lexsort((rank_of[cols], -vals))[:3]
    top[q[0]] = [str(ids[c]) for c in cols[pick]]
json.dump(top, open(out, "w"))
print(json.dumps({"questions": len(top)}))
'''

EVALWH = r'''
import json, sys
from pathlib import Path
from evalwh.loader import load_run
from evalwh.warehouse import open_warehouse
folder, db, out = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
db.unlink(missing_ok=True)
# the top 3 only, as scikit-learn computes: not the run's headline metrics (its overlap scores, sweep, cases)
load_run(db, folder, run="tfidf", metrics=len(sys.argv) > 4)
with open_warehouse(db) as con:
    rows = con.execute("SELECT question_id, chunk_id FROM retrievals ORDER BY question_id, rank").fetchall()
top = {}
for question_id, chunk_id in rows:
    top.setdefault(question_id, []).append(chunk_id)
json.dump(top, open(out, "w"))
print(json.dumps({"questions": len(top)}))
'''


def generate(folder: Path, questions: int, chunks: int, vocabulary: int = 50_000, seed: int = 11) -> None:
    """Chunks of 30 words and questions of 8, drawn from a Zipf-like vocabulary (the most frequent words,
    which a stop list would remove, left out)."""
    rng = random.Random(seed)
    vocab = [f"w{n}" for n in range(vocabulary)]
    weights = [1 / (rank + 200) for rank in range(vocabulary)]
    draw = lambda k: " ".join(rng.choices(vocab, weights, k=k))  # noqa: E731
    with (folder / "chunks.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["chunk_id", "text"])
        w.writerows([f"c{n:06d}", draw(30) + "."] for n in range(chunks))
    with (folder / "questions.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["question_id", "question", "expected"])
        w.writerows([f"q{n:05d}", draw(8) + "?", "answer"] for n in range(questions))
    (folder / "run.toml").write_text('[retrieval]\nretriever = "tfidf"\ntop_k = 3\n', encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=int, nargs="?", default=10_000)
    parser.add_argument("chunks", type=int, nargs="?", default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "tfidf"
        folder.mkdir()
        generate(folder, args.questions, args.chunks)
        db = root / "bench.duckdb"
        print(f"{args.questions:,} questions x {args.chunks:,} chunks, top 3; best of {args.repeat}")
        sk, wh = [], []
        for _ in range(args.repeat):
            sk.append(measured([sys.executable, "-c", SKLEARN, str(folder), str(root / "sklearn.json")]))
            wh.append(measured([sys.executable, "-c", EVALWH, str(folder), str(db), str(root / "evalwh.json")]))
        sk_best, wh_best = min(r.wall for r in sk), min(r.wall for r in wh)
        print(f"{'':<26}{'wall min s':>12}{'peak RSS MiB':>14}")
        print(f"{'scikit-learn + top 3':<26}{sk_best:>12.2f}{max(r.peak_mib for r in sk):>14.0f}")
        print(f"{'evalwh load (top 3 stored)':<26}{wh_best:>12.2f}{max(r.peak_mib for r in wh):>14.0f}")
        print(f"ratio (evalwh / scikit-learn): {wh_best / sk_best:.2f}")
        full = measured([sys.executable, "-c", EVALWH, str(folder), str(db), str(root / "full.json"), "metrics"])
        print(f"evalwh load storing the run's headline metrics too (what `evalwh load` does by default; once): "
              f"{full.wall:.2f} s, {full.peak_mib:.0f} MiB peak")
        a = json.loads((root / "sklearn.json").read_text())
        b = json.loads((root / "evalwh.json").read_text())
        differing = sorted(q for q in a.keys() | b.keys() if a.get(q, []) != b.get(q, []))
        print(f"top-3 lists identical: {not differing} ({len(differing)} questions differ)")
        if differing:
            print("first differences:", [(q, a.get(q), b.get(q)) for q in differing[:3]])
            sys.exit(1)


if __name__ == "__main__":
    main()
