"""What a SPARQL query can read: the (graph, key, subject may be a selector) of its patterns, from rdflib's algebra.

Build-time only (rdflib is slow to import): `liuyao_kg.build.lazy` ships the result for every named query,
so that a store which defers part of a layer knows, without parsing, whether a query could see that part.
Keys are those of reasoner/dependencies (("p", predicate, object IRI or ""), ("t", class, "")) without its
structural exceptions: here every predicate counts. A graph is the IRI of an enclosing GRAPH, else "*".

The third field says whether the pattern's subject may be one of a set of nodes (`Nodes`: for liuyao_kg.build.lazy the
passages layer's own, passages and their Web Annotation selectors; "selectors" below): not when it is another
constant, or a variable every solution around the pattern binds through another pattern whose predicate never
has one of them at that place, or a FILTER no such IRI passes (from the data). A store may then defer their
labels while a query reads only the labels of other things.

Conservative by construction: a variable predicate (unless a VALUES block joined with its pattern, or a FILTER
conjunct `?p IN (…)` around it, lists its IRIs), a negated property set, SERVICE, or a zero-length path whose
ends no other pattern of its BGP binds as a subject reads everything (EVERYTHING).
"""
from __future__ import annotations

from dataclasses import dataclass

from liuyao_kg.reasoner.dependencies import RDF_TYPE, Key

Read = tuple[str, Key, bool]
EVERYTHING: Read = ("*", ("p", "*", ""), True)


@dataclass(frozen=True)
class Nodes:
    """Where selectors occur in the data: `subject_keys`, the keys of quads with a selector subject;
    `object_predicates`, the predicates of quads with a selector object; `selectors`, their IRIs."""

    subject_keys: frozenset
    object_predicates: frozenset
    selectors: frozenset

    def selector(self, iri: str) -> bool:
        return iri in self.selectors

    def may_be_subject(self, key: Key) -> bool:
        return key in self.subject_keys or (key[0] == "p" and key[1] == RDF_TYPE)

    def excludes(self, key: Key, position: str) -> bool:
        if position == "s":
            return not self.may_be_subject(key)
        return key[0] == "t" or key[1] not in self.object_predicates


#: data with no selector in it (what a rule's working store holds)
NO_SELECTORS = Nodes(frozenset(), frozenset(), frozenset())


def query_reads(text: str, nodes: Nodes) -> frozenset[Read]:
    """The reads of the query `text` (with its prologue)."""
    from rdflib.plugins.sparql import prepareQuery

    return algebra_reads(prepareQuery(text).algebra, nodes)


def algebra_reads(algebra, nodes: Nodes) -> frozenset[Read]:
    """The reads of a query already parsed by rdflib (its `algebra`)."""
    out: set[Read] = set()
    _Walk(nodes, out).walk(algebra, "*", {}, frozenset())
    return frozenset(out)


def _term_key(p, o) -> Key:
    from rdflib import URIRef

    if str(p) == RDF_TYPE:
        return ("t", str(o), "") if isinstance(o, URIRef) else ("p", RDF_TYPE, "")
    return ("p", str(p), str(o) if isinstance(o, URIRef) else "")


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


#: operators whose rows are the rows of their operands, each kept or dropped alone: a variable that VALUES binds
#: around them keeps its listed values inside (not so under OPTIONAL's right side, MINUS, EXISTS, a subquery …)
_ROW_WISE = ("Join", "Union", "Filter", "Extend", "Distinct", "OrderBy", "ToMultiSet")
#: operators whose solutions each meet the solution they are evaluated beside (a join, OPTIONAL's and MINUS's
#: right side, a FILTER's EXISTS): a variable bound there to a non-selector cannot meet a selector here
_BESIDE = _ROW_WISE + ("LeftJoin", "Minus", "Graph")


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


