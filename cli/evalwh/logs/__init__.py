"""Production logs: reading log files into records, the formats evalwh reads, and the import of a batch.

Lives here: ``read`` (files into lines and records), ``formats`` (detection and each format's SQL),
``importing`` (type checks, setting bad records aside, the batch write).
May import: ``evalwh.errors``, ``sqltext``, ``invocation``, ``evalwh.text``, ``evalwh.output``
(progress), ``evalwh.loader.encoding``, ``evalwh.warehouse``.
"""

from evalwh.logs.formats import FORMATS
from evalwh.logs.importing import ImportResult, import_logs

__all__ = ["FORMATS", "ImportResult", "import_logs"]
