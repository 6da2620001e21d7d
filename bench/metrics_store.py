"""Benchmark: what storing a run's headline metrics costs at load, beside the claim-status rule alone.

`python bench/metrics_store.py [CLAIMS] [CHUNKS] [--questions N] [--repeat N]` (default 1,000,000 claims
over 250,000 chunks with 2,000 questions, best of 3) generates a run folder as `bench/claims.py` does,
then, in a fresh process per attempt,

  store  `evalwh load` of the run into a new warehouse, timing (CPU: user + system, all threads, from the
         process's own clock) only its last step: the 23 headline metrics computed and written to
         metrics_history (`store_metrics`, with the load's own best scores standing in for the view
         question_best_score);
  rule   in the same process, then: plain DuckDB applying the claim-status rule alone, the query of
         `bench/claims.py`'s floor, to the normalised quotes, digit runs and chunk texts the load stored,
         copied first (untimed) into single-run tables joined on one key each. It computes two of the 23
         metrics (supported_share and pair_precision) and nothing else: the least any SQL does for them;
         then the same rule with each pair given its claim's and chunk's ordinal first (timed apart), and
         on those integer keys;
  stored the same rule again, on the run's rows as the load stored them (zstd-compressed, each chunk's
         text through the content-addressed corpus, the view `chunks`), not copied: what the store's
         tables cost the rule before any of the other 21 metrics.

It prints the minimum of each, the ratios of the store to the rule and to the rule on the stored tables,
and the machine's load average, and checks that every side gives the same supported_share and
pair_precision.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from claims import CLAIM_RULE, generate, run_arguments, run_shape

SIDE = r'''
import json, sys, time
from pathlib import Path
import evalwh.loader.load as load
from evalwh.warehouse.connection import open_warehouse

folder, db = Path(sys.argv[1]), Path(sys.argv[2])
timed = {}
store_metrics = load.store_metrics


def timed_store(con, run_id, now):
    wall, cpu = time.perf_counter(), time.process_time()
    store_metrics(con, run_id, now)
    timed["store"] = (time.process_time() - cpu, time.perf_counter() - wall)


load.store_metrics = timed_store
load.load_run(db, folder, run="r")
with open_warehouse(db, udfs=False) as con:
    con.execute("CREATE TEMP TABLE cl AS SELECT claim_id, quote_norm, text_digits, quote_digits FROM claims")
    con.execute("CREATE TEMP TABLE ci AS SELECT claim_id, chunk_id FROM citations")
    con.execute("CREATE TEMP TABLE ch AS SELECT chunk_id, text_norm FROM chunks")
    wall, cpu = time.perf_counter(), time.process_time()
    share, precision = con.execute("""@RULE@""").fetchone()
    timed["rule"] = (time.process_time() - cpu, time.perf_counter() - wall)
    wall, cpu = time.perf_counter(), time.process_time()
    on_tables = con.execute("""@STORED@""").fetchone()
    timed["stored"] = (time.process_time() - cpu, time.perf_counter() - wall)
    assert on_tables == (share, precision), (on_tables, share, precision)
    # the same rule on integer keys (each claim's and chunk's ordinal), once the pairs carry them
    con.execute("CREATE TEMP TABLE cl_no AS SELECT ordinal AS no, claim_id, quote_norm, text_digits, quote_digits "
                "FROM claims")
    con.execute("CREATE TEMP TABLE ch_no AS SELECT ordinal AS no, chunk_id, text_norm FROM chunks")
    wall, cpu = time.perf_counter(), time.process_time()
    con.execute("""CREATE TEMP TABLE pairs_no AS SELECT cl_no.no AS claim_no, ch_no.no AS chunk_no
                   FROM temp.ci JOIN temp.cl_no USING (claim_id) LEFT JOIN temp.ch_no USING (chunk_id)""")
    timed["keys"] = (time.process_time() - cpu, time.perf_counter() - wall)
    wall, cpu = time.perf_counter(), time.process_time()
    by_number = con.execute("""
        WITH pairs AS (
            SELECT p.claim_no, count(*) AS pairs, count(*) FILTER (WHERE p.chunk_no IS NULL) AS dangling,
                   count(*) FILTER (WHERE strpos(ch.text_norm, cl.quote_norm) > 0) AS sound
            FROM temp.pairs_no AS p JOIN temp.cl_no AS cl ON cl.no = p.claim_no
            LEFT JOIN temp.ch_no AS ch ON ch.no = p.chunk_no
            GROUP BY p.claim_no
        )
        SELECT count(*) FILTER (WHERE p.dangling = 0 AND p.sound > 0
                                  AND len(list_filter(cl.text_digits, lambda d: NOT list_contains(cl.quote_digits, d))) = 0)
                   / count(*),
               sum(p.sound) / sum(p.pairs)
        FROM temp.cl_no AS cl LEFT JOIN pairs AS p ON p.claim_no = cl.no""").fetchone()
    timed["integer"] = (time.process_time() - cpu, time.perf_counter() - wall)
    assert by_number == (share, precision), (by_number, share, precision)
    stored = dict(con.execute("SELECT metric, value FROM metrics_history WHERE metric IN "
                              "('supported_share', 'pair_precision')").fetchall())
print(json.dumps({"timed": timed, "rule": [share, precision],
                  "stored": [stored["supported_share"], stored["pair_precision"]]}))
'''.replace("@RULE@", CLAIM_RULE.format(citations="temp.ci", claims="temp.cl", chunks="temp.ch")).replace(
    "@STORED@", CLAIM_RULE.format(citations="(SELECT claim_id, chunk_id FROM citations WHERE run_id = 'r')",
                                  claims="(SELECT claim_id, quote_norm, text_digits, quote_digits FROM claims "
                                         "WHERE run_id = 'r')",
                                  chunks="(SELECT chunk_id, text_norm FROM chunks WHERE run_id = 'r')"))


def main() -> None:
    args = run_arguments(__doc__, repeat=3)
    chunks, questions = run_shape(args)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        run = root / "run"
        run.mkdir()
        generate(run, args.claims, chunks, questions)
        results = []
        for attempt in range(args.repeat):
            done = subprocess.run([sys.executable, "-c", SIDE, str(run), str(root / f"wh{attempt}.duckdb")],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"attempt {attempt} failed:\n{done.stderr[-3000:]}")
            results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(f"{args.claims:,} claims over {chunks:,} chunks with {questions:,} questions; best of {args.repeat}; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'':<50}{'CPU min s':>10}{'wall min s':>12}")
    for key, name in (("store", "store: the load storing its 23 headline metrics"),
                      ("rule", "rule: plain DuckDB, the claim-status rule alone"),
                      ("stored", "  the same on the tables as the load stored them"),
                      ("keys", "  integer keys: the pairs given them"),
                      ("integer", "  and the rule on them")):
        print(f"{name:<50}{min(r['timed'][key][0] for r in results):>10.2f}"
              f"{min(r['timed'][key][1] for r in results):>12.2f}")
    store = min(r["timed"]["store"][0] for r in results)
    rule = min(r["timed"]["rule"][0] for r in results)
    stored = min(r["timed"]["stored"][0] for r in results)
    print(f"store / rule, CPU: {store / rule:.2f}; store / the rule on the stored tables: {store / stored:.2f}")
    same = all(abs(a - b) < 1e-12 for r in results for a, b in zip(r["rule"], r["stored"], strict=True))
    print(f"supported_share and pair_precision the same on both sides: {same}")
    if not same:
        sys.exit(f"the stored metrics and the rule disagree: {results[0]['stored']} against {results[0]['rule']}")


if __name__ == "__main__":
    main()
