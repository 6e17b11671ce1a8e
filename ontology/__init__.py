"""The ontology's layers: which of the package's files make each named graph, their quads, and their versions.

Every store, engine and generator learns what the package's layers are here (and nowhere else). The layers are the
T-box, the reference individuals, the rule base and the passages, each a named graph of its own; a cast's graphs are
`<cast>` and `<cast>/inferred` (namespaces.inferred_graph).
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import cache
from importlib import resources
from pathlib import Path

import pyoxigraph as ox

from liuyao_kg import namespaces as ns

#: the generated speed caches (python -m liuyao_kg.build): what a new store parses first and the analysed rule base
#: an engine starts from, each used only while the layer files are those it was built from
COMPILED = Path(__file__).resolve().parent / "compiled"

#: (graph IRI, resource files in liuyao_kg.ontology) for the fixed layers of the store.
LAYERS = (
    (ns.GRAPH_ONTOLOGY, ("lyo.ttl", "external.ttl")),  # external.ttl: the reused terms lyo.ttl imports
    (ns.GRAPH_REFERENCE, ("reference.ttl", "reading-tables.ttl")),
    (ns.GRAPH_RULES, ("rules/chart.ttl", "rules/relations.ttl", "rules/line-states.ttl", "rules/cast-states.ttl",
                      "rules/shensha.ttl", "rules/chapters.ttl", "rules/reading.ttl",
                      "conflicts.ttl")),  # the register of the schools' conflicts (conflicts.yaml)
    (ns.GRAPH_PASSAGES, ("passages.ttl", "chapter-passages.ttl")),
)


def layer_bytes(files: Iterable[str]) -> Iterable[bytes]:
    """The bytes of the package's files (names as in LAYERS)."""
    base = resources.files("liuyao_kg.ontology")
    for name in files:
        yield base.joinpath(name).read_bytes()


def graph_nonempty(store: ox.Store, g: ox.NamedNode) -> bool:
    return next(iter(store.quads_for_pattern(None, None, None, g)), None) is not None


def load_layers(store: ox.Store, *, only_missing: bool = True, atomic: bool = True, skip: tuple = ()) -> None:
    """Parse the package's Turtle files into their layer graphs of a pyoxigraph store (natively: no Python term
    objects).

    pyoxigraph applies each `load` as one transaction. With `atomic`, a layer made of several files
    is first parsed into a scratch store and written with a single load, so a persistent store never
    holds half a layer; an in-memory store, which cannot outlive a failure, skips that step.
    """
    for graph, files in LAYERS:
        g = ox.NamedNode(graph)
        if graph in skip or only_missing and graph_nonempty(store, g):
            continue
        target = ox.Store() if atomic and len(files) > 1 else store
        for data in layer_bytes(files):
            target.load(data, format=ox.RdfFormat.TURTLE, to_graph=g)
        if target is not store:
            store.load(target.dump(format=ox.RdfFormat.N_QUADS), format=ox.RdfFormat.N_QUADS)


def layer_quads(graphs: Iterable[str] | None = None) -> dict[str, list[ox.Quad]]:
    """Quads of the fixed layers (`graphs`, default every one), parsed from the package's Turtle files into a
    store, as a store holds them (its literals canonical: `"1"^^xsd:nonNegativeInteger` reads as xsd:integer).

    The store is a scratch one, so not loaded atomically (each layer of several files parsed, dumped and loaded
    again costs twice as much; benchmarks/cold_start.py)."""
    wanted = None if graphs is None else set(graphs)
    skip = tuple(graph for graph, _ in LAYERS if wanted is not None and graph not in wanted)
    store = ox.Store()
    load_layers(store, atomic=False, skip=skip)
    return {graph: list(store.quads_for_pattern(None, None, None, ox.NamedNode(graph)))
            for graph, _ in LAYERS if graph not in skip}


@cache
def package_versions() -> dict[str, str]:
    """{layer graph IRI: "sha256:<hex>"} for the package's files: any change to a rule, a label or a passage changes
    its layer's version (stores record it: liuyao_kg.store.versioning)."""
    base = resources.files("liuyao_kg.ontology")
    out = {}
    for graph, files in LAYERS:
        h = hashlib.sha256()
        for name in files:
            h.update(name.encode() + b"\0")
            h.update(base.joinpath(name).read_bytes())
            h.update(b"\0")
        out[graph] = "sha256:" + h.hexdigest()
    return out
