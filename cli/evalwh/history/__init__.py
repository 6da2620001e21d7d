"""Run history: materialising the metric views, comparing two runs, and the CI gate.

Lives here: ``materialize`` (history tables, a run's metric values and statuses), ``compare``
(``evalwh diff``), ``check`` (``evalwh check``), ``gates`` (the ``[check]`` table of ``evalwh.toml``).
May import: ``evalwh.errors``, ``invocation``, ``vocabulary``, ``evalwh.output``, ``evalwh.warehouse``.
"""

from evalwh.history.materialize import MaterializeResult, claim_statuses_source, materialize, metric_values

__all__ = ["MaterializeResult", "claim_statuses_source", "materialize", "metric_values"]
