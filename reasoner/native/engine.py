"""`NativeEngine`: the reference Engine's interface and output, the rules run as the compiled functions.

Each cast is derived on its own index (the kept reference, its asserted triples, what has been inferred for it so
far): never a join across casts. The strata and their order are the reference Engine's (`RulePlan.groups`): a
recursive stratum runs to its fixpoint, a rule at a time; the rules of a level see the index as it was before the
level, as the Engine's threads see its store. A rule whose topics the cast lacks is skipped, as the Engine skips it.
A rule on the compiled module's fallback list runs on pyoxigraph, on a store holding the same triples.
"""
from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from functools import partial

import pyoxigraph as ox

from liuyao_kg.namespaces import CAST, LYO, sparql_prologue
from liuyao_kg.reasoner.engine import Rule, RuleScopeError, kept_reference
from liuyao_kg.namespaces import inferred_graph
from liuyao_kg.reasoner.native import BUILD_COMMAND, StaleCompiledRules, compiled_module
from liuyao_kg.reasoner.native.index import Index
from liuyao_kg.reasoner.native.runtime import NotNative
from liuyao_kg.reasoner.native.terms import from_ox, to_ox

_TOPIC = ox.NamedNode(LYO + "topic")
_PROLOGUE = sparql_prologue()


class JudgmentReadError(RuntimeError):
    """A state or reading rule reads a judgment: the states and the reading would then depend on the chapter rules."""


#: the vocabulary only judgments carry (chapter rules' templates): a state or reading rule must not match it
_JUDGMENT_TERMS = re.compile(r"(?:\blyo:|<" + re.escape(LYO) + r")(?:Judgment|judgmentOf|matchedLine)\b")


def judgment_readers(rules: list[Rule]) -> list[str]:
    """The state and reading rules that read what a chapter rule writes: a key of a chapter rule's template
    (rule dependencies' analysis), or the judgments' own vocabulary anywhere in their WHERE clause."""
    from liuyao_kg.reasoner.dependencies import _matches

    written = {k for r in rules if r.chapter for k in r.io.writes}
    out = []
    for r in rules:
        if r.chapter:
            continue
        where = r.construct[r.construct.upper().find("WHERE"):]
        if any(_matches(w, k) for w in written for k in r.io.reads) or _JUDGMENT_TERMS.search(where):
            out.append(r.iri)
    return sorted(out)


def rule_digest(rule: Rule) -> str:
    import hashlib

    return hashlib.sha256(f"{rule.iri}\0{rule.construct}".encode("utf-8")).hexdigest()


