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

import re
import sqlite3
import weakref

from . import sqlite_terms
from .engine import ColumnarEngine


class SqliteEngine(ColumnarEngine):
    """Derives casts' inferred quads with the rules as SQL on an in-memory SQLite database."""

    #: every rule's statement and the bookkeeping's stay prepared (sqlite3 caches by SQL text)
    STATEMENT_CACHE = 8192
    #: one statement per wide rule or extension: each stays prepared (a fused one's text would vary by batch)
    FUSE = 1
    #: the rows a key's cast table is planned for beyond its reference rows: one cast's six lines (most
    #: keys hold a row per line). It steers the join order only, never what a statement returns; 1 and 6
    #: plan alike, 30 ~20 % slower (docs/benchmarks.md, eighth round)
    PLANNED_CAST_ROWS = 6

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._plan_statistics()

    def _plan_statistics(self) -> None:
        """Give SQLite's planner the tables' sizes before any rule's statement is prepared.

        Without statistics SQLite takes every table for a large one and may start a rule's joins from a
        reference table of hundreds of rows rather than from the cast's few (measured: ~55 of a cast's
        ~80 ms in its rules' statements; ~25 with these). `ANALYZE` of the tables as they stand (the
        reference rows only) gives each index its exact size and keys; each cast table is then counted
        `PLANNED_CAST_ROWS` rows larger, that many of them under new keys, as when one cast is derived.
        """
        con = self.con
        con.execute("ANALYZE")
        measured = {(t, i): stat for t, i, stat in con.execute("SELECT tbl, idx, stat FROM sqlite_stat1")}
        cast = self.PLANNED_CAST_ROWS
        rows = []
        for table, index in con.execute("SELECT tbl_name, name FROM sqlite_schema WHERE type = 'index' "
                                        "AND tbl_name LIKE 'c\\_%' ESCAPE '\\'").fetchall():
            stat = measured.get((table, index))
            n, per_key = map(int, stat.split()[:2]) if stat else (0, 1)
            keys = n // per_key
            rows.append((table, index, f"{n + cast} {-(-(n + cast) // (keys + cast))}"))
        con.execute("DELETE FROM sqlite_stat1")
        con.executemany("INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES (?, ?, ?)", rows)
        con.execute("ANALYZE sqlite_schema")  # the planner reads the statistics again

    def _connect(self, threads: int | None) -> None:
        # autocommit: each statement is atomic on its own, so a refused one leaves `new` as it was
        self.con = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False,
                                   cached_statements=self.STATEMENT_CACHE)
        self._release = weakref.finalize(self, self.con.close)
        self._terms = sqlite_terms.install(self.con)
        #: rules whose statement was written again for SQLite's parser (hoist), and those that still
        #: would not run: those run on pyoxigraph
        self.rewritten: set[str] = set()
        self.too_deep: set[str] = set()
        self._staged: dict[str, list[str]] = {}  # staging table → its columns

    def _create(self, table: str, columns: list[str], ints: tuple[str, ...] = ()) -> None:
        self.con.execute(f"CREATE TABLE {table} ({', '.join([c + ' TEXT' for c in columns] + [c + ' INTEGER' for c in ints])})")
        if table.startswith("c_"):  # a rule's pattern looks rows up by subject or by object
            for c in columns:
                self.con.execute(f"CREATE INDEX {table}_{c} ON {table} ({c})")

    def _create_flags(self, table: str, ints: list[str], texts: list[str], flags: list[str]) -> None:
        cols = [c + " INTEGER" for c in ints] + [c + " TEXT" for c in texts] + [c + " INTEGER" for c in flags]
        self.con.execute(f"CREATE TABLE {table} ({', '.join(cols)})")
        for c in ("k, s", "s") if table in ("w_ext", "w_rel") else ints + texts:  # rows looked up by cast, node or key
            self.con.execute(f"CREATE INDEX {table}_{c.replace(', ', '_')} ON {table} ({c})")

    def _cluster(self, table: str) -> None:
        pass  # its rows are looked up by an index on (k, s) (_create_flags); and DDL would prepare every statement again

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

    def _inserted(self, sql: str, seq: int) -> int:
        return self.con.execute(sql, (seq,)).rowcount

    def _refill(self, tid: str) -> None:
        self.con.execute(f"DELETE FROM c_{tid}")
        self.con.execute(f"INSERT INTO c_{tid} ({'s' if self._keys[tid][0] == 't' else 's, o'}) SELECT * FROM r_{tid}")

    def _unbatch(self, tid: str) -> None:
        # refilling rewrote the key's reference rows (up to ~400) after every cast
        self.con.execute(f"DELETE FROM c_{tid} WHERE seq IS NOT NULL")

    def _run_sql(self, iri: str) -> bool:
        """As ColumnarEngine's. A statement nested deeper than SQLite's parser allows ("parser stack
        overflow": 5 of the package's rules) is written again once, its derived tables and CTEs in one
        WITH list (`hoist`); if SQLite cannot run that either, the rule runs on pyoxigraph from then on
        (`too_deep`), so a rewriting can cost speed, never a wrong answer."""
        if iri in self.too_deep:
            return False
        try:
            self.con.execute(self._queries[iri])
            return True
        except sqlite3.OperationalError as e:
            if self._terms.take_refusal():  # MAX/MIN over terms the SQL does not order: pyoxigraph, this batch
                return False
            if iri in self.rewritten:
                self.too_deep.add(iri)
                return False
            if "parser stack overflow" not in str(e):
                raise
        self.rewritten.add(iri)
        self._queries[iri] = self._resolve(self.sql[iri], hoist)
        return self._run_sql(iri)


