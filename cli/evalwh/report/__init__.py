"""A run's report: gathering what the views say about one run, and rendering it as HTML or Markdown.

Lives here: ``gather`` (capped reads of the views), ``render`` (templates, the claim CSV, the
comment limit), ``evidence`` (the chapter's evidence file), ``highlight`` (a quote in its chunk).
May import: ``evalwh.errors``, ``invocation``, ``vocabulary``, ``evalwh.text``, ``evalwh.output``,
``evalwh.warehouse``, ``evalwh.history``.
"""

from evalwh.report.render import build_history, build_report

__all__ = ["build_history", "build_report"]
