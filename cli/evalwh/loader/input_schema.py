"""A JSON Schema for one record of each input file, generated from the specs the loader validates with.

Tools that write a run's files (a notebook, a pipeline step, an editor) can check a record before
evalwh sees it. Each schema says what ``validate_table``, the type checks of ``sources`` and the
value checks of ``validate`` require of one record: the required and allowed columns, ids that are
non-empty text without tabs or newlines, the closed set of ``expected``, the forms of ``rank``,
``score`` and ``refused``. What needs more than one record (a repeated id, a citation of an unknown
claim, a rank given twice) or the file itself (encoding, format) is beyond a record's schema and
stays the loader's.
"""

from __future__ import annotations

from typing import Any

from evalwh.loader.sources import ANSWERS, BOOLEAN, NUMBER, TEXT_LIST, WHOLE_NUMBER, value_type
from evalwh.loader.validate import SPECS, TableSpec
from evalwh.vocabulary import EXPECTED_ACTIONS

DRAFT = "https://json-schema.org/draft/2020-12/schema"
ID = {"type": "string", "minLength": 1, "pattern": "^[^\\t\\n\\r]*$"}
# expected, as the loader reads it: any case, spaces around, two aliases (validate.EXPECTED_SQL)
EXPECTED_WORDS = (*EXPECTED_ACTIONS, "abstain", "flag premise")
# the text DuckDB casts to BOOLEAN, in any case, spaces around (validate_responses)
BOOLEAN_WORDS = ("true", "false", "t", "f", "yes", "no", "y", "n", "1", "0")
FINITE_NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"


MAX_RANK = 2**31 - 1  # a rank is a DuckDB INTEGER


def up_to(limit: int) -> str:
    """A pattern for the whole numbers from 1 to ``limit`` written without leading zeros."""
    digits = str(limit)
    options = [f"[1-9][0-9]{{0,{len(digits) - 2}}}"] if len(digits) > 1 else []
    for i, d in enumerate(digits):  # same length as limit: equal on the first i digits, smaller on the next
        low = "1" if i == 0 else "0"
        if int(d) > int(low):
            options.append(f"{digits[:i]}[{low}-{int(d) - 1}][0-9]{{{len(digits) - i - 1}}}")
    options.append(digits)
    return "|".join(options)


def _any_case(words: tuple[str, ...]) -> str:
    """A pattern matching any of ``words`` in any letter case, with white space around."""
    def letters(word: str) -> str:
        return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else ("\\s" if c == " " else c) for c in word)
    return "^\\s*(?:" + "|".join(letters(w) for w in words) + ")\\s*$"


def column_schema(spec: TableSpec, column: str) -> dict[str, Any]:
    """What one column of a record may hold."""
    kind = value_type(column, spec.list_columns)
    required = column in spec.required
    if column in spec.ids:
        schema: dict[str, Any] = dict(ID)
    elif kind is TEXT_LIST:
        schema = {"type": "array", "items": dict(ID)}
    elif kind is WHOLE_NUMBER:
        schema = {"anyOf": [{"type": "integer", "minimum": 1, "maximum": MAX_RANK},
                            {"type": "string", "pattern": f"^\\s*0*(?:{up_to(MAX_RANK)})\\s*$"}]}
    elif kind is NUMBER:
        schema = {"anyOf": [{"type": "number"}, {"type": "string", "pattern": f"^\\s*(?:{FINITE_NUMBER})?\\s*$"}]}
    elif kind is BOOLEAN:
        schema = {"anyOf": [{"type": "boolean"}, {"type": "string", "pattern": f"{_any_case(BOOLEAN_WORDS)}|^\\s*$"}]}
    elif kind is ANSWERS:  # variants separated by |, or a list of variants (none holding a |)
        schema = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string", "pattern": "^[^|]*$"}}]}
    elif column == "expected":
        schema = {"type": "string", "pattern": _any_case(EXPECTED_WORDS)}
    else:
        schema = {"type": "string"}
    if not required:
        schema = {"anyOf": [schema, {"type": "null"}]}
    return schema


def record_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of one record of ``<kind>.jsonl`` (and one row of its CSV, every value a string)."""
    spec = SPECS[kind]
    return {
        "$schema": DRAFT,
        "$id": f"https://evalwh.invalid/schemas/{kind}.schema.json",
        "title": f"one record of {kind}.jsonl",
        "description": f"A row of the {kind} input file as evalwh loads it; rules across rows and files "
                       "(unique ids, references) are checked by the loader only.",
        "type": "object",
        "required": list(spec.required),
        "additionalProperties": False,
        "properties": {column: column_schema(spec, column) for column in (*spec.required, *spec.optional)},
    }


def all_schemas() -> dict[str, dict[str, Any]]:
    """Every input file's record schema, by kind."""
    return {kind: record_schema(kind) for kind in SPECS}
