"""A run from files to base tables: find and read every input file, validate all of it, write it in one transaction.

Lives here: ``load`` (the run's write), ``sources`` (one file into a staging table, any format),
``validate`` (every rule a run's files must meet), ``encoding`` and ``locate`` (UTF-8 checks and the
file line of a bad row), ``run_toml`` (a run's settings), ``retrieval`` (the built-in retriever), ``frames`` (a run from tables
in memory), ``datasets`` (a RAGAS or DeepEval dataset file as a run, read as its log format reads it).
May import: ``evalwh.errors``, ``sqltext``, ``invocation``, ``vocabulary``, ``evalwh.text``,
``evalwh.output`` (progress), ``evalwh.warehouse``, ``evalwh.history`` (the metrics stored at load),
``evalwh.logs`` (the log readers a dataset file is read with).
"""

from evalwh.loader.frames import load_frames
from evalwh.loader.load import LoadResult, load_run

__all__ = ["LoadResult", "load_frames", "load_run"]
