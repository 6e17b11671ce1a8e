"""Build what lets a new in-memory store defer the part of the passages layer a cast never reads.

    python -m liuyao_kg.lazy_build          # rewrite ontology/passages-eager.ttl and queries/reads.json
    python -m liuyao_kg.lazy_build --check  # exit 1 if either is out of date (tests/test_lazy_layers.py)

The deferred part is every quad of the passages layer whose predicate none of the queries of `liuyao cast`
(CAST_QUERIES) can read, as `liuyao_kg.query_reads` finds from their algebra, or reads only of subjects other
than the layer's own nodes while the quad's subject is one (the labels of passages and selectors); objects all
literals, rdf:type always stays. The eager part is written as Turtle; reads.json says, for the text of every named query,
whether it may read the deferred part. A store loads the rest before any other query.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from liuyao_kg import namespaces as ns

#: the named queries a `liuyao cast` (any language, format or school) runs
CAST_QUERIES = ("chart-hexagrams", "chart-pillars", "chart-roles", "chart-lines", "chart-relations", "cast-states",
                "cast-judgments", "judgment-editions", "chart-question", "chart-use-god", "reading-factors",
                "reading-verdict", "reading-timing", "cast-instant", "school-labels")
PREFIXES = {"rdf": ns.RDF, "rdfs": "http://www.w3.org/2000/01/rdf-schema#", "xsd": ns.XSD, "skos": ns.SKOS,
            "oa": "http://www.w3.org/ns/oa#", "dcterms": ns.DCTERMS, "prov": ns.PROV, "lyo": ns.LYO,
            "lyr": "https://w3id.org/liuyao-kg/ref/", "lyp": "https://w3id.org/liuyao-kg/passage/"}


def needs_deferred(reads, deferred: set[str], of_nodes: set[str] = frozenset()) -> bool:
    """Whether a query with these reads (query_reads) may match a quad of the deferred part: one whose
    predicate is in `deferred`, or in `of_nodes` with one of `deferred_subjects` for subject."""
    return any(g in ("*", ns.GRAPH_PASSAGES) and (k[1] == "*" or k[1] in deferred or (k[1] in of_nodes and sel))
               for g, k, sel in reads)


def deferred_subjects(layers) -> set[str]:
    """The passages layer's own nodes (passages and their selectors: its IRIs under lyp:), whose labels
    a query may read only where query_reads cannot tell them from other things. Where they occur in the layers
    is read off the data (`nodes`); in a cast's graphs, the store checks every quad it adds (see graph.py)."""
    import pyoxigraph as ox

    return {q.subject.value for q in layers[ns.GRAPH_PASSAGES]
            if isinstance(q.subject, ox.NamedNode) and q.subject.value.startswith(ns.LYP)}


def nodes(layers, found: set[str]):
    import pyoxigraph as ox

    from liuyao_kg.query_reads import Nodes

    keys, objects = set(), set()
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


def deferred_predicates(passage_quads, cast_reads, found: set[str]) -> tuple[set[str], set[str]]:
    """(predicates deferred whole, predicates deferred for the layer's own subjects): of those whose objects are all
    literals (the part then adds no node but literals to the graph, see _check_nodes), rdf:type aside, the ones
    no cast query reads at all, and the ones it reads of other subjects only."""
    import pyoxigraph as ox

    preds = {q.predicate.value for q in passage_quads} - {ns.RDF + "type"}
    preds -= {q.predicate.value for q in passage_quads if not isinstance(q.object, ox.Literal)}
    whole = {p for p in preds if not needs_deferred(cast_reads, {p})}
    own = {q.predicate.value for q in passage_quads if q.subject.value in found}
    return whole, {p for p in preds & own - whole if not needs_deferred(cast_reads, set(), {p})}


def build() -> dict[str, bytes]:
    """{package file: content} for ontology/passages-eager.ttl and queries/reads.json."""
    import pyoxigraph as ox

    from liuyao_kg import queries
    from liuyao_kg.graph import layer_quads
    from liuyao_kg.query_reads import query_reads

    layers = layer_quads()
    found = deferred_subjects(layers)
    where = nodes(layers, found)
    cast_reads = set().union(*(query_reads(queries.get(n).text, where) for n in CAST_QUERIES))
    quads = layers[ns.GRAPH_PASSAGES]
    whole, of_nodes = deferred_predicates(quads, cast_reads, found)

    def deferred(q) -> bool:
        return q.predicate.value in whole or (q.predicate.value in of_nodes and q.subject.value in found)

    eager = [q for q in quads if not deferred(q)]
    _check_nodes(eager, [q for q in quads if deferred(q)])
    reads = {hashlib.sha256(q.text.encode()).hexdigest(): needs_deferred(query_reads(q.text, where), whole, of_nodes)
             for q in queries.catalogue().values()}
    turtle = ox.serialize(sorted((q.triple for q in eager), key=str), format=ox.RdfFormat.TURTLE, prefixes=PREFIXES)
    from liuyao_kg.versioning import package_versions

    data = {"about": "generated by python -m liuyao_kg.lazy_build; do not edit",
            "built_from": package_versions()[ns.GRAPH_PASSAGES], "deferred": sorted(whole),
            "deferred_for_passage_nodes": sorted(of_nodes),
            # a cast's quad may have a passage node for object under these predicates only (else: load first)
            "passage_object_predicates": sorted(where.object_predicates), "needs_deferred": dict(sorted(reads.items()))}
    return {"ontology/passages-eager.ttl": b"# GENERATED by python -m liuyao_kg.lazy_build: the passages layer "
            b"without what no cast reads. Do not edit.\n" + turtle,
            "queries/reads.json": (json.dumps(data, indent=0) + "\n").encode()}


def _check_nodes(eager, rest) -> None:
    """A zero-length path matches every node of a graph; the deferred part may add literals only (query_reads)."""
    import pyoxigraph as ox

    nodes = {t for q in eager for t in (q.subject, q.object)}
    extra = {t for q in rest for t in (q.subject, q.object) if not isinstance(t, ox.Literal) and t not in nodes}
    if extra:
        raise ValueError(f"the deferred part adds nodes the eager part lacks: {sorted(map(str, extra))[:3]}")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(__file__).resolve().parent.parent
    stale = []
    for name, content in build().items():
        path = root / name
        if "--check" in args:
            if not path.exists() or path.read_bytes() != content:
                stale.append(name)
        else:
            path.write_bytes(content)
            print(f"wrote {path}")
    if stale:
        print(f"{', '.join(stale)} out of date: run python -m liuyao_kg.lazy_build", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
