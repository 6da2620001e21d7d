"""The built-in retriever at load time: the view builtin_retrieval's rows, computed fast.

The views ``question_chunk_scores``, ``tfidf_scores`` and ``builtin_retrieval`` state the
rule (every scored pair, a window over them). Evaluated as written over a large run they hash
one (run, question, chunk) string key per pair, questions times chunks of them.

The overlap score needs only the terms the questions hold: ``overlap_scores`` lists each chunk's
terms and keeps those a question of the run holds as it goes (a semi-join: no other term can add
to a score), so the pairs it scores, and the rows it keeps, are those sharing a term, keyed by
integers (a run's pairs grow as its questions times its chunks, and must spill cheaply). The top
k is then a ``min_by`` over (-score, chunk id order), and each question's best score and chunk
(the rows of the view ``question_best_score`` for the run) one aggregate, which the load's stored
metrics reuse. A load that needs only the best scores (another retriever, or a retrievals file)
takes them from the pairs as they are counted, without storing the pairs.

tfidf needs every term of every chunk (a chunk's norm sums all its weights): it is computed with
integer keys (chunk and question ordinals, term numbers), the weights normalised once. With scipy
installed (the ``fast`` extra), one sparse product of the unit vectors picks each question's
candidates (every chunk within 1e-9 of its k-th best floating-point score) and only those are
scored exactly; without it, SQL scores every pair, a batch of questions at a time. The exact
scores use the view's arithmetic operation for operation, so they are bit-identical;
tests/test_retrieval_fast.py proves the stored rows equal the view's on generated runs, on every path.
"""

from __future__ import annotations

from typing import Any

import duckdb

from evalwh.warehouse.connection import drop_temp_tables, one

QUESTION_BATCH = 2_000
SCALE = "4611686018427387904.0"  # 2^62, as in tfidf_scores


def _prepare(con: duckdb.DuckDBPyConnection, params: dict[str, Any]) -> None:
    """Integer-keyed term counts of the run's chunks and questions, stop words removed."""
    con.execute(
        """CREATE OR REPLACE TEMP TABLE rt_chunks AS
        SELECT ordinal AS c, chunk_id, dense_rank() OVER (ORDER BY chunk_id) AS id_rank, text_terms
        FROM chunks WHERE run_id = $run""",
        params,
    )
    con.execute(
        """CREATE OR REPLACE TEMP TABLE rt_chunk_terms AS
        SELECT c.c, t.term, count(*) AS tf
        FROM temp.rt_chunks AS c, unnest(c.text_terms) AS t(term)
        WHERE NOT EXISTS (SELECT 1 FROM run_stopwords AS s WHERE s.run_id = $run AND s.word = t.term)
        GROUP BY c.c, t.term""",
        params,
    )
    con.execute(
        """CREATE OR REPLACE TEMP TABLE rt_terms AS
        SELECT term, CAST(row_number() OVER (ORDER BY term) AS INTEGER) AS tid, count(*) AS df
        FROM temp.rt_chunk_terms GROUP BY term"""
    )
    con.execute(
        """CREATE OR REPLACE TEMP TABLE rt_chunk_tf AS
        SELECT f.c, k.tid, f.tf FROM temp.rt_chunk_terms AS f JOIN temp.rt_terms AS k ON k.term = f.term"""
    )
    con.execute(
        """CREATE OR REPLACE TEMP TABLE rt_question_tf AS
        SELECT q.ordinal AS q, k.tid, count(*) AS tf
        FROM questions AS q, unnest(q.question_terms) AS t(term)
        JOIN temp.rt_terms AS k ON k.term = t.term
        WHERE q.run_id = $run
        GROUP BY q.ordinal, k.tid""",
        params,
    )


