"""ColumnarEngine: the rule base run as SQL on DuckDB, stratum by stratum, to the same fixpoint as Engine.

Layout: one table per key — `c_<id>(s, o)` for a predicate, `c_<id>(s)` for an rdf:type class — holding a
batch's cast triples, beside `r_<id>` holding the reference layers' (loaded once). A rule reads the two
through `{T:<id>}` placeholders resolved here. Each rule's new triples (not yet in the tables) are
appended to its keys' tables and to `out`; the batch's `out` is its inferred quads.

Given the chapter rules' conditions, those rules run compiled from them over wide tables instead (wide.py:
a 0/1 column per token, one SELECT a rule). A rule the translator refuses (`translate.Unsupported`), or a
`typed` rule while the batch holds a literal of a datatype the SQL macros do not model, runs on pyoxigraph
against a mirror store kept in step with the tables — so the result is the reference engine's whatever the generator covers (`paths`).
No rule joins two casts (every rule's solutions are one cast's), so any partition of casts into
batches derives the same quads.
"""
from __future__ import annotations

import hashlib
import itertools
import sys
import threading
import time
import weakref
from collections.abc import Iterable
from pathlib import Path

import pyoxigraph as ox

from liuyao_kg.namespaces import CAST, LYO, sparql_prologue
from liuyao_kg.reasoner.dependencies import _cache_dir, _read_json, _write_json, level_groups, plan, stratum_levels
from liuyao_kg.reasoner.engine import Rule, RuleScopeError, ox_keys

from . import terms
from .terms import compact as _compact, expand as _expand
from .layout import key_of as _key_of, layout as _layout
from .translate import RDF_TYPE, TERM_ORDER_ERROR, VERSION, Layout, Translation, Unsupported, table_id, translate

_PROLOGUE = sparql_prologue()
_TOPIC = LYO + "topic"

#: memory DuckDB's block allocator keeps for reuse between statements: a batch's ~1,500 statements each allocate
#: tens of MB, which DuckDB otherwise hands back to the system and faults in again (docs/columnar.md)
BLOCK_CACHE = "512MB"


class _SharedDatabase:
    """The one DuckDB database of this process that has the block cache, shared by its one-thread engines (a job's,
    a Dask worker's), each in an in-memory catalog of its own.

    With the cache DuckDB maps 80 % of the machine's memory per database as accountable address space (not
    MAP_NORESERVE), and Linux's default overcommit heuristics refuse to copy too much of it: a process holding three
    such databases could not fork (ENOMEM, 24 GiB machine), one could — and `liuyao serve` forks for every query.
    So one such database a process, closed with its last engine. Under strict accounting (vm.overcommit_memory = 2)
    the mapping would take 80 % of the commit limit from every other allocation: there no engine shares it."""

    #: reentrant: the garbage collector may release a collected engine inside `connect`, in the same thread
    _lock = threading.RLock()
    _con = None
    _engines = 0  # counted from the start of `connect`, so a release inside it never closes the database
    _names = itertools.count()

    @classmethod
    def connect(cls):
        """(a connection of the shared database, using a new empty catalog of its own, the catalog's name)."""
        import duckdb

        with cls._lock:
            cls._engines += 1
            con = None
            try:
                if cls._con is None:
                    db = duckdb.connect(config={"threads": 1})
                    _settings(db)
                    db.execute(f"SET block_allocator_memory = '{BLOCK_CACHE}'")
                    cls._con = db
                name = f"engine_{next(cls._names)}"
                con = cls._con.cursor()
                con.execute(f"ATTACH ':memory:' AS {name}")
                con.execute(f"USE {name}")
            except BaseException:
                if con is not None:
                    con.close()
                cls._gone()
                raise
            return con, name

    @classmethod
    def release(cls, con, name: str) -> None:
        """An engine's catalog dropped and its connection closed; the database too with the last engine's."""
        with cls._lock:
            try:
                con.execute("USE memory")
                con.execute(f"DETACH {name}")
            finally:
                con.close()
                cls._gone()

    @classmethod
    def _gone(cls) -> None:
        cls._engines -= 1
        if not cls._engines and cls._con is not None:
            cls._con.close()
            cls._con = None


def _settings(con) -> None:
    """What every engine's database runs with."""
    con.execute("SET preserve_insertion_order = false")
    # the translator orders each rule's joins itself (translate._Translator.p_BGP): DuckDB's search
    # would cost more than the evaluation; the CTE rewrites find nothing to gain in the generated SQL
    # (each CTE is read by design) and cost ~20 % of a batch of 300 casts in planning
    con.execute("SET disabled_optimizers = 'join_order,common_subplan,cte_filter_pusher'")


def _strict_overcommit() -> bool:
    """Linux's strict accounting (vm.overcommit_memory = 2)."""
    try:
        with open("/proc/sys/vm/overcommit_memory", encoding="ascii") as f:
            return f.read().strip() == "2"
    except OSError:
        return False


def _rule_hash(rule: Rule, layout: Layout) -> str:
    return hashlib.sha256(f"{VERSION}\n{layout.digest()}\n{rule.iri}\n{rule.construct}".encode()).hexdigest()


def _cache_file():
    return _cache_dir() / f"columnar-sql-v{VERSION}.json"


#: the translations of the package's own rules and wide extensions, keyed as the user cache is (built by
#: python -m liuyao_kg.reasoner.columnar.precompute, checked by a test): a fresh install translates nothing
PACKAGED = Path(__file__).resolve().parent / "translations.json"
_PACKAGED_DATA: dict | None = None
#: translating more rules than this says so on stderr first (about 15 ms a rule)
PROGRESS_ABOVE = 20


def packaged() -> dict:
    global _PACKAGED_DATA
    if _PACKAGED_DATA is None:
        _PACKAGED_DATA = _read_json(PACKAGED)
    return _PACKAGED_DATA


