"""The command line: the only code that imports Typer (and Click).

Lives here: the commands (``commands``), the options they share and the global options of one
command line (``options``), argv handling and Typer display shims (``argv``), and everything
written to stderr with the handler that turns exceptions into exit codes (``diagnostics``).
May import: anything in evalwh. Nothing in evalwh imports it (``tests/test_layers.py``).
"""

from evalwh.app.commands import app, main

__all__ = ["app", "main"]
