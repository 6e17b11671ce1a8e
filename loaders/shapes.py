"""SHACL validation (pySHACL) of what goes into the store: each cast's asserted graph before it is stored, and
the rule base and passages (tests/loaders/test_shapes.py). The shapes are data: ontology/shapes/*.ttl.

Only the cast's own asserted graph (≈50 triples) is validated, not the store, so the check stays cheap
(benchmarks/shacl_cost.py measures it against the cost of deriving the cast). A batch load validates a chunk of
casts in one pySHACL run over the union of their graphs (:func:`cast_graph_violations`): pySHACL's fixed cost per
run is most of a single cast's check, so one run per chunk costs a fraction of one run per cast.
"""
from __future__ import annotations

from functools import cache
from importlib import resources

from liuyao_kg.loaders.errors import CastInputError

SH = "http://www.w3.org/ns/shacl#"


class ShapeViolation(CastInputError):
    """The graph of a cast does not conform to a shape of ontology/shapes/cast.ttl; nothing was stored."""


@cache
def shapes(name: str):
    """The shapes graph ontology/shapes/<name>.ttl, parsed once."""
    import rdflib

    return rdflib.Graph().parse(data=resources.files("liuyao_kg.ontology").joinpath("shapes", name + ".ttl")
                                .read_text("utf-8"), format="turtle")


def _rdflib_graph(quads):
    """The triples of `quads` as an rdflib graph (built term by term: a third of the time of N-Triples and back)."""
    import pyoxigraph as ox
    import rdflib

    xsd_string = "http://www.w3.org/2001/XMLSchema#string"
    terms: dict = {}

    def term(t):
        out = terms.get(t)
        if out is None:
            if isinstance(t, ox.NamedNode):
                out = rdflib.URIRef(t.value)
            elif isinstance(t, ox.BlankNode):
                out = rdflib.BNode(t.value)
            elif t.language:
                out = rdflib.Literal(t.value, lang=t.language)
            else:
                out = rdflib.Literal(t.value, datatype=None if t.datatype.value == xsd_string else t.datatype.value)
            terms[t] = out
        return out

    g = rdflib.Graph()
    for q in quads:
        g.add((term(q.subject), term(q.predicate), term(q.object)))
    return g


@cache
def _flat_shapes(name: str):
    """Shapes `name` with each node shape's property shapes targeting the node shape's targets themselves.

    The same constraints on the same focus nodes, so the same results (each naming its property shape, which
    :func:`violations` traces to its node shape in the original graph); but pySHACL evaluates a property shape
    reached through sh:property once per focus node, and a targeted one once for all of them: over the union
    of a chunk's casts this is several times faster. Only node shapes made of targets and properties alone
    (every shape of cast.ttl) are flattened.
    """
    import rdflib
    from rdflib.namespace import RDF, RDFS

    sh = rdflib.Namespace(SH)
    targets = (sh.targetClass, sh.targetNode, sh.targetSubjectsOf, sh.targetObjectsOf)
    original = shapes(name)
    flat = rdflib.Graph()
    for t in original:
        flat.add(t)
    for node in set(original.subjects(RDF.type, sh.NodeShape)):
        if set(original.predicates(node)) - {RDF.type, RDFS.label, sh.property, *targets} or \
                next(iter(original.subjects(None, node)), None) is not None:
            continue  # other constraints, or used by another shape: left as it is
        for prop in list(original.objects(node, sh.property)):
            flat.remove((node, sh.property, prop))
            for target in targets:
                for value in original.objects(node, target):
                    flat.add((prop, target, value))
    return flat


def violations(data_graph, name: str, *, flat: bool = False) -> list[dict]:
    """The results of validating an rdflib graph against shapes `name`: [{shape, focus, path, message}].

    `flat`: with the flattened shapes (:func:`_flat_shapes`; the same results, faster on many focus nodes)."""
    import rdflib
    from pyshacl import validate

    conforms, report, _ = validate(data_graph, shacl_graph=_flat_shapes(name) if flat else shapes(name),
                                   inference="none", allow_warnings=False)
    if conforms:
        return []
    sh = rdflib.Namespace(SH)
    out = []
    for r in report.subjects(rdflib.RDF.type, sh.ValidationResult):
        source = report.value(r, sh.sourceShape)
        # a property shape is a blank node: name the node shape that holds it
        owner = next(iter(shapes(name).subjects(sh.property, source)), None) or next(
            iter(shapes(name).subjects(sh.sparql, source)), None) or source
        out.append({"shape": _short(owner), "focus": str(report.value(r, sh.focusNode)),
                    "path": _short(report.value(r, sh.resultPath)), "message": str(report.value(r, sh.resultMessage))})
    return sorted(out, key=lambda v: (v["shape"], v["focus"], v["path"] or ""))


