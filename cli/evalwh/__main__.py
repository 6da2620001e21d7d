"""Allows ``python -m evalwh``."""

from evalwh.app import main

main()
