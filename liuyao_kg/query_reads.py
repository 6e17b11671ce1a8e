"""What a SPARQL query can read: the (graph, key) pairs of its triple patterns, from rdflib's algebra.

Build-time only (rdflib is slow to import): `liuyao_kg.lazy_build` ships the result for every named query,
so that a store which defers part of a layer knows, without parsing, whether a query could see that part.
Keys are those of reasoner/dependencies (("p", predicate, object IRI or ""), ("t", class, "")) without its
structural exceptions: here every predicate counts. A graph is the IRI of an enclosing GRAPH, else "*".
Conservative by construction: a variable predicate (unless a VALUES block joined with its pattern lists its
IRIs), a negated property set, SERVICE, or a zero-length path whose ends no other pattern of its BGP binds
as a subject reads ("*", ("p", "*", "")).
"""
from __future__ import annotations

from liuyao_kg.reasoner.dependencies import RDF_TYPE, Key

Read = tuple[str, Key]
EVERYTHING: Read = ("*", ("p", "*", ""))


def query_reads(text: str) -> frozenset[Read]:
    """The (graph, key) pairs the query `text` (with its prologue) can read."""
    from rdflib.plugins.sparql import prepareQuery

    out: set[Read] = set()
    _walk(prepareQuery(text).algebra, "*", {}, out)
    return frozenset(out)


def _term_key(p, o) -> Key:
    from rdflib import URIRef

    if str(p) == RDF_TYPE:
        return ("t", str(o), "") if isinstance(o, URIRef) else ("p", RDF_TYPE, "")
    return ("p", str(p), str(o) if isinstance(o, URIRef) else "")


def _path_keys(path, o, graph: str, out: set[Read]) -> bool:
    """Add the keys of a property path's links; False if it may read any predicate (a negated set)."""
    from rdflib import URIRef
    from rdflib.paths import AlternativePath, InvPath, MulPath, NegatedPath, SequencePath

    if isinstance(path, URIRef):
        out.add((graph, _term_key(path, o)))
        return True
    if isinstance(path, (SequencePath, AlternativePath)):
        return all(_path_keys(p, None, graph, out) for p in path.args)
    if isinstance(path, InvPath):
        return _path_keys(path.arg, None, graph, out)
    if isinstance(path, MulPath):
        return _path_keys(path.path, None, graph, out)
    assert isinstance(path, NegatedPath) or path is not None
    return False


def _zero_length(path) -> bool:
    from rdflib.paths import AlternativePath, InvPath, MulPath, SequencePath

    if isinstance(path, MulPath):
        return path.zero or _zero_length(path.path)
    if isinstance(path, SequencePath):
        return all(_zero_length(p) for p in path.args)
    if isinstance(path, AlternativePath):
        return any(_zero_length(p) for p in path.args)
    if isinstance(path, InvPath):
        return _zero_length(path.arg)
    return False


def _bgp(triples, graph: str, values: dict, out: set[Read]) -> None:
    """A zero-length path matches every node of the graph, so it depends on the graph's nodes, which a deferred
    part may extend only by literals (checked where the part is built); an end bound as the subject of another
    pattern of the same BGP (or a constant) can never be one of those."""
    from rdflib import Variable
    from rdflib.paths import Path

    subjects = {s for s, p, _ in triples if not isinstance(p, Path)}
    for s, p, o in triples:
        if isinstance(p, Variable):
            out.update((graph, _term_key(v, o)) for v in values[p]) if p in values else out.add(EVERYTHING)
        elif isinstance(p, Path):
            if not _path_keys(p, o, graph, out):
                out.add(EVERYTHING)
            if _zero_length(p) and not any(not isinstance(end, Variable) or end in subjects for end in (s, o)):
                out.add(EVERYTHING)
        else:
            out.add((graph, _term_key(p, o)))


#: operators whose rows are the rows of their operands, each kept or dropped alone: a variable that VALUES binds
#: around them keeps its listed values inside (not so under OPTIONAL's right side, MINUS, EXISTS, a subquery …)
_ROW_WISE = ("Join", "Union", "Filter", "Extend", "Distinct", "OrderBy", "ToMultiSet")


def _values(node) -> dict:
    """{variable: IRIs} a VALUES block in this join chain restricts it to (no UNDEF)."""
    name = getattr(node, "name", "")
    if name == "ToMultiSet" and getattr(node.get("p"), "name", "") == "values":
        rows = node["p"].get("res") or []
        names = set().union(*(r.keys() for r in rows)) if rows else set()
        return {v: {r[v] for r in rows} for v in names if all(r.get(v) is not None for r in rows)}
    if name == "Join":
        return {**_values(node.get("p2")), **_values(node.get("p1"))}
    return {}


def _walk(node, graph: str, values: dict, out: set[Read]) -> None:
    from rdflib import URIRef

    name = getattr(node, "name", "")
    if name == "ServiceGraphPattern":
        out.add(EVERYTHING)
        return
    if name in ("Builtin_EXISTS", "Builtin_NOTEXISTS") and "graph" in vars(node):
        _walk(vars(node)["graph"], graph, {}, out)  # the translated pattern (see dependencies._walk)
        return
    if name == "Graph":
        term = node.get("term")
        _walk(node.get("p"), str(term) if isinstance(term, URIRef) else "*", values, out)
        return
    if name == "BGP":
        _bgp(node.get("triples") or [], graph, values, out)
        return
    if name == "Join":
        values = {**values, **_values(node)}
    if isinstance(node, dict):
        for key, value in node.items():
            if key not in ("template", "_vars", "PV"):
                inner = values if name in _ROW_WISE or (name == "LeftJoin" and key == "p1") else {}
                _walk(value, graph, inner, out)
    elif isinstance(node, (list, tuple)):
        for item in node:
            _walk(item, graph, values, out)
