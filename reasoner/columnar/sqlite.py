"""SqliteEngine: the columnar back end's generated SQL run on SQLite, for one cast or a few.

The same translations (translate.py, one cache), the same tables, levels, bookkeeping and pyoxigraph
fallbacks as ColumnarEngine; only the database differs. DuckDB plans every statement anew, ~5–13 ms each
whatever the data, which a batch of thousands of casts amortises and a single cast cannot (~1,300
statements). SQLite prepares each statement once (the connection's statement cache holds them all) and
joins by index lookups, so a rule on one cast's rows costs microseconds
(`benchmarks/statement_cost.py`). The term macros are Python functions with the macros' semantics
(`sqlite_terms`, held equal to terms.py's DuckDB macros by tests/test_sqlite_terms.py).
"""
from __future__ import annotations

import sqlite3

from . import sqlite_terms
from .engine import ColumnarEngine


class SqliteEngine(ColumnarEngine):
    """Derives casts' inferred quads with the rules as SQL on an in-memory SQLite database."""

    #: every rule's statement and the bookkeeping's stay prepared (sqlite3 caches by SQL text)
    STATEMENT_CACHE = 8192

    def _connect(self, threads: int | None) -> None:
        # autocommit: each statement is atomic on its own, so a refused one leaves `new` as it was
        self.con = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False,
                                   cached_statements=self.STATEMENT_CACHE)
        self._terms = sqlite_terms.install(self.con)
        self._refusal = sqlite3.OperationalError
        #: rules whose statement is nested too deeply for SQLite's parser: they run on pyoxigraph
        self.too_deep: set[str] = set()
        self._running = ""
        self._staged: dict[str, list[str]] = {}  # staging table → its columns

    def _create(self, table: str, columns: list[str]) -> None:
        self.con.execute(f"CREATE TABLE {table} ({', '.join(c + ' TEXT' for c in columns)})")
        if table.startswith("c_"):  # a rule's pattern looks rows up by subject or by object
            for c in columns:
                self.con.execute(f"CREATE INDEX {table}_{c} ON {table} ({c})")

    def _stage(self, name: str, columns: dict[str, list]) -> None:
        # a staging table is created once and emptied after use: any DDL makes SQLite prepare every cached
        # statement again (measured: ~1 ms a rule, 100× the rule itself)
        cols = list(columns)
        if self._staged.get(name) != cols:
            if name in self._staged:
                self.con.execute(f"DROP TABLE temp.{name}")
            self.con.execute(f"CREATE TEMP TABLE {name} ({', '.join(c + ' TEXT' for c in cols)})")
            self._staged[name] = cols
        self.con.executemany(f"INSERT INTO temp.{name} VALUES ({', '.join('?' for _ in cols)})",
                             zip(*(columns[c] for c in cols)))

    def _unstage(self, name: str) -> None:
        self.con.execute(f"DELETE FROM temp.{name}")

    def _refill(self, tid: str) -> None:
        self.con.execute(f"DELETE FROM c_{tid}")
        self.con.execute(f"INSERT INTO c_{tid} SELECT * FROM r_{tid}")

    def _refused(self, error: Exception) -> bool:
        """A statement SQLite will not run on this batch: a MAX/MIN over terms it does not order (as on
        DuckDB), or one nested deeper than SQLite's parser allows (5 of the package's rules), which then
        runs on pyoxigraph every time (`too_deep`)."""
        if self._terms.take_refusal():
            return True
        if "parser stack overflow" in str(error):
            self.too_deep.add(self._running)
            return True
        return False

    def _run_sql(self, iri: str) -> bool:
        if iri in self.too_deep:
            return False
        self._running = iri
        return super()._run_sql(iri)


__all__ = ["SqliteEngine"]
