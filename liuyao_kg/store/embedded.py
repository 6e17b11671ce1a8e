"""The knowledge graph: a pyoxigraph store holding the ontology, reference data, rules, passages and casts.

Named graphs keep the layers apart: the T-box, reference individuals, rule base and passages each
have their own graph; every cast has `<cast>` for what the loader asserted and `<cast>/inferred`
for what the reasoner derived. Adding a cast is one atomic `extend`: it is in completely or not at all.
Batch loads into a store on disk use RocksDB's bulk loader behind a journal (`write_derived`), with the
same guarantee once the store has been opened again after a crash.
"""
from __future__ import annotations

import gc
import os
import threading
import time
import warnings
from collections.abc import Iterable
from pathlib import Path

import pyoxigraph as ox

from liuyao_kg import namespaces as ns
from liuyao_kg.ontology import LAYERS, graph_nonempty, layer_bytes, load_layers
from liuyao_kg.store import versioning
from liuyao_kg.namespaces import inferred_graph
from liuyao_kg.sparql.text import inline_iris

#: the write-ahead journal of bulk loads: `<chunk> lyo:pendingCast <cast>` while a chunk is being written
GRAPH_JOURNAL = ns.GRAPH + "journal"
_JOURNAL = ox.NamedNode(GRAPH_JOURNAL)
_PENDING = ox.NamedNode(ns.LYO + "pendingCast")


class InterruptedLoadWarning(UserWarning):
    """A store was opened after a batch load stopped mid-chunk; that chunk's casts were removed."""


def _load(store: ox.Store, graph: str, parts: list[bytes], *, lenient: bool) -> None:
    """`lenient`: the parts are the N-Triples the build wrote (build.lazy) from strictly parsed layers; else the layer's Turtle."""
    fmt = ox.RdfFormat.N_TRIPLES if lenient else ox.RdfFormat.TURTLE
    for data in parts:
        store.load(data, format=fmt, to_graph=ox.NamedNode(graph), lenient=lenient)


class _Fill:
    """Layers parsed into an in-memory store by a thread, one after another (pyoxigraph parses without holding
    the GIL; two loads into one store mostly wait for each other: one thread does as well, benchmarks/cold_start.py).

    A fork waits for it (`os.register_at_fork`): a child would see half the layer and no thread to finish it.
    """

    _live: "set[_Fill]" = set()
    _lock = threading.Lock()

    def __init__(self, store: ox.Store, layers: list[tuple[str, list[bytes], bool]]):
        """`layers`: (graph, its parts, lenient: N-Triples parsed leniently, else Turtle) in the order parsed."""
        self._error: BaseException | None = None
        self.graph = None  # the layer being parsed, or that failed
        self._thread = threading.Thread(target=self._run, args=(store, layers),
                                        name="liuyao-layer-fill", daemon=True)
        with _Fill._lock:
            _Fill._live.add(self)
        self._thread.start()

    def _run(self, store, layers) -> None:
        try:
            for self.graph, parts, lenient in layers:
                _load(store, self.graph, parts, lenient=lenient)
        except BaseException as exc:  # handed to whoever waits: never a store silently missing a layer
            self._error = exc

    def wait(self) -> None:
        self._thread.join()
        with _Fill._lock:
            _Fill._live.discard(self)
        if self._error is not None:
            raise RuntimeError(f"the store's layer {self.graph} could not be parsed: {self._error}") from self._error

    @classmethod
    def wait_all(cls) -> None:
        with cls._lock:
            live = list(cls._live)
        for fill in live:
            fill._thread.join()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_Fill.wait_all)


def query_dataset(store: ox.Store, text: str, default_graph: list[str] | None = None,
                  named_graphs: list[str] | None = None):
    """Evaluate on a pyoxigraph store with the SPARQL Protocol's dataset: the given graphs, else the query's own
    FROM clauses, else the union of all graphs (the one rule the embedded store and the endpoint share)."""
    return store.query(text, **dataset_kwargs(text, default_graph, named_graphs))


def dataset_kwargs(text: str, default_graph: list[str] | None = None, named_graphs: list[str] | None = None) -> dict:
    """The keyword arguments of pyoxigraph's `Store.query` that say `query_dataset`'s dataset (computed apart so
    the endpoint can prepare them before it hands the evaluation to a child process)."""
    from liuyao_kg.store.remote import declares_dataset

    kwargs: dict = {}
    if default_graph:
        kwargs["default_graph"] = [ox.NamedNode(g) for g in default_graph]
    elif not named_graphs and not declares_dataset(text):  # the query's own FROM clauses win
        kwargs["use_default_graph_as_union"] = True
    if named_graphs:
        kwargs["named_graphs"] = [ox.NamedNode(g) for g in named_graphs]
    return kwargs