def _literal_end(sql: str, i: int) -> int:
    """The index of the quote closing the SQL string literal opened at `i` ('' inside it is a quote)."""
    i = sql.index("'", i + 1)
    while i + 1 < len(sql) and sql[i + 1] == "'":
        i = sql.index("'", i + 2)
    return i


def _close(sql: str, i: int) -> int:
    """The index of the parenthesis closing the one at `i` (string literals skipped)."""
    depth, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if c == "'":
            i = _literal_end(sql, i)
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError("unbalanced parentheses")


_DERIVED = re.compile(r"\s*AS (a\d+)\b")
_WITH = re.compile(r"WITH (m\w+) AS MATERIALIZED \(")


def hoist(sql: str) -> tuple[list[str], str]:
    """(CTE definitions, query): `sql` with every derived table `(SELECT …) AS aN` after FROM or JOIN and
    every `WITH mN AS MATERIALIZED (…)` moved into one list of CTEs, inner ones first, so the query's
    syntax nests no deeper than its expressions. The same query: the generator's derived tables read no
    outer column (a correlated one would fail to compile, and the rule would then run on pyoxigraph), and
    its aliases are unique in a statement, so each becomes a CTE of its own name."""
    defs: list[str] = []

    def body(text: str) -> str:
        text = text.strip()
        m = _WITH.match(text)
        if m is None:
            return walk(text)
        j = _close(text, m.end() - 1)
        defs.append(f"{m.group(1)} AS MATERIALIZED ({body(text[m.end():j])})")
        return body(text[j + 1:])

    def walk(text: str) -> str:
        out, i, n = [], 0, len(text)
        while i < n:
            c = text[i]
            if c == "'":
                j = _literal_end(text, i)
                out.append(text[i:j + 1])
                i = j + 1
                continue
            if c == "(":
                j = _close(text, i)
                inner = text[i + 1:j]
                alias = _DERIVED.match(text, j + 1)
                before = "".join(out[-8:]).rstrip()  # the keyword before it (out holds characters or more)
                if alias and inner.lstrip().startswith(("SELECT", "WITH")) and before.endswith(("FROM", "JOIN")):
                    defs.append(f"{alias.group(1)} AS ({body(inner)})")
                    out.append(alias.group(1))
                else:
                    out.append("(" + walk(inner) + ")")
                i = j + 1
                continue
            out.append(c)
            i += 1
        return "".join(out)

    query = body(sql)
    return defs, query


__all__ = ["SqliteEngine"]
