"""Where loading an evaluation dataset file as a run used to live: it is ``evalwh.loader.datasets`` now,
beside the rest of the loader. This name stays so that code importing it from here keeps working."""

from evalwh.loader.datasets import load_dataset_file

__all__ = ["load_dataset_file"]