def _narrowed(values: dict, inner: dict) -> dict:
    """{variable: IRIs} of an outer restriction and an inner one together: a variable both restrict keeps
    the IRIs both list (a solution must pass both)."""
    return {**values, **{v: values[v] & terms if v in values else terms for v, terms in inner.items()}}


def _filter_values(expr) -> dict:
    """{variable: IRIs} a FILTER's conjunct `?v IN (IRIs…)` or `?v = IRI` keeps it to: a solution of the filtered
    pattern with any other term there is dropped, so the pattern's matches outside the list are never seen."""
    from rdflib import URIRef, Variable

    name = getattr(expr, "name", "")
    if name == "ConditionalAndExpression":
        out: dict = {}
        for e in [expr.get("expr"), *(expr.get("other") or [])]:
            out = _narrowed(out, _filter_values(e))
        return out
    if name == "RelationalExpression" and isinstance(expr.get("expr"), Variable):
        other = expr.get("other")
        terms = other if expr.get("op") == "IN" else [other] if expr.get("op") == "=" else None
        if terms is not None and all(isinstance(t, URIRef) for t in terms):
            return {expr.get("expr"): set(terms)}
    return {}


class _Walk:
    def __init__(self, nodes: Nodes, out: set[Read]):
        self.nodes, self.out = nodes, out

    def bound(self, node) -> frozenset:
        """Variables every solution of `node` binds to something that is not a selector."""
        from rdflib import URIRef, Variable
        from rdflib.paths import Path

        name = getattr(node, "name", "")
        if name == "BGP":
            out = set()
            for s, p, o in node.get("triples") or []:
                if isinstance(p, URIRef) and not isinstance(p, Path):
                    key = _term_key(p, o)
                    out |= {v for v, place in ((s, "s"), (o, "o"))
                            if isinstance(v, Variable) and self.nodes.excludes(key, place)}
            return frozenset(out)
        if name == "Join":
            return self.bound(node.get("p1")) | self.bound(node.get("p2"))
        if name in ("LeftJoin", "Minus"):
            return self.bound(node.get("p1"))
        if name == "Union":
            return self.bound(node.get("p1")) & self.bound(node.get("p2"))
        if name == "ToMultiSet" and getattr(node.get("p"), "name", "") == "values":
            return frozenset(v for v, terms in _values(node).items()
                             if all(isinstance(t, URIRef) and not self.nodes.selector(str(t)) for t in terms)
                             or all(not isinstance(t, URIRef) for t in terms))
        if name == "Filter":
            return self.bound(node.get("p")) | self.filtered(node.get("expr"))
        if name in ("Extend", "Distinct", "OrderBy", "ToMultiSet", "Graph", "Reduced"):
            return self.bound(node.get("p"))
        return frozenset()

    def filtered(self, expr) -> frozenset:
        """Variables a FILTER keeps only where they are an IRI no selector's could be: a conjunct
        CONTAINS / STRSTARTS / STRENDS(STR(?v), "…") that no selector's IRI satisfies."""
        from rdflib import Literal, Variable

        name = getattr(expr, "name", "")
        if name == "ConditionalAndExpression":
            return frozenset().union(*(self.filtered(e) for e in [expr.get("expr"), *(expr.get("other") or [])]))
        test = {"Builtin_CONTAINS": str.__contains__, "Builtin_STRSTARTS": str.startswith,
                "Builtin_STRENDS": str.endswith}.get(name)
        arg, text = expr.get("arg1") if test else None, expr.get("arg2") if test else None
        if (test and getattr(arg, "name", "") == "Builtin_STR" and isinstance(arg.get("arg"), Variable)
                and isinstance(text, Literal) and not any(test(iri, str(text)) for iri in self.nodes.selectors)):
            return frozenset({arg.get("arg")})
        return frozenset()

    def add(self, graph: str, key: Key, subject, bound: frozenset) -> None:
        from rdflib import URIRef, Variable

        may = (subject not in bound) if isinstance(subject, Variable) else (
            isinstance(subject, URIRef) and self.nodes.selector(str(subject)))
        self.out.add((graph, key, may))

    def path(self, s, path, o, graph: str, bound: frozenset) -> bool:
        """Add the reads of a path's links; False if it may read any predicate (a negated set)."""
        from rdflib import URIRef, Variable
        from rdflib.paths import AlternativePath, InvPath, MulPath, SequencePath

        if isinstance(path, URIRef):
            self.add(graph, _term_key(path, o), s, bound)
            return True
        if isinstance(path, SequencePath):
            subject, ok = s, True
            for i, link in enumerate(path.args):
                ok = self.path(subject, link, None, graph, bound) and ok
                # the next link starts where this one ends: not at a selector if this link never ends at one
                step = Variable(f"__link{i}")
                ends = isinstance(link, URIRef) and self.nodes.excludes(_term_key(link, None), "o")
                subject, bound = step, (bound | {step}) if ends else bound
            return ok
        if isinstance(path, AlternativePath):
            return all([self.path(s, p, None, graph, bound) for p in path.args])
        if isinstance(path, (InvPath, MulPath)):
            return self.path(Variable("__any"), path.arg if isinstance(path, InvPath) else path.path, None, graph,
                             frozenset())
        return False

    def bgp(self, node, graph: str, values: dict, bound: frozenset) -> None:
        """A zero-length path matches every node of the graph, so it depends on the graph's nodes, which a
        deferred part may extend only by literals (checked where the part is built); an end bound as the
        subject of another pattern of the same BGP (or a constant) can never be one of those."""
        from rdflib import Variable
        from rdflib.paths import Path

        triples = node.get("triples") or []
        bound = bound | self.bound(node)
        subjects = {s for s, p, _ in triples if not isinstance(p, Path)}
        for s, p, o in triples:
            if isinstance(p, Variable):
                if p in values:
                    for v in values[p]:
                        self.add(graph, _term_key(v, o), s, bound)
                else:
                    self.out.add(EVERYTHING)
            elif isinstance(p, Path):
                if not self.path(s, p, o, graph, bound):
                    self.out.add(EVERYTHING)
                if _zero_length(p) and not any(not isinstance(end, Variable) or end in subjects for end in (s, o)):
                    self.out.add(EVERYTHING)
            else:
                self.add(graph, _term_key(p, o), s, bound)

    def walk(self, node, graph: str, values: dict, bound: frozenset) -> None:
        from rdflib import URIRef

        name = getattr(node, "name", "")
        if name == "ServiceGraphPattern":
            self.out.add(EVERYTHING)
            return
        if name in ("Builtin_EXISTS", "Builtin_NOTEXISTS") and "graph" in vars(node):
            # the translated pattern (see dependencies._walk), evaluated with the row's bindings substituted
            self.walk(vars(node)["graph"], graph, {}, bound)
            return
        if name == "BGP":
            self.bgp(node, graph, values, bound)
            return
        if name == "Graph":
            term = node.get("term")
            graph = str(term) if isinstance(term, URIRef) else "*"
        if name in ("Join", "Filter"):
            values = _narrowed(values, _values(node) if name == "Join" else _filter_values(node.get("expr")))
        if name in ("Join", "Filter", "Extend"):
            bound = bound | self.bound(node)
        if name in ("LeftJoin", "Minus"):
            bound_right = bound | self.bound(node.get("p1"))
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("template", "_vars", "PV"):
                    continue
                inner_values = values if name in _ROW_WISE or (name == "LeftJoin" and key == "p1") else {}
                if name in ("LeftJoin", "Minus") and key != "p1":
                    inner_bound = bound_right
                else:
                    inner_bound = bound if name in _BESIDE else frozenset()
                self.walk(value, graph, inner_values, inner_bound)
        elif isinstance(node, (list, tuple)):
            for item in node:
                self.walk(item, graph, values, bound)