def translate_entry(rule, layout: Layout) -> dict:
    """One rule's cache entry: its Translation's fields, or why it runs on pyoxigraph."""
    try:
        t = translate(rule.construct, rule.iri, _PROLOGUE, layout)
        return {"where": t.where, "template": t.template, "reads": t.reads, "typed": t.typed, "ordered": t.ordered,
                "guards": t.guards}
    except Unsupported as e:
        return {"unsupported": str(e)}


def translations(rules: list[Rule], layout: Layout, progress=None) -> dict[str, Translation | str]:
    """Each rule's Translation, or the reason it runs on pyoxigraph; memoised by each rule's text hash
    (and the layout's, which steers the join order).

    Translating parses every rule with rdflib (about 15 ms a rule); the result depends only on the rule's
    text and the generator's VERSION, so a changed rule misses the packaged translations and the cache and is
    translated again (said on stderr, or to `progress`, when there are many). An unwritable cache directory
    only costs the time again next start.
    """
    ship = packaged()
    cache = _read_json(_cache_file())
    out, fresh = {}, {}
    missing = [r for r in rules if _rule_hash(r, layout) not in ship and _rule_hash(r, layout) not in cache]
    if len(missing) > PROGRESS_ABOVE or (missing and progress):
        note = (f"translating {len(missing)} rule(s) to SQL, about {len(missing) * 15 // 1000 + 1} s "
                f"(cached in {_cache_dir()} after the first run)")
        if progress:
            progress(note)
        else:
            print(f"liuyao: {note}", file=sys.stderr, flush=True)
    for r in rules:
        h = _rule_hash(r, layout)
        entry = ship.get(h) or cache.get(h)
        if entry is None:
            entry = fresh[h] = translate_entry(r, layout)
        if "unsupported" in entry:
            out[r.iri] = entry["unsupported"]
        else:
            out[r.iri] = Translation(entry["where"], [tuple(x) for x in entry["template"]],
                                     [tuple(x) for x in entry["reads"]], entry["typed"], entry["ordered"],
                                     None if entry.get("guards") is None else [tuple(x) for x in entry["guards"]])
    if fresh:
        _write_json(_cache_file(), fresh, keep=None)
    return out


