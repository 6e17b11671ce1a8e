"""Every engine, in one place: the Engine protocol, the registry of engines, the one builder and its one cache.

An engine derives casts: given their asserted quads (a named graph each), it returns the inferred quads. Two are
registered: the native one (the rules compiled to Python, reasoner/native), the default; and the reference, the
rules' SPARQL on pyoxigraph (reasoner/engine.py), which the native one is tested equal to. Whatever derives (a
store's load, a worker process, `upgrade`, `never-fired`) gets its engine here, so `backend="oxigraph"` or
`chapter_rules=False` mean the same everywhere. The reasoner knows no store: a store's rules reach it as quads, or
as the pyoxigraph store holding them; liuyao_kg.load is where an engine meets a store.
"""
from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Protocol, runtime_checkable

import pyoxigraph as ox

from liuyao_kg import namespaces as ns


@runtime_checkable
class Engine(Protocol):
    """What derives: the inferred quads of casts given as their asserted quads (one named graph per cast)."""

    def derive(self, cast_quads: Iterable[ox.Quad]) -> list[ox.Quad]: ...


@dataclass(frozen=True)
class EngineSpec:
    """A registered engine: its `role` ("fast": what derives by default; "reference": what the fast one is tested
    equal to, tests/reasoner/test_native_engine.py), the casts a load derives together with it (`batch`: the
    native engine's partition, the reference's chunk; liuyao_kg.load), whether it derives a cast at a time
    (`per_cast`) or a batch in one evaluation of each rule (so a load gives it batches of one topic: a chapter rule runs
    only on a batch holding its topic), and what `--backend` help says of it."""

    name: str
    role: str
    batch: int
    per_cast: bool
    summary: str


#: the engines, by the name `--backend` takes
REGISTRY = {
    # a partition only bounds what a worker holds (each cast is derived alone); a chunk is one evaluation of each
    # rule, and per cast 50 was the cheapest of 10/50/100/200/500 (benchmarks/bench.py chunk sweep)
    "native": EngineSpec("native", "fast", 500, True, "the rules compiled to Python from their data, a cast at a time"),
    "oxigraph": EngineSpec("oxigraph", "reference", 50, False,
                           "the reference: the rules' SPARQL on pyoxigraph, a chunk at a time"),
}
BACKENDS = tuple(REGISTRY)
#: what derives unless asked otherwise: the rules compiled to Python (reasoner/native), the same quads as the
#: reference (pyoxigraph, `backend="oxigraph"`; tests/reasoner/test_native_engine.py compares them)
DEFAULT_BACKEND = "native"


def check_backend(backend: str) -> str:
    """`backend`, or a ValueError naming the registered ones."""
    if backend not in REGISTRY:
        raise ValueError(f"unknown backend {backend!r}: one of {', '.join(repr(b) for b in BACKENDS)}")
    return backend


def build_engine(layers: Mapping[str, list[ox.Quad]] | None = None, *, chapter_rules: bool = True,
                 backend: str = DEFAULT_BACKEND, store: ox.Store | None = None, packaged: bool = False):
    """An engine for the rule base of `layers` ({layer graph: quads}; default: the package's own).

    A store passes its own layers, so a store whose rules were changed derives with those rules
    (what `upgrade` and its tests rely on): as `layers`, or as the pyoxigraph `store` holding them in their
    graphs, where the rules are read in place (copying the rules graph out and into a scratch store to
    query it cost every `liuyao cast` time: benchmarks/cold_start.py). `chapter_rules=False`: the chart states only (no
    judgments). `backend="native"` (the default) runs the rules compiled to Python when the compiled module was
    built from exactly these rules, and the reference engine otherwise (a store whose rules were changed);
    `backend="oxigraph"` is the reference itself, SPARQL on pyoxigraph. `packaged`: the store (if any) holds the
    package's own layers as its files are, untouched, so the engine may take the rule base shipped for those files
    (reasoner/rule_base.py) when that was built from them, as the package's own layers do by default, with the
    part of the reference its rules read.
    """
    from liuyao_kg.reasoner.engine import Engine, load_rules

    check_backend(backend)
    start = None
    if packaged or (layers is None and store is None):
        from liuyao_kg.reasoner import rule_base

        start = rule_base.current()
    if start is not None:
        rules, reference = start.rules, start.reference
    elif store is not None:
        rules, reference = load_rules(store, ns.GRAPH_RULES), _whole_reference(store, None)
    else:
        if layers is None:
            from liuyao_kg.ontology import layer_quads

            layers = layer_quads((ns.GRAPH_ONTOLOGY, ns.GRAPH_REFERENCE, ns.GRAPH_RULES))  # no rule reads the passages
        rules_store = ox.Store()
        rules_store.extend(layers[ns.GRAPH_RULES])
        rules, reference = load_rules(rules_store, ns.GRAPH_RULES), _whole_reference(None, layers)
    if not chapter_rules:
        rules = [r for r in rules if not r.chapter]
    plan = None if start is None else start.plans[chapter_rules]
    if backend == "native":
        native = _native(rules, reference, plan, packaged=start is not None)
        if native is not None:
            return native
    if start is not None:  # its plan, and its reference already kept
        return Engine(rules, reference, rule_plan=start.plans[chapter_rules], reference_keys=start.reference_keys)
    return Engine(rules, reference)


def _native(rules, reference, plan, *, packaged: bool):
    """The native engine for these rules, or None when the compiled module was not built from them: a store's
    changed rules (quietly: the reference engine is the one for them), or the package's own after a rule was
    edited without rebuilding (with a warning naming the build command)."""
    from liuyao_kg.reasoner.native import StaleCompiledRules
    from liuyao_kg.reasoner.native.engine import NativeEngine

    try:
        return NativeEngine(rules, reference, rule_plan=plan)
    except StaleCompiledRules as exc:
        if packaged:
            import warnings

            warnings.warn(f"deriving on pyoxigraph: {exc}", RuntimeWarning, stacklevel=3)
        return None


