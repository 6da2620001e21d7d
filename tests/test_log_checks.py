"""The evalwh log format's type checks (sql/logformats/evalwh_checks.sql) against a Python reference.

The SQL tells a field's JSON type from its fragment's first character; the reference asks Python's
own JSON types, field by field, in the order the format's rules list them.
"""

from __future__ import annotations

import json
import math
from importlib.resources import files
from typing import Any

import duckdb
from hypothesis import given, settings
from hypothesis import strategies as st

TEXT_FIELDS = (("request_id", "request_id must be a string"), ("session_id", "session_id must be a string"),
               ("ts", "ts must be an ISO 8601 string"), ("question", "question must be a string"),
               ("answer", "answer must be a string"), ("model", "model must be a string"),
               ("finish_reason", "finish_reason must be a string"))


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def finite(value: int | float) -> bool:
    try:
        return math.isfinite(float(value))
    except OverflowError:  # an integer beyond any double
        return False


def reference_error(record: dict[str, Any]) -> str | None:
    """The first rule of the evalwh format that ``record`` breaks, or None."""
    if all(record.get(key) is None for key in ("request_id", "question", "answer", "retrieved", "cited")):
        return "not an evalwh log record: it has none of request_id, question, answer, retrieved and cited"
    for key, message in TEXT_FIELDS:
        if record.get(key) is not None and not isinstance(record[key], str):
            return message
    if record.get("refused") is not None and not isinstance(record["refused"], (bool, str)):
        return "refused must be true or false"
    retrieved, cited = record.get("retrieved"), record.get("cited")
    if retrieved is not None and not isinstance(retrieved, list):
        return "retrieved must be a list of objects"
    if cited is not None and not isinstance(cited, list):
        return "cited must be a list of objects"
    docs, cites = retrieved or [], cited or []
    if any(not isinstance(d, dict) for d in docs):
        return "retrieved must be a list of objects"
    if any(not isinstance(c, dict) for c in cites):
        return "cited must be a list of objects"
    for key, message in (("chunk_id", "retrieved chunk_id must be a string"),
                         ("content", "retrieved content must be a string")):
        if any(d.get(key) is not None and not isinstance(d[key], str) for d in docs):
            return message
    if any(d.get("score") is not None and not (is_number(d["score"]) and finite(d["score"])) for d in docs):
        return "retrieved score must be a finite number"
    for key, message in (("chunk_id", "cited chunk_id must be a string"), ("quote", "cited quote must be a string")):
        if any(c.get(key) is not None and not isinstance(c[key], str) for c in cites):
            return message
    return None


scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), st.sampled_from([10**400, -10**400]),
                    st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([1e308, -0.0, 5e-324]),
                    st.text(max_size=4), st.sampled_from(["NaN", "inf", "0.5", "true"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                        st.dictionaries(st.sampled_from(["chunk_id", "x"]), inner,
                                                                        max_size=2)), max_leaves=6)
# records that keep every rule, then have up to two of their fields (or list elements) replaced by any value
text = st.one_of(st.none(), st.text(max_size=4))
score = st.one_of(st.none(), st.integers(-10**30, 10**30), st.floats(allow_nan=False, allow_infinity=False),
                  st.sampled_from([1e308, -1e308, -0.0, 5e-324, -7]))
doc = st.fixed_dictionaries({}, optional={"chunk_id": text, "score": score, "content": text, "x": values})
cite = st.fixed_dictionaries({}, optional={"chunk_id": text, "quote": text, "x": values})
valid = st.fixed_dictionaries({}, optional={
    **{key: text for key, _ in TEXT_FIELDS},
    "refused": st.one_of(st.none(), st.booleans(), text), "metadata": values,
    "retrieved": st.one_of(st.none(), st.lists(doc, max_size=3)), "cited": st.one_of(st.none(), st.lists(cite, max_size=3)),
})
PLACES = [key for key, _ in TEXT_FIELDS] + ["refused", "retrieved", "cited", "retrieved[]", "cited[]",
                                            "retrieved[].chunk_id", "retrieved[].score", "retrieved[].content",
                                            "cited[].chunk_id", "cited[].quote"]


@st.composite
def record(draw: st.DrawFn) -> dict[str, Any]:
    result = draw(valid)
    for place in draw(st.lists(st.sampled_from(PLACES), max_size=2)):
        value = draw(values)
        field, _, rest = place.partition("[]")
        if not rest and not place.endswith("[]"):
            result[field] = value
        elif isinstance(result.get(field), list) and result[field]:
            at = draw(st.integers(0, len(result[field]) - 1))
            if not rest:
                result[field][at] = value
            elif isinstance(result[field][at], dict):
                result[field][at][rest.lstrip(".")] = value
    return result


def sql_errors(records: list[dict[str, Any]]) -> list[str | None]:
    checks = (files("evalwh.sql") / "logformats" / "evalwh_checks.sql").read_text(encoding="utf-8")
    con = duckdb.connect()
    try:
        con.execute("CREATE TEMP TABLE log_raw AS SELECT 'f.jsonl' AS file, i AS line, CAST(t AS JSON) AS record "
                    "FROM (SELECT unnest($texts) AS t, unnest(range(1, len($texts) + 1)) AS i)",
                    {"texts": [json.dumps(r) for r in records]})
        found = dict(con.execute(f"SELECT line, error FROM ({checks})").fetchall())
    finally:
        con.close()
    return [found.get(line) for line in range(1, len(records) + 1)]


@settings(max_examples=150, deadline=None)
@given(st.lists(record(), min_size=1, max_size=25))
def test_checks_match_the_reference(records: list[dict[str, Any]]) -> None:
    assert sql_errors(records) == [reference_error(r) for r in records]


def test_each_rule_on_a_record_that_breaks_only_it() -> None:
    good = {"request_id": "r1", "ts": "2026-11-30T09:00:00Z", "refused": False,
            "retrieved": [{"chunk_id": "k1", "score": 0.5, "content": "text"}], "cited": [{"chunk_id": "k1", "quote": "q"}]}
    broken = [({**good, "request_id": 7}, "request_id must be a string"),
              ({**good, "ts": 1700000000}, "ts must be an ISO 8601 string"),
              ({**good, "refused": 1}, "refused must be true or false"),
              ({**good, "retrieved": "k1"}, "retrieved must be a list of objects"),
              ({**good, "retrieved": ["k1"]}, "retrieved must be a list of objects"),
              ({**good, "cited": {"chunk_id": "k1"}}, "cited must be a list of objects"),
              ({**good, "retrieved": [{"chunk_id": 3}]}, "retrieved chunk_id must be a string"),
              ({**good, "retrieved": [{"score": "0.5"}]}, "retrieved score must be a finite number"),
              ({**good, "retrieved": [{"score": 1e308}, {"score": 10**400}]}, "retrieved score must be a finite number"),
              ({**good, "retrieved": [{"score": True}]}, "retrieved score must be a finite number"),
              ({**good, "cited": [{"quote": ["q"]}]}, "cited quote must be a string")]
    records = [good, {**good, "refused": "yes", "retrieved": None, "cited": []}] + [r for r, _ in broken]
    assert sql_errors(records) == [None, None] + [message for _, message in broken]