def _short(term) -> str | None:
    import rdflib

    from liuyao_kg.loaders.shape_check import short_name

    if term is None or isinstance(term, rdflib.BNode):  # no name (a sequence path): the message says it
        return None
    return short_name(str(term))


def _describe(found: list[dict]) -> str:
    v = found[0]
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return (f"the cast's graph violates shape {v['shape']} (ontology/shapes/cast.ttl) at "
            f"{v['focus']}{(' ' + v['path']) if v['path'] else ''}: {v['message']}{more}")


def shape_violation(found: list[dict]) -> ShapeViolation:
    """The input error for one cast's violations (non-empty, as :func:`violations` returns them)."""
    return ShapeViolation(_describe(found), field="cast", value=found[0]["focus"])


def check_cast(quads) -> None:
    """Raise ShapeViolation (naming the shape, the node and what is wrong) unless the asserted quads conform.

    The shapes are applied in Python (liuyao_kg.loaders.shape_check: no pySHACL import; benchmarks/shacl_cost.py); a graph that check cannot
    decide exactly as pySHACL would is validated by pySHACL."""
    from liuyao_kg.loaders.shape_check import violations as compiled_violations

    found = compiled_violations(quads, "cast")
    if found is None:
        found = violations(_rdflib_graph(quads), "cast")
    if found:
        raise shape_violation(found)


def _to_validate_alone(quads) -> set[str]:
    """The graphs that share a node with another graph (a node described in one graph and described or referred
    to in another: validated over the union, their results could differ from validating each alone), and those
    holding blank nodes (renamed on the way to rdflib, so a focus node could not be traced back)."""
    import pyoxigraph as ox

    owner: dict[object, str] = {}
    alone: set[str] = set()
    for q in quads:
        g = q.graph_name.value
        if owner.setdefault(q.subject, g) != g:
            alone.update((g, owner[q.subject]))
        if isinstance(q.subject, ox.BlankNode) or isinstance(q.object, ox.BlankNode):
            alone.add(g)
    for q in quads:
        other = owner.get(q.object)
        if other is not None and other != q.graph_name.value:
            alone.update((other, q.graph_name.value))
    return alone


def cast_graph_violations(quads) -> dict[str, list[dict]]:
    """{cast graph IRI: its violations} for the asserted quads of many casts (each cast in its own named graph,
    as loaders.rdf.cast_quads writes it); casts that conform are absent.

    Each graph is checked alone by the compiled shapes (liuyao_kg.loaders.shape_check, held equal to pySHACL by
    tests/loaders/test_shape_check.py); the graphs it cannot decide go to pySHACL. There each violation is mapped back
    to its cast by its focus node, which is described in that cast's graph only
    (the cast, its lines and pillars are IRIs under the cast's own; hexagrams, branches and stem-branches are
    only referred to, never described). A focus node of a cast shape is always a subject (its rdf:type), so
    the union gives each cast the results validating its graph alone would. Graphs that share a described
    node with another, or hold blank nodes (the loader writes neither), are validated one by one instead, so that guarantee
    does not depend on the input.
    """
    from liuyao_kg.loaders.shape_check import violations as compiled_violations

    by_graph: dict[str, list] = {}
    for q in quads:
        by_graph.setdefault(q.graph_name.value, []).append(q)
    out: dict[str, list[dict]] = {}
    undecided = []
    # first each graph alone by the compiled shapes (far cheaper than pySHACL, which took most of a Parquet
    # load's time: benchmarks/shacl_cost.py); pySHACL, as below, for the graphs that check cannot decide
    for g, graph_quads in by_graph.items():
        found = compiled_violations(graph_quads, "cast")
        if found is None:
            undecided += graph_quads
        elif found:
            out[g] = found
    return out | _pyshacl_graph_violations(undecided) if undecided else out


def _pyshacl_graph_violations(quads: list) -> dict[str, list[dict]]:
    """cast_graph_violations by pySHACL alone: one run over the union of the graphs, or one a graph."""
    alone = _to_validate_alone(quads)
    together = [q for q in quads if q.graph_name.value not in alone]
    graph_of = {q.subject.value: q.graph_name.value for q in together}
    out: dict[str, list[dict]] = {}
    if together:
        for v in violations(_rdflib_graph(together), "cast", flat=True):
            out.setdefault(graph_of[v["focus"]], []).append(v)
    for g in sorted(alone):
        found = violations(_rdflib_graph([q for q in quads if q.graph_name.value == g]), "cast")
        if found:
            out[g] = found
    return out
