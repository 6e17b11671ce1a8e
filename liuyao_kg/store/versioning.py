"""Versions of the fixed layers (ontology, reference, rules, passages) recorded in the store.

A layer's version is the SHA-256 of the package's Turtle files for it (names and bytes, in order), so
any change to a rule, a label or a passage changes it. When a store is first given a layer, a
description of it goes to the metadata graph ``…/graph/meta``::

    GRAPH <…/graph/meta> {
      <…/graph/rules> a prov:Entity ;
          dcterms:hasVersion "sha256:…" ;          # content hash of the package files
          owl:versionInfo "0.1.0" ;                 # the liuyao-kg release that wrote it
          dcterms:source "rules/chart.ttl", … ;
          prov:generatedAtTime "…"^^xsd:dateTime .
    }

A store whose recorded version differs from the package's (or that predates versioning and records
none) is *outdated*: its casts were derived with another rule base. Opening it warns
(:class:`OutdatedStoreWarning`); writing casts into it raises :class:`OutdatedStoreError` — new casts
would be derived with the store's old rules and silently disagree with a fresh store. ``liuyao upgrade
--store PATH`` (:mod:`liuyao_kg.load.upgrade`) brings it up to date.
"""
from __future__ import annotations

from datetime import datetime, timezone

import pyoxigraph as ox

from liuyao_kg.version import __version__
from liuyao_kg import namespaces as ns
from liuyao_kg.ontology import LAYERS, layer_quads, package_versions

GRAPH_META = ns.GRAPH + "meta"
_META = ox.NamedNode(GRAPH_META)
_HAS_VERSION = ox.NamedNode(ns.DCTERMS + "hasVersion")
_SOURCE = ox.NamedNode(ns.DCTERMS + "source")
_VERSION_INFO = ox.NamedNode(ns.OWL + "versionInfo")
_GENERATED = ox.NamedNode(ns.PROV + "generatedAtTime")
_TYPE = ox.NamedNode(ns.RDF + "type")
_ENTITY = ox.NamedNode(ns.PROV + "Entity")


class OutdatedStoreWarning(UserWarning):
    """The store's layers were written by another rule base; run `liuyao upgrade --store PATH`."""


class OutdatedStoreError(RuntimeError):
    """Refused to write casts into an outdated store; run `liuyao upgrade --store PATH`."""


def recorded_versions(store: ox.Store) -> dict[str, str]:
    """{layer graph IRI: recorded version} as the store's metadata graph says."""
    return {q.subject.value: q.object.value
            for q in store.quads_for_pattern(None, _HAS_VERSION, None, _META)}


def outdated_layers(store: ox.Store) -> dict[str, tuple[str | None, str]]:
    """{layer graph IRI: (recorded version or None, package version)} for every layer that differs."""
    recorded = recorded_versions(store)
    return {g: (recorded.get(g), v) for g, v in package_versions().items() if recorded.get(g) != v}


def meta_quads(graph: str, version: str | None = None) -> list[ox.Quad]:
    """The metadata of one layer as loaded from this package (version defaults to the package's)."""
    files = dict(LAYERS)[graph]
    s = ox.NamedNode(graph)
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    quads = [ox.Quad(s, _TYPE, _ENTITY, _META),
             ox.Quad(s, _HAS_VERSION, ox.Literal(version or package_versions()[graph]), _META),
             ox.Quad(s, _VERSION_INFO, ox.Literal(__version__), _META),
             ox.Quad(s, _GENERATED, ox.Literal(now, datatype=ox.NamedNode(ns.XSD + "dateTime")), _META)]
    quads += [ox.Quad(s, _SOURCE, ox.Literal(f), _META) for f in files]
    return quads


def record(store: ox.Store, graph: str, version: str | None = None) -> None:
    """Replace the recorded metadata of one layer (one atomic update)."""
    old = list(store.quads_for_pattern(ox.NamedNode(graph), None, None, _META))
    store.update(_replace_update(old, meta_quads(graph, version)))


def _replace_update(remove: list[ox.Quad], add: list[ox.Quad]) -> str:
    parts = []
    if remove:
        parts.append("DELETE DATA { " + " ".join(f"GRAPH {q.graph_name} {{ {q.triple} }}" for q in remove) + " }")
    if add:
        parts.append("INSERT DATA { " + " ".join(f"GRAPH {q.graph_name} {{ {q.triple} }}" for q in add) + " }")
    return " ;\n".join(parts) or "CLEAR SILENT GRAPH <urn:liuyao-kg:nothing>"


def replace_layer(store: ox.Store, graph: str, quads: list[ox.Quad]) -> tuple[int, int]:
    g = ox.NamedNode(graph)
    old = set(store.quads_for_pattern(None, None, None, g))
    new = set(quads)
    gone, added = old - new, new - old
    if added:
        store.extend(added)  # add first: the layer is never missing, even if interrupted
    for q in gone:
        store.remove(q)
    return len(gone), len(added)


def replace_layers(store: ox.Store, outdated, layers: dict[str, list[ox.Quad]] | None = None) -> dict[str, tuple[int, int]]:
    """Replace the given layer graphs by the package's and record their versions; {graph: (removed, added)}.

    Alone, this is the whole upgrade of a store that holds no cast (nothing to re-derive): what a store
    left half-made by a process killed during its first layer write needs (KnowledgeGraph does it on open).
    """
    layers = layers if layers is not None else layer_quads()
    changed = {graph: replace_layer(store, graph, layers[graph]) for graph in outdated}
    for graph in outdated:
        record(store, graph)
    return changed
