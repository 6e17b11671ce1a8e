"""A reference backend: the same rules, the same plan, executed by rdflib instead of pyoxigraph.

`RdflibEngine` takes the rules exactly as `Engine` does (the SPARQL CONSTRUCT texts read from the
rules graph by `load_rules`, the strata of `dependencies.plan`) and runs them on an rdflib
`Dataset` whose default graph is the union of its named graphs — the same dataset the pyoxigraph
engine queries with `use_default_graph_as_union=True`. Inferred triples go to `<cast>/inferred`
under the same scope check. Input and output are pyoxigraph quads, so the two engines are
interchangeable and their outputs compare as sets.

It exists to measure the engine against a pure-Python SPARQL stack and to cross-check the rule
texts on a second SPARQL implementation (tests/test_rdflib_backend.py). Where rdflib's SPARQL
differs from the standard on a construct the rules use, the rule text is rewritten here into an
equivalent form both engines read the same way; each rewrite is listed in `REWRITES` with its reason.
"""
from __future__ import annotations

import warnings
from collections.abc import Iterable

import pyoxigraph as ox
from rdflib import BNode, Dataset, Literal, URIRef

from liuyao_kg.namespaces import sparql_prologue
from liuyao_kg.reasoner.dependencies import RulePlan, plan
from liuyao_kg.reasoner.engine import Rule, RuleScopeError, _TOPIC, cast_of, inferred_graph, ox_keys, run_strata

_PROLOGUE = sparql_prologue()
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


def to_rdflib(term):
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if isinstance(term, ox.Literal):
        if term.language:
            return Literal(term.value, lang=term.language)
        if term.datatype.value == _XSD_STRING:
            # RDF 1.1: a simple literal *is* an xsd:string. rdflib keeps `"x"` and `"x"^^xsd:string`
            # apart (`=` and IN compare them unequal), so strings go in as rdflib's simple literals.
            return Literal(term.value)
        return Literal(term.value, datatype=URIRef(term.datatype.value), normalize=False)
    if isinstance(term, ox.DefaultGraph):
        return None
    raise TypeError(term)


def to_ox(term):
    if isinstance(term, URIRef):
        return ox.NamedNode(str(term))
    if isinstance(term, BNode):
        return ox.BlankNode(str(term))
    if isinstance(term, Literal):
        if term.language:
            return ox.Literal(str(term), language=term.language)
        if term.datatype is not None:
            return ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype)))
        return ox.Literal(str(term))
    raise TypeError(term)


class RdflibEngine:
    """`Engine`'s interface (`rules`, `plan`, `derive`) on an rdflib Dataset."""

    def __init__(self, rules: list[Rule], reference: Iterable[ox.Quad] | bytes):
        """`reference` as `Engine` takes it: quads, or triples as N-Triples."""
        self.rules = {r.iri: r for r in rules}
        self.plan: RulePlan = plan({r.iri: r.io for r in rules})
        self._queries = {r.iri: rule_query(r) for r in rules}
        self._prepared: dict = {}
        self._ds = Dataset(default_union=True)
        reference = list(ox.parse(reference, format=ox.RdfFormat.N_QUADS) if isinstance(reference, bytes)
                         else reference)
        self._reference_keys = ox_keys(reference)
        for q in reference:
            self._ds.add(_quad(q))

    def _prepare(self, iri: str):
        from rdflib.plugins.sparql import prepareQuery

        prepared = self._prepared.get(iri)
        if prepared is None:
            prepared = self._prepared[iri] = prepareQuery(self._queries[iri])
        return prepared

    def derive(self, cast_quads: Iterable[ox.Quad]) -> list[ox.Quad]:
        quads = list(cast_quads)
        graphs = {q.graph_name for q in quads}
        topics = {q.object.value for q in quads if q.predicate == _TOPIC}
        ds = self._ds
        for q in quads:
            ds.add(_quad(q))
        out: list[ox.Quad] = []
        with warnings.catch_warnings():
            # rdflib 7.x warns "Dataset.default_context is deprecated" from inside its own triple
            # lookups (hundreds of thousands per cast); nothing a caller can act on.
            warnings.simplefilter("ignore", DeprecationWarning)
            try:
                present = ox_keys(quads, set(self._reference_keys))
                run_strata(zip(self.plan.strata, self.plan.recursive), self.rules, topics, present,
                           lambda iri: self._apply(iri, out, graphs))
            finally:
                for g in graphs:
                    for name in (g.value, inferred_graph(g.value)):
                        ds.remove_graph(URIRef(name))
        return out

    def _apply(self, iri: str, out: list[ox.Quad], graphs: set) -> list[ox.Quad]:
        ds = self._ds
        fresh = []
        for s, p, o in ds.query(self._prepare(iri)):
            cast = cast_of(str(s)) if isinstance(s, URIRef) else None
            if cast is None or ox.NamedNode(cast) not in graphs:
                raise RuleScopeError(f"rule {iri} wrote {(s, p, o)} outside any cast being derived")
            g = URIRef(inferred_graph(cast))
            if (s, p, o, g) not in ds:
                fresh.append((s, p, o, g))
        new = []
        for q in dict.fromkeys(fresh):
            ds.add(q)
            new.append(ox.Quad(to_ox(q[0]), to_ox(q[1]), to_ox(q[2]), ox.NamedNode(str(q[3]))))
        out.extend(new)
        return new


def _quad(q: ox.Quad):
    g = q.graph_name
    return (to_rdflib(q.subject), to_rdflib(q.predicate), to_rdflib(q.object),
            URIRef(g.value) if isinstance(g, ox.NamedNode) else None)


def rule_query(rule: Rule) -> str:
    """The query text the rdflib engine runs for a rule.

    The pyoxigraph engine binds ?rule with a VALUES block *after* the WHERE clause (SPARQL 1.1
    §10.2.2, algebra `Join(P, VALUES)`). rdflib 7 parses that trailing block but leaves it out of a
    CONSTRUCT's evaluation, so ?rule stays unbound and every `prov:wasDerivedFrom ?rule` triple is
    silently dropped from the template. The same algebra written inside the WHERE clause,
    `WHERE { { P } VALUES ?rule { <iri> } }`, is read identically by both engines (no rule mentions
    ?rule in its WHERE clause, so no FILTER scope changes).
    """
    text = rule.construct
    start = _where_group(text)
    body = text[start:].rstrip()
    if not body.endswith("}") or "?rule" in body:
        # a solution modifier after the WHERE group, or ?rule read inside it, would make the two
        # placements of VALUES differ; no rule does either
        raise ValueError(f"rule {rule.iri}: cannot move the ?rule binding into its WHERE group")
    return f"{_PROLOGUE}{text[:start]}{{ {body}\nVALUES ?rule {{ <{rule.iri}> }} }}"


def _where_group(text: str) -> int:
    """Offset of the `{` opening the WHERE group of a CONSTRUCT (after its template)."""
    i = text.index("{", text.upper().index("CONSTRUCT"))
    depth, in_str = 0, None
    while True:
        ch = text[i]
        if in_str:
            if ch == in_str and text[i - 1] != "\\":
                in_str = None
        elif ch in "\"'":
            in_str = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                break
        i += 1
    return text.index("{", i + 1)


#: Text-level differences between what the two engines run, by rule (see rule_query).
REWRITES = {"*": "trailing `VALUES ?rule {…}` moved inside the WHERE group (rdflib drops a trailing VALUES in CONSTRUCT)"}