#: the progress line of a new on-disk store, in English (`KnowledgeGraph(progress=…)` takes another language's)
NEW_STORE = "new store {path}: writing the ontology, rules and passages (once)"


class KnowledgeGraph:
    """The embedded store (pyoxigraph: in memory, or RocksDB on disk): the `CastStore` interface.

    It stores; it never derives (liuyao_kg.load is where casts are derived and written).
    """

    def __init__(self, path: str | Path | None = None, *, read_only: bool = False, progress: bool | str = False):
        """In memory (`path` None) or on disk, in the directory `path`. `read_only` opens an on-disk store without
        its lock (reads only: a read-only directory, or beside a writer). `progress`: say on stderr while a new
        on-disk store is given its layers (seconds, once): True in English, or the line's words in the caller's
        language, {path} standing for the store's directory (the CLI's, in its --lang)."""
        from liuyao_kg.store import StoreAccessError, store_error

        self.path = path
        self.location = str(path) if path is not None else "memory"
        self.read_only = bool(read_only and path is not None)
        self._layer_graphs = [ox.NamedNode(g) for g, _ in LAYERS]
        self._deferred = False  # True while the lazy layers lack what no cast reads (liuyao_kg.ontology.lazy)
        self._completing = threading.Lock()
        self._filling: _Fill | None = None  # the layers being parsed beside derivation (_ensure_layers)
        #: the store holds the package's layers, parsed from its files and not written since (`capabilities`:
        #: "packaged"): casts written into it may be derived by the engine of the package's own rules
        self._pristine = False
        self._raw: ox.Store | None = None
        self._disk_full = False  # a write hit a full disk: close without flushing (see _write_derived)
        self._progress = progress
        try:
            if self.read_only:
                if not Path(path).is_dir():
                    raise StoreAccessError(f"store {path}: no such directory")
                self._raw = _open_read_only(path)
            else:
                self._raw = ox.Store(str(path)) if path is not None else ox.Store()
            if path is not None and not self.read_only:
                self._undo_interrupted_load()
            if not self.read_only:
                self._ensure_layers()
        except OSError as exc:
            self._raw = None
            raise store_error(path, exc) from None
        #: {layer graph: (recorded version, package version)} when the store was written by another rule base
        self.outdated = versioning.outdated_layers(self._raw)  # the version records are in before any thread parses
        if self.outdated:
            warnings.warn(f"store {path}: layer(s) {', '.join(g.rsplit('/', 1)[1] for g in self.outdated)} differ from "
                          f"this package's; its casts were derived with another rule base. Reads work; writes are "
                          f"refused until `liuyao upgrade --store {path}`", versioning.OutdatedStoreWarning,
                          stacklevel=2)

    def _ensure_layers(self) -> None:
        """Give the store the package's layers and their version records, resuming any interrupted first write.

        A store with no layer yet gets every layer *and* its version records in one transaction, so a
        process killed during its first second leaves an empty store, never a half-made one. A store
        that holds no cast but layers that are partial or of another version (left by an older release
        killed mid-write) is simply given this package's layers: no cast was derived with them.
        """
        missing = [g for g, _ in LAYERS if not self._has_graph(g)]
        if len(missing) == len(LAYERS) and self.path is None:
            # a new store in memory cannot outlive a failure: parse straight into it (the scratch store's
            # dump and re-parse below cost most of a `liuyao cast`: benchmarks/cold_start.py), the passages and rules layers without
            # what no cast reads: `store`, `sparql`, `update` and any query that may read it add it first
            from liuyao_kg.ontology.lazy import EAGER_FILES, eager_parts

            eager = eager_parts()
            parts = {g: ([eager[g]] if g in eager else list(layer_bytes(files))) for g, files in LAYERS}
            self._deferred = any(g in eager for g in EAGER_FILES)
            self._raw.extend([q for g, _ in LAYERS for q in versioning.meta_quads(g)])
            # the layers (parsed by pyoxigraph without the GIL) are parsed in a thread while the
            # engine is built from the package's shipped rule base and the cast derived; every read of the store
            # but `has_cast` waits for them (`_ox`), and so does an engine that must read its rules out of it
            self._filling = _Fill(self._raw, [(g, parts[g], g in eager) for g in parts])
            self._pristine = True
            return
        if len(missing) == len(LAYERS):
            self._create_layers()
            return
        load_layers(self._ox, atomic=self.path is not None)
        for graph in missing:
            versioning.record(self._ox, graph)
        stale = versioning.outdated_layers(self._ox)
        if stale and not self._holds_casts():
            versioning.replace_layers(self._ox, stale)

    def _create_layers(self) -> None:
        """A new on-disk store's layers and version records, written in one transaction; a progress line on stderr
        when asked (`progress`): it takes seconds, most of them RocksDB writing the ~150,000 quads of the layers."""
        from liuyao_kg.progress import Progress

        steps = len(LAYERS) + 1  # each layer parsed, then the one write
        said = self._progress if isinstance(self._progress, str) else NEW_STORE
        bar = Progress(said.format(path=self.path), quiet=not self._progress, rate=False)
        bar.update(0, steps)
        scratch = ox.Store()
        for done, (graph, _) in enumerate(LAYERS, 1):
            load_layers(scratch, only_missing=False, atomic=False, skip=tuple(g for g, _ in LAYERS if g != graph))
            bar.update(done, steps)
        scratch.extend([q for g, _ in LAYERS for q in versioning.meta_quads(g)])
        self._ox.load(scratch.dump(format=ox.RdfFormat.N_QUADS), format=ox.RdfFormat.N_QUADS)
        bar.update(steps, steps)
        bar.close()

    @property
    def _ox(self) -> ox.Store | None:
        """The pyoxigraph store, once the layers being parsed in a thread are in (what every reader but `has_cast`
        uses, and an engine that reads its rules out of the store)."""
        fill = self._filling  # read once: another thread may be clearing it
        if fill is not None:
            fill.wait()
            self._filling = None
        return self._raw

    @property
    def store(self) -> ox.Store:
        """The pyoxigraph store, holding every layer whole (whoever uses it directly may read or write anything)."""
        self._complete()
        self._pristine = False
        return self._ox

    #: named queries asked together run in this many threads (queries.run_many): pyoxigraph evaluates without the GIL
    parallel_reads = min(2, os.cpu_count() or 1)

    @property
    def deferring(self) -> bool:
        """True while the passages and rules layers still lack the quads no cast reads (liuyao_kg.ontology.lazy)."""
        return self._deferred

    @property
    def oxigraph(self) -> ox.Store:
        """The pyoxigraph store as it is (while `deferring`, without the layers' deferred parts), for a reader that
        looks quads up itself and completes the layers first where it needs them (queries.native.store_layers)."""
        return self._ox

    def complete_layers(self) -> None:
        """Parse the rest of the lazy layers into a store that deferred it (their quads already there stay)."""
        self._complete()

    def _complete(self) -> None:
        """Parse the rest of the lazy layers into a store that deferred it (their quads already there stay)."""
        if not self._deferred:
            return
        from liuyao_kg.ontology.lazy import EAGER_FILES

        with self._completing:  # a second thread waits for the whole layers rather than reading half of them
            if self._deferred:
                for graph in EAGER_FILES:
                    for data in layer_bytes(dict(LAYERS)[graph]):
                        self._ox.load(data, format=ox.RdfFormat.TURTLE, to_graph=ox.NamedNode(graph))
                self._deferred = False

    def _holds_casts(self) -> bool:
        return bool(self._ox.query(f"ASK {{ GRAPH ?c {{ ?c a <{ns.LYO}Cast> }} }}"))

    def close(self) -> None:
        """Release the store (and, on disk, its lock) so another process or handle can open it."""
        if self._ox is not None and self.path is not None and not self.read_only and not self._disk_full:
            try:
                self._ox.flush()
            except OSError:
                pass  # e.g. disk full: what was committed is on disk; the journal covers the rest
        self._raw = None
        if self.path is not None:
            gc.collect()  # iterators caught in reference cycles may still pin the on-disk store's lock

    def __enter__(self) -> "KnowledgeGraph":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"KnowledgeGraph({self.location!r})"

    def _has_graph(self, graph: str) -> bool:
        # a cast's graph, or a layer before any is parsed in a thread: no need to wait for one (`_ox`)
        return graph_nonempty(self._raw, ox.NamedNode(graph))

    def layers(self) -> dict[str, list[ox.Quad]]:
        """{layer graph: quads} as this store holds them."""
        self._complete()
        return {g: list(self._ox.quads_for_pattern(None, None, None, ox.NamedNode(g))) for g, _ in LAYERS}

    def layer_store(self) -> ox.Store:
        """The pyoxigraph store, its layers whole, to read the layers in place (an engine built from the rules this
        store holds: liuyao_kg.load.engine_for); nothing may be written through it."""
        self._complete()
        return self._ox

    @property
    def capabilities(self) -> frozenset[str]:
        """What this store can do (`CastStore.capabilities`)."""
        caps = {"local", "memory" if self.path is None else "disk"}
        if self.path is not None and not self.read_only:
            caps |= {"bulk", "journal"}
        if self.read_only:
            caps.add("read_only")
        if self._pristine:
            caps.add("packaged")
        return frozenset(caps)

    # -- the CastStore interface --------------------------------------------------------------------------

    def has_cast(self, cast_iri: str) -> bool:
        return self._has_graph(cast_iri)

    def present(self, cast_iris: Iterable[str]) -> set[str]:
        return {iri for iri in dict.fromkeys(cast_iris) if self.has_cast(iri)}

    def layer_versions(self) -> dict[str, str]:
        return versioning.recorded_versions(self._ox)

    def pending(self) -> set[str]:
        return {q.object.value for q in self._ox.quads_for_pattern(None, _PENDING, None, _JOURNAL)}

    def sparql(self, text: str, *, default_graph: list[str] | None = None, named_graphs: list[str] | None = None):
        self._complete()
        return query_dataset(self._ox, text, default_graph, named_graphs)

    def update(self, text: str) -> None:
        self._check_writable()
        self._complete()
        self._pristine = False  # it may change a layer: an engine built later reads the rules the store holds
        self._ox.update(text)

    def _check_writable(self) -> None:
        if self.read_only:
            from liuyao_kg.store import StoreAccessError

            raise StoreAccessError(f"store {self.location} was opened read-only: writes are refused")

    def _check_current(self) -> None:
        if self.outdated:
            raise versioning.OutdatedStoreError(f"store {self.path} is outdated (its layers were written by another "
                                                f"rule base): run `liuyao upgrade --store {self.path}` first")

    def write_cast(self, asserted: list[ox.Quad], inferred: list[ox.Quad]) -> None:
        """Store derived casts: their asserted and inferred quads, in one transaction (every cast in completely or
        not at all; liuyao_kg.load.add_casts derives and writes)."""
        self._check_writable()
        self._check_current()
        if self._deferred:
            from liuyao_kg.ontology.lazy import fits

            if not fits(asserted) or not fits(inferred):
                self._complete()  # the build's analysis (build.lazy) assumed no cast names a layer's node so
        try:
            self._ox.extend(asserted + inferred)
        except OSError as exc:
            raise self._write_error(exc) from None

    def write_derived(self, nquads: bytes | Path, casts: list[str] | None = None) -> None:
        """Store casts derived elsewhere (asserted and inferred quads as N-Quads, of the casts `casts`; bytes, or the
        path of a file: read by the store as it loads, never whole into memory).

        In memory, or without `casts`: one transaction. On disk: RocksDB's bulk loader, which writes
        sorted files instead of a transaction (faster, and unlike a transactional write it does not slow down as
        the store grows: benchmarks/load.py). The bulk loader promises no atomicity, so the chunk
        is journaled: its casts are recorded as pending in one transaction before and cleared in one
        after; a store opened with pending casts removes them first (`_undo_interrupted_load`), so
        after a crash every cast is in completely or not at all. An OSError (disk full, read-only
        file system) becomes a StoreError after the chunk is taken out again (on a full disk without a
        flush: the journal redoes whatever did not reach the disk at the next open).
        """
        self._check_writable()
        self._check_current()
        self._complete()  # quads from elsewhere may name anything
        try:
            self._write_derived(nquads, casts)
        except OSError as exc:
            raise self._write_error(exc) from None

    def replace_inferred(self, nquads: Path, casts: list[str]) -> int:
        """Replace the inferred graphs of `casts` (already in the store) by the quads of an N-Quads file derived
        elsewhere, each cast's quads together (`liuyao upgrade` in partitions; the file is read a
        cast at a time). Each cast's graph changes by one update: the quads no longer derived deleted, the new ones
        inserted, so a cast is wholly old or wholly new, and a cast whose graph is unchanged costs no write (an
        upgrade changes few of a cast's quads: removing whole graphs and bulk-loading them again was slower,
        benchmarks/upgrade.py). An outdated store is what it writes into: no `_check_current`.
        Returns how many casts' graphs changed."""
        self._check_writable()
        self._complete()
        wanted, changed = dict.fromkeys(casts), 0
        try:
            graph, quads = None, []
            for q in ox.parse(path=nquads, format=ox.RdfFormat.N_QUADS):
                if q.graph_name != graph:
                    if graph is not None:
                        changed += self._rewrite_graph(graph, quads, wanted)
                    graph, quads = q.graph_name, []
                quads.append(q)
            if graph is not None:
                changed += self._rewrite_graph(graph, quads, wanted)
            for cast in list(wanted):  # derived nothing now
                changed += self._rewrite_graph(ox.NamedNode(inferred_graph(cast)), [], wanted)
        except OSError as exc:
            raise self._write_error(exc) from None
        return changed

    def _rewrite_graph(self, graph: ox.NamedNode, quads: list[ox.Quad], wanted: dict) -> bool:
        """One cast's inferred graph made `quads` by one update (replace_inferred); whether it changed."""
        cast = graph.value.removesuffix("/inferred")
        if graph.value == cast or cast not in wanted:  # another graph, a cast not asked for, or one seen already
            raise ValueError(f"{graph}: not the inferred graph of a cast being replaced (or its quads not together)")
        del wanted[cast]
        old = set(self._ox.quads_for_pattern(None, None, None, graph))
        new = set(quads)
        gone, added = old - new, new - old
        if not gone and not added:
            return False
        if any(isinstance(t, ox.BlankNode) for q in gone for t in (q.subject, q.object)):
            # DELETE DATA takes no blank node: the graph is dropped and written whole, in the same update
            parts, added = [f"DROP SILENT GRAPH {graph}"], new
        else:
            parts = [f"DELETE DATA {{ GRAPH {graph} {{ {' . '.join(str(q.triple) for q in gone)} }} }}"] if gone else []
        if added:
            parts.append(f"INSERT DATA {{ GRAPH {graph} {{ {' . '.join(str(q.triple) for q in added)} }} }}")
        self._ox.update(" ;\n".join(parts))
        return True

    def _write_error(self, exc: OSError) -> Exception:
        from liuyao_kg.store import is_disk_full, store_error

        if is_disk_full(exc):
            # no flush from now on, not even close's: RocksDB's flush on a full disk can wait forever (a load
            # hung so in CI); what was not written is redone from the journal at the next open
            self._disk_full = True
        return store_error(self.path, exc, "write")

    def _write_derived(self, nquads: bytes | Path, casts: list[str] | None) -> None:
        path, data = (nquads, None) if isinstance(nquads, Path) else (None, nquads)
        if self.path is None or casts is None:
            self._ox.load(data, format=ox.RdfFormat.N_QUADS, path=path)
            if self.path is not None:
                self._ox.flush()  # write the memtables out: else a long load's memory grows with the file
            return
        import uuid  # here: it imports `platform`, which `liuyao cast` need not pay for (benchmarks/cold_start.py)

        chunk = ox.NamedNode(f"{GRAPH_JOURNAL}/{uuid.uuid4().hex}")
        self._ox.extend([ox.Quad(chunk, _PENDING, ox.NamedNode(c), _JOURNAL) for c in casts])
        try:
            if path is None:
                self._ox.bulk_load(data, format=ox.RdfFormat.N_QUADS)
            else:
                self._ox.bulk_load(path=path, format=ox.RdfFormat.N_QUADS)
        except Exception as exc:
            from liuyao_kg.store import is_disk_full

            try:
                # take the chunk out now, not at the next open; on a full disk without flushing (see _write_error)
                self._undo_interrupted_load(flush=not is_disk_full(exc))
            except OSError:
                pass  # the journal still names the chunk: the next open removes it
            raise
        # one update, so the chunk's casts leave the journal together (the IRI is minted here, not input)
        self._ox.update(f"DELETE WHERE {{ GRAPH {_JOURNAL} {{ {chunk} {_PENDING} ?cast }} }}")
        # no flush: the bulk loader wrote files, not memtables (a flush per chunk only cost time)

    def _undo_interrupted_load(self, flush: bool = True) -> None:
        """Remove the casts of a chunk whose bulk load did not finish (see write_derived); `flush=False` leaves
        the removal in RocksDB's log and memtable (visible at once, durable by the log, or else redone from
        the journal at the next open)."""
        pending = self.pending()
        if not pending:
            return
        for cast in sorted(pending):
            for graph in (cast, inferred_graph(cast)):
                self._ox.remove_graph(ox.NamedNode(graph))
        self._ox.remove_graph(_JOURNAL)
        if flush:
            self._ox.flush()
        warnings.warn(f"store {self.path}: a batch load stopped while writing {len(pending)} cast(s); they were "
                      f"removed (load the file again to add them)", InterruptedLoadWarning, stacklevel=3)

    def cast_graph(self, cast_iri: str, inferred: bool = True) -> list[ox.Quad]:
        """The quads of one cast: asserted, and inferred when asked."""
        graphs = [cast_iri] + ([inferred_graph(cast_iri)] if inferred else [])
        return [q for g in graphs for q in self._ox.quads_for_pattern(None, None, None, ox.NamedNode(g))]

    def select(self, text: str, bindings: dict[str, ox.NamedNode | ox.Literal] | None = None) -> list[dict]:
        """Run a SELECT over the union of all graphs; return rows as {var: python value}.

        Parameters are bound as SPARQL SEP-0007 substitutions: the value replaces the variable, so it is
        pushed into every pattern and can never become query syntax. An IRI is written into the WHERE group
        as a term (`sparql.text.inline_iris`: pyoxigraph plans before it substitutes, and would plan as if
        `?cast` were unknown); a literal, or an IRI where that rewriting does not apply, goes through
        pyoxigraph's `substitutions`. Named queries project their parameters, as SEP-0007 requires.
        """
        if self._deferred:
            from liuyao_kg.ontology.lazy import needs_deferred

            if needs_deferred(text):
                self._complete()
        cast = (bindings or {}).get("cast")
        if isinstance(cast, ox.NamedNode):
            # A query about one cast reads only that cast's graphs and the fixed layers, so its cost
            # does not grow with the number of casts in the store.
            dataset = {"default_graph": [cast, ox.NamedNode(inferred_graph(cast.value))] + self._layer_graphs}
        else:
            dataset = {"use_default_graph_as_union": True}
        inlined = inline_iris(text, bindings) if bindings else None  # IRIs where the planner sees them
        if inlined is not None:
            text, bindings = inlined
        subs = {ox.Variable(k): v for k, v in (bindings or {}).items()}
        result = self._ox.query(text, substitutions=subs or None, **dataset)
        names = [v.value for v in result.variables]
        return [{n: _py(row[n]) for n in names} for row in result]


