"""SHACL validation (pySHACL) of what goes into the store: each cast's asserted graph before it is stored, and
the rule base and passages (tests/test_shapes.py). The shapes are data: ontology/shapes/*.ttl.

Only the cast's own asserted graph (≈50 triples) is validated, not the store, so the check stays cheap
(benchmarks/shacl_cost.py measures it against the cost of deriving the cast).
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
    import pyoxigraph as ox
    import rdflib

    g = rdflib.Graph()
    data = ox.serialize([ox.Triple(q.subject, q.predicate, q.object) for q in quads], format=ox.RdfFormat.N_TRIPLES)
    g.parse(data=data.decode("utf-8"), format="nt")
    return g


def violations(data_graph, name: str) -> list[dict]:
    """The results of validating an rdflib graph against shapes `name`: [{shape, focus, path, message}]."""
    import rdflib
    from pyshacl import validate

    conforms, report, _ = validate(data_graph, shacl_graph=shapes(name), inference="none", allow_warnings=False)
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

    if term is None or isinstance(term, rdflib.BNode):  # no name (a sequence path): the message says it
        return None
    s = str(term)
    for prefix, ns in (("lysh:", "https://w3id.org/liuyao-kg/shapes#"), ("lyo:", "https://w3id.org/liuyao-kg/ontology#")):
        if s.startswith(ns):
            return prefix + s[len(ns):]
    return s


def check_cast(quads) -> None:
    """Raise ShapeViolation (naming the shape, the node and what is wrong) unless the asserted quads conform."""
    found = violations(_rdflib_graph(quads), "cast")
    if found:
        v = found[0]
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise ShapeViolation(f"the cast's graph violates shape {v['shape']} (ontology/shapes/cast.ttl) at "
                             f"{v['focus']}{(' ' + v['path']) if v['path'] else ''}: {v['message']}{more}",
                             field="cast", value=v["focus"])
