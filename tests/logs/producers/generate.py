"""Write every producer fixture of the scenario with the producers' own libraries (the ``logs`` extra).

    pip install -e '.[logs]' && python -m tests.logs.producers.generate [FOLDER]

writes each producer's files into its own folder under FOLDER (default: beside this script, where
the committed copies are the tests' input). ``tests/test_log_producers.py`` reads them, and
regenerates them into a temporary folder and checks those too when the libraries are installed.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

HERE = Path(__file__).parent
PRODUCERS = ("otel", "openinference", "langchain", "anthropic", "ragas", "deepeval")


def generate(folder: Path = HERE, producers: tuple[str, ...] = PRODUCERS) -> dict[str, list[Path]]:
    """Run each producer's generator; returns the files each wrote."""
    import importlib

    warnings.simplefilter("ignore")  # the producers' deprecation notices are not ours to print
    return {name: importlib.import_module(f"tests.logs.producers.gen_{name}").generate(folder / name)
            for name in producers}


if __name__ == "__main__":
    for producer, files in generate(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE).items():
        print(producer, *(f.name for f in files))