class NativeEngine:
    """Derives the states of casts with the compiled rules (see the module's docstring)."""

    def __init__(self, rules: list[Rule], reference: Iterable[ox.Quad] | bytes, *, rule_plan=None,
                 reference_keys=None, compiled=None):
        """As `Engine`: the rules, the ontology and reference (quads, or N-Triples), optionally the rules' plan.
        `compiled`: the module of compiled rules (default: the shipped one). Raises StaleCompiledRules when a rule
        is not in it as it is now."""
        from liuyao_kg.reasoner.dependencies import plan

        del reference_keys  # the Engine's guard: every compiled rule that finds nothing costs microseconds
        self.rules = {r.iri: r for r in rules}
        self.plan = rule_plan if rule_plan is not None else plan(
            {r.iri: r.io for r in rules}, {r.iri: r.construct for r in rules})
        module = compiled if compiled is not None else compiled_module()
        self.functions: dict = {}
        self.fallback: dict[str, str] = {}
        stale = []
        for r in rules:
            entry = module.RULES.get(r.iri) or module.FALLBACK.get(r.iri)
            if entry is None or entry[0] != rule_digest(r):
                stale.append(r.iri)
            elif r.iri in module.RULES:
                self.functions[r.iri] = entry[1]
            else:
                self.fallback[r.iri] = entry[1]
        readers = judgment_readers(rules)
        if readers:
            raise JudgmentReadError(f"state or reading rules read judgments: {', '.join(readers)}")
        if stale:
            raise StaleCompiledRules(
                f"{len(stale)} rule(s) are not compiled as they are now (first: {stale[0]}): run {BUILD_COMMAND}")
        if not isinstance(reference, bytes):  # the Engine keeps quads' triples as N-Triples too
            reference = ox.serialize([q.triple for q in reference], format=ox.RdfFormat.N_TRIPLES)
        #: the part of the reference some rule reads (as the Engine keeps it), for the fallback's store
        self._reference, _ = kept_reference(reference, self.plan.reference_reads)
        triples = ox.parse(self._reference, format=ox.RdfFormat.N_TRIPLES)
        self._index = Index.of((from_ox(t.subject), from_ox(t.predicate), from_ox(t.object)) for t in triples)
        self._keep = getattr(module, "LOOKUPS", None)
        self._by_topics: dict = {}
        self._iris: dict = {}  # NamedNodes of IRIs outside any cast (predicates, classes, reference nodes)
        self._store = None  # pyoxigraph store of the reference, for the fallback rules
        self._falling_back = threading.Lock()  # one fallback at a time on that store (an engine is shared)

    def _groups(self, topics: frozenset) -> list:
        """The plan's groups with the rules a cast of these topics runs: [(recursive, [(iri, function)])], a function
        of the index giving the rule's triples (the fallback's, on pyoxigraph, for a rule on its list)."""
        groups = self._by_topics.get(topics)
        if groups is None:
            groups = []
            for members, recursive in self.plan.groups:
                run = [(iri, self.functions.get(iri) or partial(self._fallback, iri)) for iri in members
                       if self.rules[iri].topics is None or self.rules[iri].topics & topics]
                if run:
                    groups.append((recursive, run))
            self._by_topics[topics] = groups
        return groups

    def derive(self, cast_quads: Iterable[ox.Quad]) -> list[ox.Quad]:
        """The inferred quads of the casts given (their asserted quads), each cast derived on its own."""
        by_cast: dict = {}
        for q in cast_quads:
            by_cast.setdefault(q.graph_name, []).append(q)
        out: list[ox.Quad] = []
        for graph, quads in by_cast.items():
            out += self._derive_cast(graph, quads)
        return out

    def derive_cast(self, cast_quads: Iterable[ox.Quad]) -> tuple[list[ox.Quad], Index]:
        """One cast's inferred quads (its asserted quads given, all of one graph), and its index after the derivation:
        the kept reference, the asserted and the inferred triples (what the compiled named queries read,
        liuyao_kg.queries.native)."""
        quads = list(cast_quads)
        graphs = {q.graph_name for q in quads}
        if len(graphs) > 1:
            raise ValueError(f"derive_cast: the quads of {len(graphs)} graphs, not of one cast")
        index, start = self.derive_index(quads)
        graph = next(iter(graphs), None)
        return self._quads(index.added[start:], graph.value if isinstance(graph, ox.NamedNode) else None), index

    def _derive_cast(self, graph, quads: list) -> list[ox.Quad]:
        index, start = self.derive_index(quads)
        return self._quads(index.added[start:], graph.value if isinstance(graph, ox.NamedNode) else None)

    def derive_index(self, quads: list[ox.Quad]) -> tuple[Index, int]:
        """One cast's index after derivation (its asserted quads given), and where its inferred triples start in
        `index.added`: what a reader of native terms takes instead of quads (a load's rows, its N-Quads)."""
        graph = quads[0].graph_name if quads else None
        cast = graph.value if isinstance(graph, ox.NamedNode) else None
        topics = frozenset(q.object.value for q in quads if q.predicate == _TOPIC)
        index = self._index.fork(self._keep)
        index.extend([(from_ox(q.subject), from_ox(q.predicate), from_ox(q.object)) for q in quads])
        start = len(index.added)
        add, fallback = self._add, self._fallback
        for recursive, members in self._groups(topics):
            # inlined (this loop runs ~400 rules a cast, most finding nothing): a function raises NotNative for a
            # case it leaves to pyoxigraph. A recursive stratum adds a rule's triples at once and runs again until a
            # round adds nothing; a level's rules do not read each other: each sees the index as the level found it
            while True:
                added, pending = 0, []
                for iri, fn in members:
                    try:
                        triples = fn(index)
                    except NotNative:
                        triples = fallback(iri, index)
                    if triples:
                        if recursive:
                            added += add(index, iri, triples, cast)
                        else:
                            pending.append((iri, triples))
                for iri, triples in pending:
                    add(index, iri, triples, cast)
                if not (recursive and added):
                    break
        return index, start

    def _quads(self, triples: list, cast: str) -> list[ox.Quad]:
        """The inferred triples as quads of the cast's inferred graph (NamedNodes of IRIs outside any cast kept)."""
        if not triples:
            return []
        g = ox.NamedNode(inferred_graph(cast))
        shared, local = self._iris, {}
        named, quad = ox.NamedNode, ox.Quad
        out = []
        for s, p, o in triples:
            S = local.get(s)
            if S is None:
                S = local[s] = named(s)  # a subject is a node of the cast (checked as added)
            P = shared.get(p)
            if P is None:
                P = (local if p.startswith(CAST) else shared).setdefault(p, named(p))
            O = shared.get(o) or local.get(o)
            if O is None:
                if type(o) is str:
                    O = (local if o.startswith(CAST) else shared)[o] = named(o)
                else:
                    O = local[o] = to_ox(o)
            out.append(quad(S, P, O, g))
        return out

    @staticmethod
    def _add(index: Index, iri: str, triples, cast: str | None) -> int:
        """Add a rule's triples to the index; raise RuleScopeError for a new one about no node of the cast."""
        new = index.extend(triples)
        if new:
            prefix = None if cast is None else cast + "/"
            for t in new:
                s = t[0]
                if type(s) is not str or cast is None or (s != cast and not s.startswith(prefix)):
                    raise RuleScopeError(f"rule {iri} wrote {t} outside any cast being derived")
        return len(new)

    def _fallback(self, iri: str, index: Index) -> list:
        """A rule the compiler could not take, evaluated on pyoxigraph over the same triples."""
        with self._falling_back:
            return self._fallback_locked(iri, index)

    def _fallback_locked(self, iri: str, index: Index) -> list:
        if self._store is None:
            self._store = ox.Store()
            self._store.load(self._reference, format=ox.RdfFormat.N_TRIPLES)
        store = self._store
        own = [ox.Quad(to_ox(s), to_ox(p), to_ox(o)) for s, p, o in index.added]
        own = [q for q in own if q not in store]
        store.extend(own)
        try:
            query = f"{_PROLOGUE}{self.rules[iri].construct}\nVALUES ?rule {{ <{iri}> }}"
            return [(from_ox(t.subject), from_ox(t.predicate), from_ox(t.object)) for t in store.query(query)]
        finally:
            for q in own:
                store.remove(q)