def _tfidf_units(con: duckdb.DuckDBPyConnection) -> None:
    """Unit weight vectors, with tfidf_scores' arithmetic: w = tf * ln(N / df), norms as exact DECIMAL sums."""
    con.execute(
        """CREATE OR REPLACE TEMP TABLE rt_idf AS
        SELECT tid, ln((SELECT count(*) FROM temp.rt_chunks) / df) AS idf FROM temp.rt_terms"""
    )
    for side, key in (("chunk", "c"), ("question", "q")):
        con.execute(
            f"""CREATE OR REPLACE TEMP TABLE rt_{side}_units AS
            WITH weights AS (
                SELECT f.{key}, f.tid, f.tf * i.idf AS w FROM temp.rt_{side}_tf AS f JOIN temp.rt_idf AS i ON i.tid = f.tid
            ),
            norms AS (
                SELECT {key}, sqrt(CAST(sum(CAST(w * w AS DECIMAL(38, 18))) AS DOUBLE)) AS norm FROM weights GROUP BY {key}
            )
            SELECT w.{key}, w.tid, w.w / n.norm AS u
            FROM weights AS w JOIN norms AS n ON n.{key} = w.{key}
            WHERE n.norm > 0"""
        )


# the score of every (question, chunk) pair sharing a term, for the questions of one batch
SCORES = {
    # number of distinct shared non-stop terms (question_chunk_scores)
    "overlap": """SELECT qt.q, ct.c, CAST(count(*) AS DOUBLE) AS score
        FROM temp.rt_question_tf AS qt JOIN temp.rt_chunk_tf AS ct ON ct.tid = qt.tid
        WHERE qt.q BETWEEN $lo AND $hi {candidates}
        GROUP BY qt.q, ct.c""",
    # the cosine as tfidf_scores computes it
    "tfidf": f"""SELECT qu.q, cu.c, CAST(sum(CAST(round(qu.u * cu.u * {SCALE}) AS BIGINT)) AS DOUBLE) / {SCALE} AS score
        FROM temp.rt_question_units AS qu JOIN temp.rt_chunk_units AS cu ON cu.tid = qu.tid
        WHERE qu.q BETWEEN $lo AND $hi {{candidates}}
        GROUP BY qu.q, cu.c""",
}
# with candidates, only the pairs the sparse product singled out are scored exactly
CANDIDATE_FILTER = {
    "overlap": "AND (qt.q, ct.c) IN (SELECT (q, c) FROM temp.rt_candidates)",
    "tfidf": "AND (qu.q, cu.c) IN (SELECT (q, c) FROM temp.rt_candidates)",
}
# the vectors the sparse product multiplies: (row, term, value)
VECTORS = {
    "overlap": ("SELECT q, tid, 1.0 AS u FROM temp.rt_question_tf", "SELECT c, tid, 1.0 AS u FROM temp.rt_chunk_tf"),
    "tfidf": ("SELECT q, tid, u FROM temp.rt_question_units", "SELECT c, tid, u FROM temp.rt_chunk_units"),
}
# use scipy's sparse product when scipy is installed (tests switch it off to cover the plain SQL path)
USE_SPARSE = True
# a candidate's floating-point score may differ from its exact score by far less than this
MARGIN = 1e-9


def _sparse_candidates(con: duckdb.DuckDBPyConnection, retriever: str, top_k: int) -> bool:
    """With scipy, one sparse product finds each question's candidates for the top k (every pair scoring
    within MARGIN of its k-th best score) into temp.rt_candidates; False when scipy is not installed."""
    if not USE_SPARSE:
        return False
    try:
        import numpy as np
        from scipy.sparse import csr_matrix
    except ImportError:
        return False
    q_sql, c_sql = VECTORS[retriever]
    qv = con.execute(q_sql).fetchnumpy()
    cv = con.execute(c_sql).fetchnumpy()
    def top(values: Any) -> int:
        return int(np.asarray(values).max(initial=0))

    terms = max(top(qv["tid"]), top(cv["tid"])) + 1
    questions = csr_matrix((qv["u"], (qv["q"], qv["tid"])), shape=(top(qv["q"]) + 1, terms))
    chunks = csr_matrix((cv["u"], (cv["c"], cv["tid"])), shape=(top(cv["c"]) + 1, terms))
    scores = (questions @ chunks.T).tocsr()
    picked_q: list[np.ndarray] = []
    picked_c: list[np.ndarray] = []
    for row in range(scores.shape[0]):
        start, end = scores.indptr[row], scores.indptr[row + 1]
        values, cols = scores.data[start:end], scores.indices[start:end]
        if end - start > top_k:
            kth = np.partition(values, end - start - top_k)[end - start - top_k]
            cols = cols[values >= kth - MARGIN]
        picked_q.append(np.full(len(cols), row, dtype=np.int64))
        picked_c.append(cols.astype(np.int64))
    con.execute("CREATE OR REPLACE TEMP TABLE rt_candidates (q BIGINT, c BIGINT)")
    if picked_q:
        con.execute("INSERT INTO temp.rt_candidates SELECT unnest($q), unnest($c)",
                    {"q": np.concatenate(picked_q), "c": np.concatenate(picked_c)})
    return True