class ColumnarEngine:
    """Derives casts' inferred quads with the rules as SQL; `derive` returns what Engine.derive returns."""

    def __init__(self, rules: list[Rule], reference: Iterable[ox.Quad], *, threads: int | None = None,
                 progress=None, conditions: dict[str, tuple[str, str | None]] | None = None):
        """`conditions` ({chapter rule IRI: (condition, strength table)}, wide.chapter_conditions of the rules
        layer), when given, runs the chapter rules as their conditions compiled over the wide tables."""
        self.rules = {r.iri: r for r in rules}
        self.plan = plan({r.iri: r.io for r in rules})
        self._connect(threads)
        self._reference = list(reference)
        self.layout = _layout(rules, self._reference)
        self.sql = translations(rules, self.layout, progress)
        self._init_wide(rules, conditions or {}, progress)
        self._reference_keys = ox_keys(self._reference)
        self._keys: dict[str, tuple[str, str]] = {}  # table id → key
        self._ref_ids: set[str] = set()
        self._load_reference()
        for t in self.sql.values():
            if isinstance(t, Translation):
                for kind, iri, *_ in t.template:
                    self._table((kind, iri))
                for key in t.reads:
                    self._table(tuple(key))
        for key in self._wide_keys:
            self._table(key)
        self._create_wide_tables()
        self.con.execute("CREATE TEMP TABLE new (k VARCHAR, s VARCHAR, o VARCHAR)")
        for tid in self._ref_ids:
            self._refill(tid)
        self._levels_cache = self._levels()
        self._queries = {iri: self._resolve(t) for iri, t in self.sql.items() if isinstance(t, Translation)}
        #: {rule of a recursive stratum: [(table id, guard statement)]}, for its own translation's guards
        #: (`_fires_again`); a rule missing here (run on pyoxigraph) is always run again
        self._guards = {iri: [(tid, self._placed(sql, t.reads)) for tid, sql in t.guards]
                        for members, recursive in self._levels_cache if recursive for iri in members
                        if isinstance(t := self.sql[iri], Translation) and t.guards is not None}
        self._wide_selects = {iri: w.select for iri, w in self.wide.items()}
        from .wide import rows_table

        self._ext_queries = [(e, t, self._resolve(t).replace("INSERT INTO new ", f"INSERT INTO {rows_table(e.kind)} ", 1),
                              self._resolve_select(t)) for e, t in self._extensions]
        self._wide_dirty = True
        self._wide_usable: set[str] = set()
        #: {predicate IRI: the SQL list of the IRI objects some rule's `required` names with it}
        objects: dict[str, set[str]] = {}
        for r in rules:
            for k in r.io.required:
                if k[0] == "p" and len(k) > 2 and k[2]:
                    objects.setdefault(k[1], set()).add(k[2])
        self._required_objects = {p: ", ".join(terms.q(_compact(f"<{o}>")) for o in sorted(objs)) for p, objs in objects.items()}
        self._ox_queries = {r.iri: f"{_PROLOGUE}{r.construct}\nVALUES ?rule {{ <{r.iri}> }}" for r in rules}
        self._mirror = None
        self._mirror_base: ox.Store | None = None  # the reference, kept across batches (see _mirror_store)
        self._mirror_added: list[ox.Quad] = []
        self._mirror_uses = 0
        #: seconds per rule, summed over derivations, when set to a dict (profiling; None: not measured)
        self.timings: dict[str, float] | None = None

    # --- the database: what differs between DuckDB (here) and SQLite (sqlite.SqliteEngine, which also
    # --- runs a statement its own way, _run_sql) ---------------------------------------------------

    def _connect(self, threads: int | None) -> None:
        import duckdb

        self._duckdb_input_error = duckdb.InvalidInputException  # how a statement refuses a batch (_run_sql)
        if threads == 1 and not _strict_overcommit():  # the process's database with the block cache
            self.con, catalog = _SharedDatabase.connect()
            # the catalog dropped when the engine is closed or collected
            self._release = weakref.finalize(self, _SharedDatabase.release, self.con, catalog)
        else:
            self.con = duckdb.connect()
            self._release = weakref.finalize(self, self.con.close)
            if threads:
                self.con.execute(f"SET threads = {int(threads)}")
            _settings(self.con)
        terms.install(self.con)

    def _create(self, table: str, columns: list[str], ints: tuple[str, ...] = ()) -> None:
        cols = [c + " VARCHAR" for c in columns] + [c + " INTEGER" for c in ints]
        self.con.execute(f"CREATE TABLE {table} ({', '.join(cols)})")

    def _stage(self, name: str, columns: dict[str, list]) -> None:
        """Make the rows (column → values, strings or None) readable as table `name` until _unstage."""
        import pyarrow as pa

        self.con.register(name, pa.table({c: pa.array(v, pa.string()) for c, v in columns.items()}))

    def _unstage(self, name: str) -> None:
        self.con.unregister(name)

    def _inserted(self, sql: str, seq: int) -> int:
        """Run an INSERT whose one parameter is the batch's sequence number; the number of rows it wrote, as
        the database reports it (counting them with a second statement cost one more a key and level)."""
        return self.con.execute(sql, (seq,)).fetchone()[0]

    def _unbatch(self, tid: str) -> None:
        """The rows of a batch out of a key's table that also holds reference rows (seq NULL)."""
        self._refill(tid)  # one statement on DuckDB, whatever the table's size

    def _refill(self, tid: str) -> None:
        """The cast table of a key back to its reference rows."""
        self.con.execute(f"CREATE OR REPLACE TABLE c_{tid} AS SELECT *, CAST(NULL AS INTEGER) AS seq FROM r_{tid}")

    def _cluster(self, table: str) -> None:
        """A table of (k, s, o) rows sorted by key, once filled: a rule reads one key's rows (a relation's EXISTS),
        and DuckDB then skips the row groups of the others by their min/max (5,000 casts: w_rel holds ~330,000
        rows, three row groups)."""
        self.con.execute(f"CREATE OR REPLACE TABLE {table} AS SELECT * FROM {table} ORDER BY k, s")

    def _create_flags(self, table: str, ints: list[str], texts: list[str], flags: list[str]) -> None:
        """A wide table: integer columns, text columns, then 0/1 columns (wide.py)."""
        cols = [c + " INTEGER" for c in ints] + [c + " VARCHAR" for c in texts] + [c + " TINYINT" for c in flags]
        self.con.execute(f"CREATE TABLE {table} ({', '.join(cols)})")

    # --- the chapter rules over the wide tables (wide.py) -------------------------------------

    def _init_wide(self, rules: list[Rule], conditions: dict, progress) -> None:
        """Compile the chapter rules' conditions; a rule whose condition or extensions the generators refuse,
        or in a recursive stratum, keeps its generic SQL (`wide_refused` says why)."""
        from . import wide as W

        self.wide: dict[str, W.WideRule] = {}
        self.wide_refused: dict[str, str] = {}
        self._extensions: list[tuple[W.Extension, Translation]] = []
        self._wide_keys: set[tuple[str, str]] = set()
        self._wide_topics: set[str] = set()
        self._wide_reads: set[str] = set()
        if not conditions:
            return
        compiled, self.wide_refused, comp = W.compile_rules(rules, conditions)
        self._wide_topics = comp.topics
        exts = list(comp.extensions.values())
        ext_sql = translations([_Pseudo(e.iri, e.construct) for e in exts], self.layout, progress)
        refused = {e.iri: ext_sql[e.iri] for e in exts if not isinstance(ext_sql[e.iri], Translation)}
        recursive = {m for i, st in enumerate(self.plan.strata) if self.plan.recursive[i] for m in st}
        for iri, w in compiled.items():
            bad = [refused[e.iri] for e in w.extensions if e.iri in refused]
            if bad or iri in recursive:
                self.wide_refused[iri] = bad[0] if bad else "in a recursive stratum"
            else:
                self.wide[iri] = w
        used = {e for w in self.wide.values() for e in w.extensions}
        self._extensions = [(e, ext_sql[e.iri]) for e in exts if e in used]
        self._wide_keys = {tuple(k) for _e, t in self._extensions for k in t.reads}
        self._wide_keys |= set(W.SOURCE_KEYS.values()) | {("p", iri) for iri in W.FUNCTIONAL}
        self._wide_reads = {table_id(k) for k in self._wide_keys}

    def _create_wide_tables(self) -> None:
        from . import wide as W

        self._pivots = []
        if not self.wide:
            return
        source = {name: f"c_{table_id(key)}" for name, key in W.SOURCE_KEYS.items()}
        topics = sorted(self._wide_topics)
        for kind in ("cast", "line", "hidden"):  # w_cast first: it numbers the casts the others refer to
            of_kind = [e for e, _t in self._extensions if e.kind == kind]
            self._create_flags(W.TABLES[kind], *W.table_columns(kind, of_kind, topics))
            self._pivots.append(W.pivot_sql(kind, of_kind, source, topics))
        self._create_flags("w_ext", [], ["k", "s", "o"], [])
        self._create_flags(W.PAIRS, [], ["k", "s", "o"], [])
        self._create_flags("w_sol", [], W.SOLUTION_COLUMNS, [])
        self._judgment_sql = W.judgment_sql(self._table)
        self._functional = [f"SELECT count(*) FROM (SELECT s FROM c_{table_id(('p', iri))} GROUP BY s HAVING count(*) > 1) AS f"
                            for iri in W.FUNCTIONAL]

    def _wide_build(self, exact: tuple[bool, bool]) -> None:
        """Fill the wide tables from the batch's facts as they now stand: every extension's rows, then a
        0/1 column each. An extension the batch's datatypes make inexact (as a `typed` or `ordered` rule) is
        left out, and the rules reading it run their generic way; so are all, should a cast of the batch have
        two days, months, years or primary hexagrams, say (wide.FUNCTIONAL: the compiled conditions read one)."""
        from . import wide as W

        con = self.con
        for table in (*W.TABLES.values(), "w_ext", W.PAIRS):
            con.execute(f"DELETE FROM {table}")
        self._wide_dirty = False
        self._wide_usable = set()
        if any(con.execute(sql).fetchone()[0] for sql in self._functional):
            return
        usable = [(e, sql, select) for e, t, sql, select in self._ext_queries
                  if (exact[0] or not t.typed) and (exact[1] or not t.ordered)]
        if self.FUSE > 1:
            for table in ("w_ext", W.PAIRS):
                self._fused(table, [select for e, _sql, select in usable if W.rows_table(e.kind) == table])
        else:
            for _e, sql, _select in usable:
                con.execute(sql)
        self._cluster(W.PAIRS)
        self._wide_usable = {e for e, _sql, _select in usable}
        for sql in self._pivots:
            con.execute(sql)

    def _runs_wide(self, iri: str, exact: tuple[bool, bool]) -> bool:
        w = self.wide.get(iri)
        if w is None:
            return False
        if self._wide_dirty:
            self._wide_build(exact)
        return w.extensions <= self._wide_usable

    def close(self) -> None:
        """Close the engine's database (its threads end with it: a process that forks later, as the endpoint does to
        evaluate a query, then forks no database thread's held lock). An engine of the shared database drops its
        catalog; the last one closes the database."""
        self._release()  # a weakref.finalize (`_connect`): once, by this call or when the engine is collected

    # --- layout ---------------------------------------------------------------------------------

    @property
    def paths(self) -> dict[str, int]:
        """How many rules run compiled from their conditions over the wide tables (wide.py), as generated SQL,
        and on pyoxigraph (the translator refused them)."""
        sql = sum(isinstance(t, Translation) for iri, t in self.sql.items() if iri not in self.wide)
        wide = len(self.wide)
        return {"wide": wide, "sql": sql, "pyoxigraph": len(self.sql) - sql - wide}

    def fallback_reasons(self) -> dict[str, str]:
        return {iri: t for iri, t in self.sql.items() if not isinstance(t, Translation)}

    def _table(self, key: tuple[str, str]) -> str:
        tid = table_id(key)
        if tid not in self._keys:
            self._keys[tid] = key
            # seq: the level a derived row was written at, NULL for reference and asserted rows (`_out`)
            self._create(f"c_{tid}", ["s"] if key[0] == "t" else ["s", "o"], ("seq",))
        return tid

    def _tables_needed(self) -> set | None:
        """The keys some rule reads or writes (None: every key, while a rule runs only on pyoxigraph).

        Only their reference rows are loaded: the others no statement reads, and a key a rule writes must
        hold its reference rows so that a derived triple the reference already has is not new."""
        keys: set = set(self._wide_keys)
        for iri, t in self.sql.items():
            if not isinstance(t, Translation):
                return None
            keys.update(tuple(k) for k in t.reads)
            keys.update((kind, key_iri) for kind, key_iri, *_ in t.template)
            keys.update((k[0], k[1]) for k in self.rules[iri].io.writes)
        return keys

    def _load_reference(self) -> None:
        needed = self._tables_needed()
        by_key: dict[tuple[str, str], tuple[list, list]] = {}
        for qd in self._reference:
            p, o = str(qd.predicate), str(qd.object)
            key = _key_of(p, o)
            if needed is not None and key not in needed:
                continue
            s_list, o_list = by_key.setdefault(key, ([], []))
            s_list.append(_compact(str(qd.subject)))
            o_list.append(_compact(o))
        for key, (s_list, o_list) in by_key.items():
            tid = self._table(key)
            cols = {"s": s_list} if key[0] == "t" else {"s": s_list, "o": o_list}
            self._create(f"r_{tid}", list(cols))
            self._stage("ref_stage", cols)
            self.con.execute(f"INSERT INTO r_{tid} SELECT DISTINCT * FROM ref_stage")
            self._unstage("ref_stage")
            self._ref_ids.add(tid)

    def _source(self, tid: str) -> str:
        return f"c_{tid}"  # the reference rows are copied in at the start of each batch (see _reset)

    def _placed(self, sql: str, reads) -> str:
        """Generated SQL with its `{T:<id>}` placeholders (of the keys `reads`) naming the tables."""
        for key in reads:
            tid = table_id(tuple(key))
            sql = sql.replace(f"{{T:{tid}}}", self._source(tid))
        return sql

    def _resolve(self, t: Translation, rewrite=None) -> str:
        """The rule as one INSERT into `new` of (key, subject, object): every triple its template makes.

        `rewrite(where)`, if given, returns (CTE definitions, the WHERE over them) to write the WHERE SQL
        with (sqlite.hoist)."""
        where = self._placed(t.where, t.reads)
        parts = []
        for kind, iri, s, o in t.template:
            tid = table_id((kind, iri))
            obj = "NULL" if kind == "t" else o
            cond = f"{s} IS NOT NULL AND substr({s}, 1, 1) IN ('<', '_')" + ("" if kind == "t" else f" AND {o} IS NOT NULL")
            parts.append(f"SELECT '{tid}' AS k, {s} AS s, {obj} AS o FROM sol WHERE {cond}")
        if not parts:
            return ""
        defs = ""
        if rewrite is not None:
            defined, where = rewrite(where)
            defs = "".join(d + ", " for d in defined)
        return f"INSERT INTO new WITH {defs}sol AS MATERIALIZED ({where}) {' UNION ALL '.join(parts)}"

    def _resolve_select(self, t: Translation) -> str:
        """A one-triple template's rows as a SELECT of (key, subject, object), no CTE: statements of this
        form can be fused with UNION ALL (`_fused`)."""
        ((kind, iri, s, o),) = t.template
        where = self._placed(t.where, t.reads)
        cond = f"{s} IS NOT NULL AND substr({s}, 1, 1) IN ('<', '_') AND {o} IS NOT NULL"
        return f"SELECT '{table_id((kind, iri))}' AS k, {s} AS s, {o} AS o FROM ({where}) AS sol WHERE {cond}"

    #: independent SELECTs into one table run as one statement of this many, UNION ALL (wide rules and
    #: extensions): DuckDB's cost is mostly planning a statement, ~35 % less so fused (measured on 300 wide
    #: rules, 2,000 casts); SQLite keeps each statement prepared, so one each (SqliteEngine)
    FUSE = 20

    def _fused(self, table: str, selects: list[str]) -> None:
        for i in range(0, len(selects), self.FUSE):
            chunk = selects[i:i + self.FUSE]
            body = chunk[0] if len(chunk) == 1 else " UNION ALL ".join(f"({x})" for x in chunk)
            self.con.execute(f"INSERT INTO {table} {body}")

    # --- derivation -----------------------------------------------------------------------------

    def _levels(self) -> list[tuple[list[str], bool]]:
        """The plan's level groups (`RulePlan.groups`), with the compiled chapter rules held back (below).

        Strata of one level do not read each other's output, so a level of non-recursive strata runs as
        one step: each rule one statement into `new`, whose triples are then made a set once per key
        (fusing a level's rules into fewer statements was measured slower: DuckDB's cost is per operator,
        ~9 ms a rule); a recursive stratum runs alone, to its fixpoint.
        """
        if not self.wide:
            return self.plan.groups
        # the compiled chapter rules wait until every rule writing what the wide tables hold has run, so
        # the tables are built once a batch (else again whenever such a key grows: _apply)
        strata, level = self.plan.strata, self.plan.levels
        writes = [i for i, st in enumerate(strata)
                  if any(table_id((k[0], k[1])) in self._wide_reads for m in st for k in self.rules[m].io.writes)]
        last = max((level[i] for i in writes), default=-1)
        level = stratum_levels(self.plan.graph, strata,
                               {i: last + 1 for i, st in enumerate(strata) if any(m in self.wide for m in st)})
        return level_groups(strata, self.plan.recursive, level)

    def derive(self, cast_quads: Iterable[ox.Quad]) -> list[ox.Quad]:
        """The inferred quads of the casts given (their asserted quads), as Engine.derive returns them."""
        quads = list(cast_quads)
        graphs = {q.graph_name.value for q in quads}
        out = []
        for s, p, o in self.derive_triples(quads):
            cast = _cast_of_nt(s)
            if cast is None or cast not in graphs:
                raise RuleScopeError(f"a rule wrote {s} {p} {o} outside any cast being derived")
            out.append(f"{s} {p} {o} <{cast}/inferred> .\n")
        return list(ox.parse("".join(out), format=ox.RdfFormat.N_QUADS)) if out else []

    def write_inferred_nquads(self, con, casts: set[str], path: str, *, by_cast: bool = False) -> int:
        """In a sink of `derive_triples` (DuckDB): write the batch's inferred quads to the file `path` as N-Quads, each
        in `<cast>/inferred` as `derive` puts it. The database writes the lines itself: no Python object or string
        per quad (~600 quads, ~150 KB a cast), and nothing of them held in memory (a store bulk-loads the file).
        `casts`: the batch's cast IRIs; a triple about anything else raises RuleScopeError, as in `derive`. Returns
        the number of quads written. `by_cast`: each cast's quads together (sorted by graph: a reader can take the
        file a cast at a time).

        Each column holds a term's canonical N-Triples spelling (control characters escaped, never a raw line
        break), so each line is one quad as written, without CSV quoting (QUOTE '' ESCAPE '')."""
        con.execute("CREATE OR REPLACE TEMP TABLE keys_nt (k VARCHAR, p VARCHAR, t VARCHAR)")
        con.executemany("INSERT INTO keys_nt VALUES (?, ?, ?)",
                        [(tid, f"<{RDF_TYPE}>", f"<{iri}>") if kind == "t" else (tid, f"<{iri}>", None)
                         for tid, (kind, iri) in self._keys.items()])
        # the cast is the first segment of a subject in the cast namespace, read off its stored short form (`out_stored`,
        # terms.compact): the check and the graph names cost no expansion; only the line written spells terms in full
        short = len(terms.SHORT)
        con.execute(f"CREATE OR REPLACE TEMP VIEW out_cast AS SELECT k, s, o, CASE WHEN prefix(s, "
                    f"{terms.q(terms.SHORT)}) THEN split_part(substr(s, {short + 1}, length(s) - {short + 1}), '/', 1) "
                    f"END AS g FROM out_stored")
        for (cast,) in con.execute("SELECT DISTINCT g FROM out_cast").fetchall():
            if cast is None or CAST + cast not in casts:
                example = con.execute("SELECT nt_expand(s) FROM out_cast WHERE g IS NOT DISTINCT FROM ? LIMIT 1",
                                      [cast]).fetchone()
                raise RuleScopeError(f"a rule wrote a triple about {example[0]} outside any cast being derived")
        line = (f"nt_expand(s) || ' ' || kn.p || ' ' || coalesce(nt_expand(o), kn.t) || {terms.q(' <' + CAST)} || g || "
                f"'/inferred> .'")
        order = " ORDER BY g" if by_cast else ""
        return con.execute(f"COPY (SELECT {line} FROM out_cast JOIN keys_nt AS kn USING (k){order}) TO {terms.q(path)} "
                           f"(FORMAT csv, HEADER false, QUOTE '', ESCAPE '', DELIMITER '\x01')").fetchone()[0]

    def derive_triples(self, quads: list[ox.Quad], sink=None) -> list[tuple[str, str, str]]:
        """The inferred triples of a batch in N-Triples terms; `sink(con)`, if given, reads the view `out` (k, s, o,
        seq: the same triples) instead, or `out_stored`, the same spelt as the tables spell them."""
        con = self.con
        k, s, o, datatypes, topics, present = self._batch_rows(quads)
        exact = (datatypes <= terms.SAFE_DATATYPES, datatypes <= terms.SAFE_DATATYPES - {terms.XSD + "dateTime"})
        self._stage("stage", {"k": k, "s": s, "o": o})
        touched = set(k)
        for tid in touched:  # the batch's own rows at level 0 (`_out` reads levels above it; `_reset` removes them)
            cols = "s" if self._keys[tid][0] == "t" else "s, o"
            con.execute(f"INSERT INTO c_{tid} ({cols}, seq) SELECT DISTINCT {cols}, 0 FROM stage WHERE k = '{tid}'")
        self._unstage("stage")
        self._asserted = quads
        self._mirror_seq = -1
        self._seq = 0
        self._wide_dirty = True
        self._derived: dict[str, None] = {}  # the keys with derived rows this batch, in the order first written
        try:
            for members, recursive in self._levels_cache:
                again = False
                while True:
                    run = [iri for iri in members
                           if (self.rules[iri].topics is None or self.rules[iri].topics & topics)
                           and self.rules[iri].io.required <= present]
                    if again:
                        # a recursive stratum's next round: only the rules some row of the last can reach (most
                        # of the package's strata read what they write only where none of their rows stands: a
                        # stem-branch's lyo:stem, a ReadLine's lyo:readingOf; the round would find nothing)
                        fired: dict[str, bool] = {}
                        run = [iri for iri in run if self._fires_again(iri, fired)]
                    if not run:
                        break
                    added = self._apply(run, exact, present, touched)
                    if not recursive or added == 0:
                        break
                    again = True
            if sink is not None:
                # `out_stored` spells the terms as the tables do (terms.compact: a sink joining it with itself or a
                # table compares the short form, and expands what it writes), `out` in full
                con.execute(f"CREATE OR REPLACE TEMP VIEW out_stored AS {self._out(self._derived) or self._NO_OUT}")
                con.execute("CREATE OR REPLACE TEMP VIEW out AS SELECT k, nt_expand(s) AS s, nt_expand(o) AS o, seq "
                            "FROM out_stored")
                return sink(con)
            rows = self._out_rows()
        finally:
            self._reset(touched)
        out = []
        for s_, tid, o_ in rows:
            kind, iri = self._keys[tid]
            out.append((s_, f"<{RDF_TYPE}>", f"<{iri}>") if kind == "t" else (s_, f"<{iri}>", o_))
        return out

    def _batch_rows(self, quads: list[ox.Quad]) -> tuple[list, list, list, set, set, set]:
        """One pass over a batch's quads: the rows (key, subject, object) of the keys some statement reads, the
        datatypes of their literals, the batch's topics, and its dependency keys with the reference's (what
        `ox_keys` gives: what `required` is checked against).

        Why one pass, caching per predicate and class: the passes it replaces (each term converted, its key
        read, `ox_keys` again) cost ~2.4 s of a 10,000-cast batch of the state rules, this one ~1.1 s."""
        present = set(self._reference_keys)
        k, s, o = [], [], []
        datatypes, topics = set(), set()
        by_pred: dict = {}  # predicate → (IRI, its table id or None: no statement reads it)
        by_class: dict[str, str | None] = {}  # class IRI → its table id or None
        keys = self._keys
        for qd in quads:
            pred, obj = qd.predicate, qd.object
            hit = by_pred.get(pred)
            if hit is None:
                pv = pred.value
                tid = table_id(("p", pv))
                hit = by_pred[pred] = (pv, tid if tid in keys else None)
                present.add(("p", pv, ""))
            pv, tid = hit
            if pv == _TOPIC:
                topics.add(obj.value)
            if type(obj) is ox.NamedNode:
                ov = obj.value
                nt = _compact(f"<{ov}>")
                if pv == RDF_TYPE:
                    present.add(("t", ov, ""))
                    tid = by_class.get(ov, "")
                    if tid == "":
                        tid = table_id(("t", ov))
                        tid = by_class[ov] = tid if tid in keys else None
                else:
                    present.add(("p", pv, ov))
            else:
                if type(obj) is ox.Literal:
                    datatypes.add(obj.datatype.value)
                nt = str(obj)
            if tid is None:
                continue  # no statement reads it (the pyoxigraph mirror, if used, has every quad)
            k.append(tid)
            s.append(_compact(str(qd.subject)))
            o.append(nt)
        return k, s, o, datatypes, topics, present

    #: keys read back by one statement (SQLite compounds at most 500 SELECTs)
    OUT_KEYS_PER_STATEMENT = 400
    #: `out` of a batch that derived nothing
    _NO_OUT = "SELECT CAST(NULL AS VARCHAR) AS k, CAST(NULL AS VARCHAR) AS s, CAST(NULL AS VARCHAR) AS o, 0 AS seq WHERE 1 = 0"

    def _out(self, tids, after: bool = False) -> str:
        """The derived rows of the keys `tids` as (k, s, o, seq): a table's rows with a level (`after`: past
        the level given as a parameter, once per key)."""
        cond = "seq > 0" + (" AND seq > ?" if after else "")
        return " UNION ALL ".join(
            f"SELECT '{tid}' AS k, s, {'NULL' if self._keys[tid][0] == 't' else 'o'} AS o, seq FROM c_{tid} WHERE {cond}"
            for tid in tids)

    def derived_sql(self, kind: str, iri: str | None = None) -> str:
        """In a sink: the batch's derived rows of one key as a SELECT, spelt as stored (terms.compact) — (s, o) of a
        predicate; (s, class) of every class that gained rows (`iri` None), the class as its IRI. Read from the key
        tables themselves: joining the view `out_stored` with itself scans every key's rows once per reference."""
        none = "SELECT CAST(NULL AS VARCHAR) AS s, CAST(NULL AS VARCHAR) AS {} WHERE false"
        if kind == "p":
            tid = table_id(("p", iri))
            return f"SELECT s, o FROM c_{tid} WHERE seq > 0" if tid in self._keys else none.format("o")
        union = " UNION ALL ".join(f"SELECT s, {terms.q(self._keys[tid][1])} AS class FROM c_{tid} WHERE seq > 0"
                                   for tid in self._derived if self._keys[tid][0] == "t")
        return union or none.format("class")

    def _out_rows(self, after: int | None = None) -> list[tuple[str, str, str | None]]:
        """(s, k, o) of every row derived this batch (`after`: at a level past that one)."""
        keys, rows = list(self._derived), []
        for i in range(0, len(keys), self.OUT_KEYS_PER_STATEMENT):
            chunk = keys[i:i + self.OUT_KEYS_PER_STATEMENT]
            sql = f"SELECT s, k, o FROM ({self._out(chunk, after is not None)}) AS out"
            rows += self.con.execute(sql, [after] * len(chunk) if after is not None else []).fetchall()
        return [(_expand(s), k, None if o is None else _expand(o)) for s, k, o in rows]  # in full (terms.compact)

    def _reset(self, touched: set) -> None:
        """Back to the reference rows only: the next batch starts clean."""
        for tid in touched:
            if tid in self._ref_ids:
                self._unbatch(tid)
            else:
                self.con.execute(f"DELETE FROM c_{tid}")
        if self.wide:
            from .wide import PAIRS, TABLES

            for table in (*TABLES.values(), "w_ext", PAIRS):
                self.con.execute(f"DELETE FROM {table}")
        if self._mirror is not None:  # the batch's quads out of the mirror, or the mirror dropped
            if len(self._mirror_added) > self.MIRROR_REMOVE_AT_MOST or self._mirror_uses >= self.MIRROR_REBUILD_EVERY:
                self._mirror_base = None
            else:
                for qd in self._mirror_added:
                    self._mirror.remove(qd)
        self._mirror = None
        self._mirror_added = []
        self._asserted = None

    def _apply(self, iris: list[str], exact: tuple[bool, bool], present: set, touched: set) -> int:
        """Evaluate rules that do not read each other; their new triples go to the tables and `out`.

        Each rule appends what its template makes to `new`; the level's triples are then made a set
        and stripped of those the tables already hold, once per key (not once per rule).
        """
        con = self.con
        self._seq += 1
        con.execute("DELETE FROM new")
        timings = self.timings
        wide = [iri for iri in iris if self._runs_wide(iri, exact)]
        if wide:
            start = time.process_time()
            self._fused("w_sol", [self._wide_selects[iri] for iri in wide])
            if timings is not None:  # a fused statement's time, shared by its rules
                for iri in wide:
                    timings[iri] = timings.get(iri, 0.0) + (time.process_time() - start) / len(wide)
        compiled = set(wide)
        for iri in iris:
            if iri in compiled:
                continue
            t = self.sql[iri]
            start = time.process_time() if timings is not None else 0.0
            if isinstance(t, Translation) and (exact[0] or not t.typed) and (exact[1] or not t.ordered):
                if self._queries[iri] and not self._run_sql(iri):
                    self._apply_oxigraph(iri)
            else:
                self._apply_oxigraph(iri)
            if timings is not None:
                timings[iri] = timings.get(iri, 0.0) + time.process_time() - start
        if wide:  # the compiled rules' solutions as their judgments' triples, once for the level
            for sql in self._judgment_sql:
                con.execute(sql)
            con.execute("DELETE FROM w_sol")
        keys = [k for (k,) in con.execute("SELECT DISTINCT k FROM new").fetchall()]
        total = 0
        self._last_written: set[str] = set()  # the keys this level added rows to (`_fires_again`)
        for tid in keys:
            kind, key_iri = self._keys[tid]
            cols = "s" if kind == "t" else "s, o"
            # the batch's sequence number as a parameter: a statement's text is the same every time, so a
            # database that caches prepared statements by their text (SQLite) keeps them all
            if tid in touched or tid in self._ref_ids:  # the table has rows: only what it lacks is new
                n = self._inserted(f"INSERT INTO c_{tid} ({cols}, seq) SELECT {cols}, ? FROM (SELECT {cols} "
                                   f"FROM new WHERE k = '{tid}' EXCEPT SELECT {cols} FROM c_{tid}) AS fresh", self._seq)
            else:  # an empty table (most keys: one rule writes them, once): every distinct row is new
                n = self._inserted(f"INSERT INTO c_{tid} ({cols}, seq) SELECT DISTINCT {cols}, ? FROM new "
                                   f"WHERE k = '{tid}'", self._seq)
            if not n:
                continue
            # the derived rows stay in the key's table only, marked by `seq` (`_out` reads them back): copying
            # them to an output table as well took ~6 s of a 50 s batch (states, 10,000 casts; docs/columnar.md)
            self._derived[tid] = None
            self._last_written.add(tid)
            touched.add(tid)
            total += n
            if tid in self._wide_reads:
                self._wide_dirty = True  # the wide tables are built again before the next compiled rule
            if kind == "t":
                present.update({("p", RDF_TYPE, ""), ("t", key_iri, "")})
            else:
                present.add(("p", key_iri, ""))
                # the keys with an IRI object (what `required` reads: see dependencies.Key), of the objects
                # some rule requires: fetching every object (each line a state is of) cost ~1 ms a cast
                wanted = self._required_objects.get(key_iri)
                if wanted:
                    for (obj,) in con.execute(f"SELECT DISTINCT o FROM c_{tid} WHERE seq = ? AND o IN ({wanted})",
                                              (self._seq,)).fetchall():
                        present.add(("p", key_iri, _expand(obj)[1:-1]))
        return total

    def _fires_again(self, iri: str, fired: dict[str, bool]) -> bool:
        """Whether a rule of a recursive stratum may find a solution it has not found, after the round that
        wrote the rows of level `_seq` (the keys `_last_written`).

        A round's rules read the tables as they stood before it, so a solution new in the next round matches
        at least one of those rows with one of its triple patterns; each pattern's guard
        (`Translation.guards`) looks for a row of the level that pattern could match, and a rule none of
        whose guards finds one has nothing new to derive. Rules the generator left to pyoxigraph have no
        guards and always run again. `fired` keeps each guard's answer for the round (rules share patterns).
        """
        guards = self._guards.get(iri)
        if guards is None:
            return True
        for tid, sql in guards:
            if tid not in self._last_written:
                continue
            hit = fired.get(sql)
            if hit is None:
                hit = fired[sql] = self.con.execute(sql, (self._seq,)).fetchone() is not None
            if hit:
                return True
        return False

    def _run_sql(self, iri: str) -> bool:
        """Run a rule's statement; False when it refused the batch's data at run time (nothing written).

        MAX/MIN are generated for integers only; on other terms the statement raises, and the rule runs on
        pyoxigraph for this batch instead (a failed statement leaves `new` as it was).
        """
        try:
            self.con.execute(self._queries[iri])
        except self._duckdb_input_error as e:
            if TERM_ORDER_ERROR not in str(e):
                raise
            return False
        return True

    # --- the pyoxigraph path --------------------------------------------------------------------

    def _apply_oxigraph(self, iri: str) -> None:
        """Run one rule on a pyoxigraph mirror of the tables; its new triples land in `new`."""
        if self._mirror is None:
            self._mirror = self._mirror_store()
            self._mirror_add(ox.Quad(q.subject, q.predicate, q.object) for q in self._asserted)
        rows = self._out_rows(after=self._mirror_seq)
        if rows:
            text = "".join(f"{s} {self._nt_pred(k)} {self._nt_obj(k, o)} .\n" for s, k, o in rows)
            self._mirror_add(ox.Quad(t.subject, t.predicate, t.object)
                             for t in ox.parse(text, format=ox.RdfFormat.N_TRIPLES))
        self._mirror_seq = self._seq - 1
        k, s, o = [], [], []
        for t in self._mirror.query(self._ox_queries[iri]):
            p, obj = str(t.predicate), str(t.object)
            key = _key_of(p, obj)
            tid = self._table(key)
            k.append(tid)
            s.append(_compact(str(t.subject)))
            o.append(None if key[0] == "t" else _compact(obj))
        self._stage("ox_stage", {"k": k, "s": s, "o": o})
        self.con.execute("INSERT INTO new SELECT k, s, o FROM ox_stage")
        self._unstage("ox_stage")

    #: a batch adding more quads than this to the mirror drops it (rebuilding is cheaper than removing them)
    MIRROR_REMOVE_AT_MOST = 20_000
    #: pyoxigraph's memory store keeps removed quads as history: the mirror is rebuilt after this many batches
    MIRROR_REBUILD_EVERY = 32

    def _mirror_store(self) -> ox.Store:
        """The pyoxigraph store the fallback rules run on: the reference once, then each batch's quads
        added and removed again (building it per batch cost ~30 ms, more than a cast's SQL on SQLite)."""
        if self._mirror_base is None:
            self._mirror_base = ox.Store()
            self._mirror_base.extend(ox.Quad(q.subject, q.predicate, q.object) for q in self._reference)
            self._mirror_uses = 0
        self._mirror_uses += 1
        return self._mirror_base

    def _mirror_add(self, quads) -> None:
        # only what the store lacks is recorded, so removing the batch never removes a reference quad
        new = [qd for qd in quads if qd not in self._mirror]
        self._mirror.extend(new)
        self._mirror_added += new

    def _nt_pred(self, tid: str) -> str:
        kind, iri = self._keys[tid]
        return f"<{RDF_TYPE}>" if kind == "t" else f"<{iri}>"

    def _nt_obj(self, tid: str, o: str | None) -> str:
        kind, iri = self._keys[tid]
        return f"<{iri}>" if kind == "t" else o


class _Pseudo:
    """A wide extension where `translations` expects a rule (an IRI and a CONSTRUCT)."""

    def __init__(self, iri: str, construct: str):
        self.iri, self.construct = iri, construct


def _cast_of_nt(s: str) -> str | None:
    if not s.startswith("<" + CAST):
        return None
    rest = s[1 + len(CAST):-1]
    return CAST + rest.split("/", 1)[0]


__all__ = ["ColumnarEngine", "translations"]