def _whole_reference(store: ox.Store | None, layers: Mapping[str, list[ox.Quad]] | None) -> bytes | list[ox.Quad]:
    """The ontology and reference of a store (as the N-Triples it dumps: no Python object per quad, which
    `liuyao cast` would pay for; benchmarks/cold_start.py), of `layers`, or of the package's files (quads)."""
    if store is not None:
        return b"".join(store.dump(format=ox.RdfFormat.N_TRIPLES, from_graph=ox.NamedNode(g))
                        for g in (ns.GRAPH_ONTOLOGY, ns.GRAPH_REFERENCE))
    if layers is None:
        from liuyao_kg.ontology import layer_quads

        layers = layer_quads((ns.GRAPH_ONTOLOGY, ns.GRAPH_REFERENCE))
    return list(layers[ns.GRAPH_ONTOLOGY]) + list(layers[ns.GRAPH_REFERENCE])


def derive_quads(engine, asserted: Iterable[ox.Quad]) -> list[ox.Quad]:
    """The inferred quads of casts given as their asserted quads (one named graph per cast)."""
    return engine.derive(list(asserted))


def derive_casts(engine, casts) -> bytes:
    """N-Quads of the asserted and inferred graphs of a chunk of CastInputs: what a store writes.

    This is the batch loader's one derivation step (another derivation path can replace it: it takes
    casts and returns their derived graphs as N-Quads).
    """
    from liuyao_kg.loaders.rdf import cast_quads

    asserted = [q for ci in casts for q in cast_quads(ci)]
    return ox.serialize(asserted + engine.derive(asserted), format=ox.RdfFormat.N_QUADS)


class RuleSource:
    """The rules and reference an engine derives with: the package's own (the default; only a key, so a worker
    process or a Dask worker builds its engine from its own installed package) or given layers ({graph: quads} of
    the ontology, reference and rules: a store's, `of_layers`), with `chapter_rules`."""

    #: the layer graphs an engine reads: the ontology, the reference and the rules (no rule reads the passages)
    GRAPHS = (ns.GRAPH_ONTOLOGY, ns.GRAPH_REFERENCE, ns.GRAPH_RULES)

    def __init__(self, chapter_rules: bool = True, layers: dict | None = None, digest: str = "package"):
        self.chapter_rules, self.layers, self.digest = chapter_rules, layers, digest

    @property
    def key(self) -> tuple:
        return (self.chapter_rules, self.digest)

    @classmethod
    def of_layers(cls, layers: Mapping[str, list[ox.Quad]], chapter_rules: bool = True) -> "RuleSource":
        """The source of these layers (read once, by the caller); one holding the package's own rules and reference
        is the package's source (which any process can build)."""
        layers = {g: quads for g, quads in layers.items() if g in cls.GRAPHS}
        digest = _layers_digest(layers)
        if digest == _package_digest():
            return cls(chapter_rules)
        return cls(chapter_rules, layers, digest)

    def __reduce__(self):  # to a Dask worker: the package's rules are its own; a store's layers are never sent
        if self.layers is not None:
            raise TypeError("a store's rules derive in this process only (no --cluster with --store)")
        return (RuleSource, (self.chapter_rules,))


def _layers_digest(layers: Mapping[str, list[ox.Quad]]) -> str:
    """A digest of the layers' quads, equal for equal graphs: the quads that touch a blank node are canonicalized
    first (RDF Dataset Canonicalization, pyoxigraph's), since a blank node's id differs each time a file is parsed
    (a store's ontology, written by another process, would otherwise never equal the package's)."""
    digest = hashlib.sha256()
    for g in sorted(layers):
        plain, blank = [], []
        for q in layers[g]:
            (blank if isinstance(q.subject, ox.BlankNode) or isinstance(q.object, ox.BlankNode) else plain).append(q)
        if blank:
            canonical = ox.Dataset(blank)
            canonical.canonicalize(ox.CanonicalizationAlgorithm.UNSTABLE)  # stable within one pyoxigraph version
            blank = list(canonical)
        digest.update(g.encode() + b"\n" + "\n".join(sorted(map(str, plain + blank))).encode() + b"\n")
    return digest.hexdigest()


@cache
def _package_digest() -> str:
    from liuyao_kg.ontology import layer_quads

    return _layers_digest(layer_quads(RuleSource.GRAPHS))


#: the engines built, by (RuleSource.key, backend): each process builds one per rule base and backend, used by every
#: cast it derives from then on (a load's partitions, a worker's chunks, the stores holding the package's layers)
_ENGINES: dict = {}
_BUILDING = threading.Lock()  # an engine is built once, whichever thread asks first


def engine(source: RuleSource | None = None, backend: str = DEFAULT_BACKEND):
    """The engine of `source` (default: the package's rules, with the chapter rules) and `backend`, built once per
    process (`build_engine`) and kept."""
    source = source or RuleSource()
    key = (source.key, check_backend(backend))
    found = _ENGINES.get(key)
    if found is None:
        with _BUILDING:
            found = _ENGINES.get(key)
            if found is None:
                packaged = source.layers is None
                found = _ENGINES[key] = build_engine(source.layers, chapter_rules=source.chapter_rules,
                                                     backend=backend, packaged=packaged)
    return found


__all__ = ["BACKENDS", "DEFAULT_BACKEND", "REGISTRY", "Engine", "EngineSpec", "RuleSource", "build_engine", "engine",
           "derive_casts", "derive_quads", "check_backend"]
