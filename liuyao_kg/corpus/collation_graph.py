"""A collation as data: a `lyo:Collation` and its `lyo:CollationDifference`s in a named graph of their own.

The graph `…/graph/collation/<first>--<second>` holds the collation (its two witnesses' editions and names, their
character counts, what was aligned, the method) and every difference (kind, length, which witness has it) with each
witness's reading, a `lyo:WitnessReading` anchored by Web Annotation selectors into that witness's file. It is
written like an edition's graph (`corpus.write`): whole or not at all, and not at all when the store already holds
the collation of the same files by the same method (`owl:versionInfo` records both checksums and the method).
"""
from __future__ import annotations

from datetime import datetime, timezone

import pyoxigraph as ox

from liuyao_kg import namespaces as ns
from liuyao_kg.corpus import write
from liuyao_kg.corpus.collate import METHOD, Collation
from liuyao_kg.corpus.rdf import OA, A, L, Writer, lit, n, selectors, typed
from liuyao_kg.corpus.witness import Witness

COLLATION = ns.BASE + "collation/"
GRAPH_COLLATION = ns.GRAPH + "collation/"

_RECORDED = ns.sparql_prologue() + """SELECT ?version WHERE {
  GRAPH ?g { ?c a lyo:Collation ; owl:versionInfo ?version } }"""


def collation_iri(first: Witness, second: Witness) -> str:
    return f"{COLLATION}{first.key}--{second.key}"


def collation_graph(first: Witness, second: Witness) -> str:
    return f"{GRAPH_COLLATION}{first.key}--{second.key}"


def version(col: Collation) -> str:
    """What the collation was computed from: the method, each witness's file checksum and extent."""
    return (f"{METHOD}; first {col.first.name} sha256:{col.first.ed.sha256} {col.first.extent}; "
            f"second {col.second.name} sha256:{col.second.ed.sha256} {col.second.extent}")


def quads(col: Collation) -> list[ox.Quad]:
    first, second = col.first, col.second
    iri = collation_iri(first, second)
    w = Writer(collation_graph(first, second))
    c = n(iri)
    w.add(c, A, L("Collation"))
    w.labels(c, f"校勘：{first.name} ⇄ {second.name}", f"collation of {first.name} and {second.name}",
             f"교감: {first.name} ⇄ {second.name}")
    for side, wit in (("first", first), ("second", second)):
        w.add(c, L(f"{side}Witness"), n(wit.edition))
        w.add(c, L(f"{side}WitnessName"), lit(wit.name))
        w.add(c, L(f"{side}WitnessCharacters"), typed(len(wit.chars), "nonNegativeInteger"))
    w.add(c, L("alignedCharacters"), typed(col.aligned, "nonNegativeInteger"))
    w.add(c, L("identicalCharacters"), typed(col.identical, "nonNegativeInteger"))
    w.add(c, L("collationMethod"), lit(METHOD))
    w.add(c, n(ns.OWL + "versionInfo"), lit(version(col)))
    w.add(c, n(ns.PROV + "generatedAtTime"),
          typed(datetime.now(timezone.utc).replace(microsecond=0).isoformat(), "dateTime"))
    for k, d in enumerate(col.differences, 1):
        base = f"{iri}/difference/{k}"
        node = n(base)
        w.add(c, L("hasDifference"), node)
        w.add(node, A, L("CollationDifference"))
        a, b = first.chars[d.a[0]:d.a[1]], second.chars[d.b[0]:d.b[1]]
        w.labels(node, f"{d.kind}：「{a[:12] or '〇'}」／「{b[:12] or '〇'}」", f"{d.kind} difference {k} ({d.length})",
                 f"{d.kind}: 「{a[:12] or '〇'}」/「{b[:12] or '〇'}」")
        w.add(node, L("differenceKind"), lit(d.kind))
        w.add(node, L("differenceLength"), typed(d.length, "nonNegativeInteger"))
        w.add(node, L("differenceNumber"), typed(k, "nonNegativeInteger"))
        w.add(node, L("presentIn"), lit(d.present_in))
        for side, wit, (i, j), text in (("first", first, d.a, a), ("second", second, d.b, b)):
            r = n(f"{base}/{side}")
            w.add(node, L(f"{side}WitnessReading"), r)
            w.add(r, A, L("WitnessReading"))
            w.labels(r, f"{wit.name}：「{text[:12] or '〇'}」", f"{wit.name} reads 「{text[:12]}」",
                     f"{wit.name}: 「{text[:12] or '〇'}」")
            w.add(r, L("readingText"), lit(text))
            w.add(r, OA("hasSource"), n(wit.edition))
            span = wit.raw_span(i, j)
            if j > i:
                for sel in selectors(w, f"{base}/{side}", wit.ed, span, f"{wit.name} difference {k}"):
                    w.add(r, OA("hasSelector"), sel)
            else:  # absent here: where it would stand
                p = n(f"{base}/{side}/position")
                w.add(p, A, OA("TextPositionSelector"))
                w.labels(p, f"{wit.name}：闕文之處", f"{wit.name}: where it is absent, character {span[0]}",
                         f"{wit.name}: 빠진 자리")
                w.add(p, OA("start"), typed(span[0], "nonNegativeInteger"))
                w.add(p, OA("end"), typed(span[1], "nonNegativeInteger"))
                w.add(r, OA("hasSelector"), p)
    return w.quads


def store(kg, col: Collation) -> dict:
    """Write the collation's graph (added, replaced or unchanged) and say what was done."""
    graph = collation_graph(col.first, col.second)
    rows = kg.select(_RECORDED, {"g": ox.NamedNode(graph)})
    old = rows[0]["version"] if rows else None
    if old == version(col):
        return {"status": "unchanged", "graph": graph, "collation": collation_iri(col.first, col.second), "quads": 0}
    qs = quads(col)
    write.write_graph(kg, graph, qs, new=old is None)
    return {"status": "added" if old is None else "replaced", "graph": graph,
            "collation": collation_iri(col.first, col.second), "quads": len(qs)}