def _py(term):
    if term is None:
        return None
    if isinstance(term, ox.Literal):
        dt = term.datatype.value
        if dt.endswith(("#integer", "#int", "#long", "#short", "#nonNegativeInteger", "#positiveInteger")):
            return int(term.value)
        if dt.endswith("#boolean"):
            return term.value in ("true", "1")
        return term.value
    return term.value


#: a read-only open that finds a file the writer's compaction just removed is tried again this many times
READ_ONLY_ATTEMPTS = 8
#: how a store is opened without its lock (a name of its own, so a test can stand in for RocksDB's race)
_store_read_only = ox.Store.read_only


def _open_read_only(path) -> ox.Store:
    """The store at `path` opened without its lock, beside a process that may be writing it.

    RocksDB opens read-only from the file list in the MANIFEST; a writer compacting meanwhile (`liuyao serve`
    just after it opened the store, a `load`) may delete a file that list names, and the open then fails with
    "Corruption … No such file or directory" though nothing is corrupt (seen in CI: `query --read-only` beside
    `serve`). Opening again reads the new MANIFEST; a store that still fails after a few tries is reported."""
    from liuyao_kg.store import StoreError

    for attempt in range(1, READ_ONLY_ATTEMPTS + 1):
        try:
            return _store_read_only(str(path))
        except RuntimeError as exc:  # RocksDB's errors; an OSError goes to the caller's store_error
            text = " ".join(str(exc).split())
            if "No such file or directory" not in text:
                raise StoreError(f"store {path}: cannot open it read-only: {text[:200]}") from None
            if attempt == READ_ONLY_ATTEMPTS:
                raise StoreError(f"store {path}: cannot open it read-only: its files kept changing under another "
                                 f"process writing it (tried {READ_ONLY_ATTEMPTS} times); try again") from None
            time.sleep(0.05 * attempt)
