"""Build what lets a new in-memory store defer the parts of the passages and rules layers a cast never reads.

    python -m liuyao_kg.build lazy          # rewrite ontology/compiled/*-eager.nt, reference-layer.nt and ontology/compiled/reads.json
    python -m liuyao_kg.build lazy --check  # exit 1 if any is out of date (tests/build/test_build.py)

A deferred part is every quad of its layer whose predicate none of the queries of `liuyao cast` (CAST_QUERIES) can
read, as `liuyao_kg.build.reads` finds from their algebra, or reads only of
subjects other than the layer's own nodes while the quad's subject is one (the labels of passages, selectors
and rules); objects all literals, rdf:type always stays. The eager parts are written as sorted N-Triples (as is
the reference layer whole, `WHOLE`: N-Triples parse faster than Turtle); reads.json
says, for the text of every named query, whether it may read a deferred part. A store loads the rest before
any other query.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from liuyao_kg import namespaces as ns
from liuyao_kg.build.paths import ROOT

#: the named queries a `liuyao cast` (any language, format or school) runs
CAST_QUERIES = ("chart-hexagrams", "chart-pillars", "chart-roles", "chart-lines", "chart-relations", "cast-states",
                "cast-judgments", "judgment-editions", "chart-question", "chart-use-god", "reading-factors",
                "reading-verdict", "reading-timing", "cast-instant", "school-labels")
#: {layer graph: (eager file, the namespace of the layer's own nodes)}
LAZY = {ns.GRAPH_PASSAGES: ("passages-eager.nt", ns.LYP), ns.GRAPH_RULES: ("rules-eager.nt", ns.LYRULE)}
#: {layer graph: its file} for the layers a new store parses whole, shipped as N-Triples too (ontology.lazy.WHOLE_FILES)
WHOLE = {ns.GRAPH_REFERENCE: "reference-layer.nt"}  # not the ontology: its blank nodes would be named anew each build
#: predicates under which the engine writes a layer's node into a cast (a state's rule): counted as pointing at one
CAST_OBJECT_PREDICATES = frozenset({ns.PROV + "wasDerivedFrom"})


def needs_deferred(reads, parts: dict) -> bool:
    """Whether a query with these reads (query_reads) may match a quad of a deferred part: {graph: (predicates
    deferred whole, predicates deferred for the layer's own nodes)}."""
    return any((g == "*" or g == graph) and (k[1] == "*" or k[1] in whole or (k[1] in of_nodes and may))
               for g, k, may in reads for graph, (whole, of_nodes) in parts.items())


def deferred_subjects(layers) -> set[str]:
    """The lazy layers' own nodes (passages and their selectors, rules), whose labels a query may read only where
    query_reads cannot tell them from other things. Where they occur in the layers is read off the data
    (`nodes`); in a cast's graphs, the store checks every quad it adds (ontology.lazy.fits)."""
    import pyoxigraph as ox

    return {q.subject.value for graph, (_, base) in LAZY.items() for q in layers[graph]
            if isinstance(q.subject, ox.NamedNode) and q.subject.value.startswith(base)}


def nodes(layers, found: set[str]):
    import pyoxigraph as ox

    from liuyao_kg.build.reads import Nodes

    keys, objects = set(), set(CAST_OBJECT_PREDICATES)
    for quads in layers.values():
        for q in quads:
            if q.subject.value in found:
                if q.predicate.value == ns.RDF + "type":
                    keys |= {("t", q.object.value, ""), ("p", ns.RDF + "type", "")}
                else:
                    o = q.object.value if isinstance(q.object, ox.NamedNode) else ""
                    keys |= {("p", q.predicate.value, o), ("p", q.predicate.value, "")}
            if isinstance(q.object, ox.NamedNode) and q.object.value in found:
                objects.add(q.predicate.value)
    return Nodes(frozenset(keys), frozenset(objects), frozenset(found))


def deferred_predicates(quads, graph: str, cast_reads, found: set[str]) -> tuple[set[str], set[str]]:
    """(predicates deferred whole, predicates deferred for the layer's own subjects): of those whose objects are all
    literals (the part then adds no node but literals to the graph, see _check_nodes), rdf:type aside, the ones
    no cast query reads at all, and the ones it reads of other subjects only."""
    import pyoxigraph as ox

    preds = {q.predicate.value for q in quads} - {ns.RDF + "type"}
    preds -= {q.predicate.value for q in quads if not isinstance(q.object, ox.Literal)}
    whole = {p for p in preds if not needs_deferred(cast_reads, {graph: ({p}, set())})}
    own = {q.predicate.value for q in quads if q.subject.value in found}
    return whole, {p for p in preds & own - whole if not needs_deferred(cast_reads, {graph: (set(), {p})})}


def build() -> dict[str, bytes]:
    """{package file: content} for the eager parts and ontology/compiled/reads.json."""

    from liuyao_kg import queries
    from liuyao_kg.build.reads import query_reads
    from liuyao_kg.ontology import layer_quads, package_versions

    layers = layer_quads()
    found = deferred_subjects(layers)
    where = nodes(layers, found)
    cast_reads = set().union(*(query_reads(queries.get(n).text, where) for n in CAST_QUERIES))
    parts = {graph: deferred_predicates(layers[graph], graph, cast_reads, found) for graph in LAZY}
    out, deferred = {}, {}
    for graph, (whole, of_nodes) in parts.items():
        def later(q) -> bool:
            return q.predicate.value in whole or (q.predicate.value in of_nodes and q.subject.value in found)

        eager = [q for q in layers[graph] if not later(q)]
        _check_nodes(eager, [q for q in layers[graph] if later(q)])
        out["ontology/compiled/" + LAZY[graph][0]] = _ntriples(eager, "the layer without what no cast reads")
        deferred[graph] = {"whole": sorted(whole), "of_its_nodes": sorted(of_nodes),
                           "built_from": package_versions()[graph]}
    for graph, name in WHOLE.items():
        out["ontology/compiled/" + name] = _ntriples(layers[graph], "the layer as N-Triples, parsed ~1.5x faster than its Turtle")
    reads = {hashlib.sha256(q.text.encode()).hexdigest(): needs_deferred(query_reads(q.text, where), parts)
             for q in queries.catalogue().values()}
    data = {"about": "generated by python -m liuyao_kg.build lazy; do not edit", "deferred": deferred,
            "whole": {graph: {"built_from": package_versions()[graph]} for graph in WHOLE},
            # a cast's quad may have a lazy layer's node for object under these predicates only (else: load first)
            "node_object_predicates": sorted(where.object_predicates), "needs_deferred": dict(sorted(reads.items()))}
    out["ontology/compiled/reads.json"] = (json.dumps(data, indent=0) + "\n").encode()
    return out


def _ntriples(quads, what: str) -> bytes:
    """A layer's quads as sorted N-Triples (a changed quad is a one-line diff): what a new store parses leniently,
    since pyoxigraph wrote them from layers it parsed strictly (faster to parse than Turtle: benchmarks/cold_start.py)."""
    import pyoxigraph as ox

    text = ox.serialize([q.triple for q in quads], format=ox.RdfFormat.N_TRIPLES)
    return (f"# GENERATED by python -m liuyao_kg.build lazy: {what}. Do not edit.\n".encode()
            + b"".join(sorted(text.splitlines(keepends=True))))


def _check_nodes(eager, rest) -> None:
    """A zero-length path matches every node of a graph; the deferred part may add literals only (query_reads)."""
    import pyoxigraph as ox

    nodes = {t for q in eager for t in (q.subject, q.object)}
    extra = {t for q in rest for t in (q.subject, q.object) if not isinstance(t, ox.Literal) and t not in nodes}
    if extra:
        raise ValueError(f"the deferred part adds nodes the eager part lacks: {sorted(map(str, extra))[:3]}")


def outputs() -> dict[Path, bytes]:
    """{file: bytes} this step writes (liuyao_kg.build)."""
    return {ROOT / name: content for name, content in build().items()}
