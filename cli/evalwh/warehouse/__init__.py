"""The warehouse file: connections, transactions, the schema and its migrations, the storage format,
the views created from ``models/``, and naming runs (``latest``, baselines, a dataset's runs).

Lives here: ``connection`` (attach, lock wait, transactions), ``schema`` (versions, migrations),
``storage`` (the file's DuckDB format), ``template`` (new files copied from a cached empty warehouse),
``views`` (models to views, the DuckDB view DDL), ``runs``.
May import: ``evalwh.errors``, ``sqltext``, ``resources``, ``invocation``, ``evalwh.text``.
"""

from evalwh.vocabulary import LATEST
from evalwh.warehouse.connection import STORAGE_VERSION, new_connection, open_warehouse, transaction
from evalwh.warehouse.runs import resolve_run
from evalwh.warehouse.schema import code_schema_version
from evalwh.warehouse.storage import initialise, storage_version

__all__ = ["LATEST", "STORAGE_VERSION", "code_schema_version", "initialise", "new_connection", "open_warehouse",
           "resolve_run", "storage_version", "transaction"]
