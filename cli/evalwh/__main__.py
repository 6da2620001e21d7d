"""Allows ``python -m evalwh``."""

from evalwh.app.commands import main

main()