# the pairs of rt_question_terms and rt_chunk_terms sharing a term, each with its overlap score
PAIR_SCORES = """SELECT q.question, c.ordinal{id_order}, count(*) AS score
    FROM temp.rt_question_terms AS q JOIN temp.rt_chunk_terms AS c ON c.term = q.term
    GROUP BY q.question, c.ordinal{id_order}"""


def overlap_scores(
    con: duckdb.DuckDBPyConnection, run_id: str, tokenizer: str, *, pairs: bool = True, best: bool = True
) -> None:
    """With ``pairs``, ``rt_pairs``: the overlap score of every (question, chunk) of run ``run_id`` sharing a
    term (the rows of the view question_chunk_scores), keyed by integers: the question's ordinal, the chunk's
    ordinal and its place in chunk id order (the retriever's tie-break). Each chunk's terms are kept only
    where a question of the run holds them. With ``best``, ``rt_best``: the rows of the view
    question_best_score for the run, which the load's stored metrics read instead of the view; from
    ``rt_pairs`` when there is one, else from the pairs as they are counted, never stored."""
    params = {"run": run_id, "tokenizer": tokenizer}
    con.execute(
        """CREATE OR REPLACE TEMP TABLE rt_question_terms AS
        SELECT DISTINCT q.ordinal AS question, t.term
        FROM questions AS q, unnest(q.question_terms) AS t(term)
        WHERE q.run_id = $run
          AND NOT EXISTS (SELECT 1 FROM run_stopwords AS s WHERE s.run_id = $run AND s.word = t.term)""",
        {"run": run_id},
    )
    # the chunk id order only for the retriever, whose tie-break it is
    id_order = ", c.id_order" if pairs else ""
    numbered = ", CAST(row_number() OVER (ORDER BY r.chunk_id) AS INTEGER) AS id_order" if pairs else ""
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE rt_chunk_terms AS
        SELECT DISTINCT c.ordinal{id_order}, t.term
        FROM (SELECT r.ordinal{numbered},
                     CASE WHEN $tokenizer = 'unicode' THEN x.text_uterms
                          WHEN x.text_norm = '' THEN CAST([] AS VARCHAR[])
                          ELSE string_split(x.text_norm, ' ') END AS terms
              FROM chunk_refs AS r JOIN chunk_texts AS x ON x.text_hash = r.text_hash
              WHERE r.run_id = $run) AS c,
             unnest(c.terms) AS t(term)
        WHERE t.term IN (SELECT term FROM temp.rt_question_terms)""",
        params,
    )
    if pairs:  # the tables of terms are dropped as soon as they are read for the last time
        con.execute(f"CREATE OR REPLACE TEMP TABLE rt_pairs AS {PAIR_SCORES.format(id_order=id_order)}")
        _drop_terms(con)
    if best:
        scored = "temp.rt_pairs" if pairs else f"({PAIR_SCORES.format(id_order='')})"
        # question_best_score's rule: the highest score, then the earliest chunk; 0 and no chunk without a pair
        con.execute(
            f"""CREATE OR REPLACE TEMP TABLE rt_best AS
            WITH best AS (
                SELECT question, max(score) AS score,
                       arg_max(ordinal, struct_pack(score := score, earlier := -ordinal)) AS ordinal
                FROM {scored} AS p GROUP BY question
            )
            SELECT q.run_id, q.question_id, q.ordinal, q.expected, COALESCE(b.score, 0) AS best_score,
                   c.chunk_id AS best_chunk_id
            FROM questions AS q
            LEFT JOIN best AS b ON b.question = q.ordinal
            LEFT JOIN chunk_refs AS c ON c.run_id = q.run_id AND c.ordinal = b.ordinal
            WHERE q.run_id = $run""",
            {"run": run_id},
        )
    if not pairs:
        _drop_terms(con)


def _drop_terms(con: duckdb.DuckDBPyConnection) -> None:
    """Drop the tables of terms ``overlap_scores`` counts its pairs from."""
    con.execute("DROP TABLE temp.rt_question_terms")
    con.execute("DROP TABLE temp.rt_chunk_terms")


def write_overlap_retrieval(con: duckdb.DuckDBPyConnection, run_id: str, top_k: int) -> None:
    """Insert the overlap retriever's top ``top_k`` from ``rt_pairs`` (``overlap_scores``) into retrievals:
    by score descending, then chunk id."""
    con.execute(
        f"""INSERT INTO retrievals BY NAME
        WITH top AS (
            SELECT question, min_by({{'ordinal': ordinal, 'score': score}}, (-score, id_order), {int(top_k)}) AS picks
            FROM temp.rt_pairs
            WHERE score > 0
            GROUP BY question
        ),
        picked AS (SELECT question, unnest(picks) AS pick, unnest(range(1, len(picks) + 1)) AS rank FROM top)
        SELECT $run AS run_id, q.question_id, c.chunk_id, CAST(p.rank AS INTEGER) AS rank,
               CAST(p.pick.score AS DOUBLE) AS score
        FROM picked AS p
        JOIN questions AS q ON q.run_id = $run AND q.ordinal = p.question
        JOIN chunk_refs AS c ON c.run_id = $run AND c.ordinal = p.pick.ordinal""",
        {"run": run_id},
    )


def write_builtin_retrieval(con: duckdb.DuckDBPyConnection, run_id: str, retriever: str, top_k: int) -> None:
    """Insert the built-in retriever's top ``top_k`` of run ``run_id`` into retrievals: chunks scoring
    above 0, by score descending then chunk id (the rows of the view builtin_retrieval). The overlap
    retriever reads ``rt_pairs``, which ``overlap_scores`` must have made."""
    if retriever == "overlap":
        write_overlap_retrieval(con, run_id, top_k)
        return
    params = {"run": run_id}
    _prepare(con, params)
    if retriever == "tfidf":
        _tfidf_units(con)
    if _sparse_candidates(con, retriever, top_k):
        scored, batch = SCORES[retriever].format(candidates=CANDIDATE_FILTER[retriever]), 10**9
    else:
        scored, batch = SCORES[retriever].format(candidates=""), QUESTION_BATCH
    last = one(con, "SELECT max(ordinal) FROM questions WHERE run_id = $run", params)
    for lo in range(1, (last[0] or 0) + 1, batch):
        con.execute(
            f"""INSERT INTO retrievals BY NAME
            WITH scored AS ({scored}),
            top AS (
                SELECT s.q, min_by({{'c': s.c, 'score': s.score}}, (-s.score, ch.id_rank), {int(top_k)}) AS picks
                FROM scored AS s JOIN temp.rt_chunks AS ch ON ch.c = s.c
                WHERE s.score > 0
                GROUP BY s.q
            )
            SELECT $run AS run_id, q.question_id, ch.chunk_id, CAST(p.rank AS INTEGER) AS rank, p.pick.score AS score
            FROM (SELECT t.q, unnest(t.picks) AS pick, unnest(range(1, len(t.picks) + 1)) AS rank FROM top AS t) AS p
            JOIN temp.rt_chunks AS ch ON ch.c = p.pick.c
            JOIN questions AS q ON q.run_id = $run AND q.ordinal = p.q""",
            {**params, "lo": lo, "hi": lo + batch - 1},
        )
    drop_temp_tables(con, prefix="rt_")  # the tables made above (an rt_ prefix each)
