"""Derivation, in one place: the only code that builds a rule engine and turns casts into derived graphs.

Every store adapter (embedded memory or disk, remote endpoint), the batch loader's worker processes,
`upgrade` and `never-fired` get their engine from :func:`build_engine`, so an option such as
``backend="oxigraph"`` or ``chapter_rules=False`` means the same thing everywhere (before, three copies of
this code had drifted: worker processes ignored the backend and `serve --endpoint` broke).

Stores only read and write quads; they never derive. The flow is one way:
casts → :func:`derive_casts` (asserted + inferred N-Quads) → ``store.write_derived``.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

import pyoxigraph as ox

from liuyao_kg import namespaces as ns

BACKENDS = ("native", "oxigraph")
#: what derives unless asked otherwise: the rules compiled to Python (reasoner/native), the same quads as the
#: reference (pyoxigraph, `backend="oxigraph"`; tests/test_native_engine.py compares them)
DEFAULT_BACKEND = "native"


def check_backend(backend: str) -> str:
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: one of {', '.join(repr(b) for b in BACKENDS)}")
    return backend


def build_engine(layers: Mapping[str, list[ox.Quad]] | None = None, *, chapter_rules: bool = True,
                 backend: str = DEFAULT_BACKEND, store: ox.Store | None = None, packaged: bool = False):
    """An engine for the rule base of `layers` ({layer graph: quads}; default: the package's own).

    A store passes its own layers, so a store whose rules were changed derives with those rules
    (what `upgrade` and its tests rely on): as `layers`, or as the pyoxigraph `store` holding them in their
    graphs, where the rules are read in place (copying the rules graph out and into a scratch store to
    query it cost ~60 ms of every `liuyao cast`). `chapter_rules=False`: the chart states only (no
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
    from liuyao_kg.reasoner.native.engine import NativeEngine, StaleCompiledRules

    try:
        return NativeEngine(rules, reference, rule_plan=plan)
    except StaleCompiledRules as exc:
        if packaged:
            import warnings

            warnings.warn(f"deriving on pyoxigraph: {exc}", RuntimeWarning, stacklevel=3)
        return None


def _whole_reference(store: ox.Store | None, layers: Mapping[str, list[ox.Quad]] | None) -> bytes | list[ox.Quad]:
    """The ontology and reference of a store (as the N-Triples it dumps: no Python object per quad, ~25 ms of
    every `liuyao cast`), of `layers`, or of the package's files (quads)."""
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


__all__ = ["BACKENDS", "DEFAULT_BACKEND", "build_engine", "derive_casts", "derive_quads", "check_backend"]
