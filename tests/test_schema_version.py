"""The schema version a reader compares a file with is the last step in sql/, without reading the steps."""

from __future__ import annotations

from evalwh.resources import schema_steps
from evalwh.warehouse.schema import SCHEMA_VERSION, code_schema_version


def test_the_schema_version_is_the_last_step_and_the_steps_run_from_one_without_a_gap() -> None:
    versions = [version for version, _, _ in schema_steps()]
    assert versions == list(range(1, len(versions) + 1))
    assert SCHEMA_VERSION == code_schema_version() == versions[-1]
