"""A cast's RDF in the formats other tools read: Turtle (one graph), TriG / N-Quads (named graphs), JSON-LD.

Turtle has no named graphs, so `turtle` merges the chosen layers (asserted, inferred or both) into one
graph — what `rapper -i turtle`, rdflib and Protégé open. `trig` and `nquads` keep the cast's two named
graphs apart. JSON-LD is compacted with the project's published context (ontology/context.jsonld,
also served at /api/context.jsonld); the context is embedded so no parser has to fetch it.
"""
from __future__ import annotations

import json
from functools import cache
from importlib import resources

import pyoxigraph as ox

from liuyao_kg.namespaces import PREFIXES
from liuyao_kg.namespaces import inferred_graph

FORMATS = ("turtle", "trig", "nquads", "json-ld")
LAYER_CHOICES = ("all", "asserted", "inferred")


@cache
def context() -> dict:
    """The published JSON-LD context (prefixes of namespaces.PREFIXES and the cast vocabulary's terms)."""
    return json.loads(resources.files("liuyao_kg.ontology").joinpath("context.jsonld").read_text("utf-8"))


def cast_quads(kg, cast_iri: str, layers: str = "all") -> list[ox.Quad]:
    if layers not in LAYER_CHOICES:
        raise ValueError(f"layers {layers!r}: one of {', '.join(LAYER_CHOICES)}")
    quads = kg.cast_graph(cast_iri, inferred=layers != "asserted")  # the embedded store or a remote endpoint
    if layers == "inferred":
        quads = [q for q in quads if q.graph_name.value == inferred_graph(cast_iri)]
    return quads


def serialize_quads(quads: list[ox.Quad], fmt: str) -> str:
    """Quads in `fmt` (one of FORMATS); Turtle drops the graph names (a union of the graphs given).

    The quads are written sorted (by graph, subject, predicate, object), so the same graphs read the same
    whatever order a store or an engine produced them in; blank nodes, if any, are first relabelled by
    RDFC-1.0 (a store's own labels are random), so every format is the same bytes for the same graphs."""
    quads = _canonical(quads)
    if fmt == "turtle":
        triples = {ox.Triple(q.subject, q.predicate, q.object) for q in quads}
        return ox.serialize(sorted(triples, key=str), format=ox.RdfFormat.TURTLE, prefixes=PREFIXES).decode()
    quads = sorted(quads, key=lambda q: (str(q.graph_name), str(q.subject), str(q.predicate), str(q.object)))
    if fmt == "trig":
        return ox.serialize(quads, format=ox.RdfFormat.TRIG, prefixes=PREFIXES).decode()
    if fmt == "nquads":
        return ox.serialize(quads, format=ox.RdfFormat.N_QUADS).decode()
    if fmt == "json-ld":
        return _jsonld(quads)
    raise ValueError(f"unknown format {fmt!r}: one of {', '.join(FORMATS)}")


def cast_rdf(kg, cast_iri: str, fmt: str, layers: str = "all") -> str:
    return serialize_quads(cast_quads(kg, cast_iri, layers), fmt)


def _canonical(quads: list[ox.Quad]) -> list[ox.Quad]:
    """The quads with their blank nodes relabelled by RDFC-1.0 (unchanged when there are none: a cast's graphs
    name every node)."""
    def blank(q: ox.Quad) -> bool:
        return any(isinstance(t, ox.BlankNode) for t in (q.subject, q.object, q.graph_name))

    if not any(map(blank, quads)):
        return quads
    ds = ox.Dataset(quads)
    ds.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)
    return list(ds)


def _jsonld(quads: list[ox.Quad]) -> str:
    """Compacted JSON-LD, one named graph per cast layer, by rdflib's serializer, with the context embedded.

    rdflib writes a graph's nodes and a property's values in the order of its hash sets, which differs between
    processes, so the document is put in order afterwards: keys sorted, and every array that is a set (all but
    an ``@list``) sorted by its members' own JSON. Blank-node labels are kept as the quads have them."""
    import rdflib

    ds = rdflib.Dataset()
    blanks = {t.value: rdflib.BNode(t.value) for q in quads for t in (q.subject, q.object, q.graph_name)
              if isinstance(t, ox.BlankNode)}
    ds.parse(data=ox.serialize(quads, format=ox.RdfFormat.N_QUADS).decode(), format="nquads", bnode_context=blanks)
    ctx = context()["@context"]
    doc = json.loads(ds.serialize(format="json-ld", context=ctx, auto_compact=True))
    doc["@context"] = ctx
    return json.dumps(_ordered(doc), ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def _ordered(node, key: str | None = None):
    """A JSON-LD value with its unordered arrays sorted (recursively); an ``@list`` keeps its order."""
    if isinstance(node, dict):
        return {k: _ordered(v, k) for k, v in node.items()}
    if isinstance(node, list):
        items = [_ordered(v) for v in node]
        if key == "@list":
            return items
        return sorted(items, key=lambda v: json.dumps(v, ensure_ascii=False, sort_keys=True))
    return node
