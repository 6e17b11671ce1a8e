"""The rule engine: runs the rule base (SPARQL CONSTRUCT rules stored in the graph) to a fixpoint.

Rules are read from the rules graph, ordered by their dependencies (see `dependencies`), and run
stratum by stratum on a working pyoxigraph store that holds the ontology and reference graphs plus
the casts being derived. Recursive strata are iterated until nothing new appears; the others run
once. A rule is not evaluated while the store has no triple for a pattern every solution of it needs
(`RuleIO.required`) or no one node carries a group of keys it needs together (`RuleIO.together`, `Holders`),
nor a chapter rule when no cast has its topic: an evaluation costs time even when it finds nothing
(benchmarks/single_cast.py). Every
inferred triple goes to the named graph `<cast>/inferred` of the cast its subject belongs to, so asserted and
inferred facts are never mixed. The working store is emptied of casts after each
derivation, which keeps memory bounded however many casts pass through it.
"""
from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

import pyoxigraph as ox

from liuyao_kg.namespaces import CAST, LYO, inferred_graph, sparql_prologue
from liuyao_kg.pools import ForkSafePool
from liuyao_kg.reasoner.dependencies import RDF_TYPE, Key, RuleIO, RulePlan, plan, rule_ios

_PROLOGUE = sparql_prologue()
_TOPIC = ox.NamedNode(LYO + "topic")


@dataclass(frozen=True)
class Rule:
    iri: str
    construct: str
    io: RuleIO
    #: topics the rule applies to (chapter rules); None = every cast. Lets the engine skip rules no
    #: cast of a batch can satisfy without evaluating them.
    topics: frozenset[str] | None = None
    #: a chapter rule (judgment) rather than a state rule
    chapter: bool = False


class RuleScopeError(RuntimeError):
    """A rule produced a triple whose subject belongs to no cast: rules may only describe casts."""


#: what `load_rules` asks of a store (liuyao_kg.build.lazy counts them among what a cast reads): three flat
#: SELECTs joined here rather than one grouped query with an OPTIONAL and an EXISTS (slower at start: benchmarks/cold_start.py)
RULE_TEXTS = _PROLOGUE + "SELECT ?rule ?text WHERE { ?rule lyo:sparqlConstruct ?text }"
RULE_TOPICS = _PROLOGUE + "SELECT ?rule ?topic WHERE { ?rule lyo:appliesToTopic ?topic }"
CHAPTER_RULES = _PROLOGUE + "SELECT ?rule WHERE { ?rule a lyo:ChapterRule }"
RULES_QUERIES = (RULE_TEXTS, RULE_TOPICS, CHAPTER_RULES)


def rule_rows(store: ox.Store, graph: str | None = None) -> tuple[list[tuple[str, str]], list[tuple[str, str]], set[str]]:
    """What RULES_QUERIES answer on a store (optionally one graph): (rule, text) sorted, (rule, topic), chapter rules."""
    kwargs = {"default_graph": ox.NamedNode(graph)} if graph else {"use_default_graph_as_union": True}
    texts = sorted({(r[0].value, r[1].value) for r in store.query(RULE_TEXTS, **kwargs)})
    topics = sorted({(r[0].value, r[1].value) for r in store.query(RULE_TOPICS, **kwargs)})
    return texts, topics, {r[0].value for r in store.query(CHAPTER_RULES, **kwargs)}


def rules_of_rows(texts: list[tuple[str, str]], topic_rows: list[tuple[str, str]], chapter: set[str]) -> list[Rule]:
    """The rules `rule_rows` describes, in IRI order (as reasoner/rule_base.py builds what it ships)."""
    topics: dict[str, set[str]] = {}
    for rule, topic in topic_rows:
        topics.setdefault(rule, set()).add(topic)
    ios = rule_ios(dict(texts))
    out = []
    for iri, text in texts:
        scope = topics.get(iri)
        out.append(Rule(iri=iri, construct=text, io=ios[iri], chapter=iri in chapter,
                        topics=None if not scope or "any" in scope else frozenset(scope)))
    return out


def of_class(rules: list[Rule], rule_quads: Iterable[ox.Quad], cls: str) -> list[Rule]:
    """The rules typed `cls` in the rules layer's quads (`lyo:StateRule`, say) and every rule whose output
    they read, transitively (the dependency graph's ancestors, negated reads included): a subset that
    derives all the chosen rules derive, and nothing else runs. The benchmarks compare the state rules so
    with the plain-Python oracle, which computes the chart and states and no reading (benchmarks/bench.py)."""
    import networkx as nx

    from liuyao_kg.reasoner.dependencies import dependency_graph

    chosen = {q.subject.value for q in rule_quads if q.predicate.value == RDF_TYPE and q.object.value == cls}
    chosen &= {r.iri for r in rules}
    graph = dependency_graph({r.iri: r.io for r in rules})
    keep = set(chosen).union(*(nx.ancestors(graph, iri) for iri in chosen)) if chosen else set()
    return [r for r in rules if r.iri in keep]


def load_rules(store: ox.Store, graph: str | None = None) -> list[Rule]:
    """Read every rule with an executable CONSTRUCT from the store (optionally one graph), in IRI order."""
    return rules_of_rows(*rule_rows(store, graph))


def cast_of(node_iri: str) -> str | None:
    """The cast IRI a node belongs to: `…/cast/<id>` is a prefix of every node minted for it."""
    if not node_iri.startswith(CAST):
        return None
    rest = node_iri[len(CAST):]
    return CAST + rest.split("/", 1)[0]


def triple_keys(predicate: str, obj: str | None, out: set[Key]) -> None:
    """Add to `out` the dependency keys (see dependencies.Key) a triple matches.

    `obj` is the object's IRI, or None for a literal or blank node.
    """
    if predicate == RDF_TYPE:
        out.add(("p", RDF_TYPE, ""))
        if obj is not None:
            out.add(("t", obj, ""))
        return
    out.add(("p", predicate, ""))
    if obj is not None:
        out.add(("p", predicate, obj))


def ox_keys(triples: Iterable, out: set[Key] | None = None) -> set[Key]:
    """The keys of pyoxigraph triples or quads, added to `out` (a new set if None)."""
    out = set() if out is None else out
    for t in triples:
        o = t.object
        triple_keys(t.predicate.value, o.value if isinstance(o, ox.NamedNode) else None, out)
    return out


def kept_reference(ntriples: bytes, reads: dict | None) -> tuple[bytes, set[Key] | None]:
    """The lines of canonical N-Triples (`s p o .` a line, as a store dumps them) a rule can match
    (`RulePlan.reference_reads`; all of them when unknown): a third of the reference, so the working store is
    built and scanned faster and no rule sees less. With them the keys (`ox_keys`) of the lines kept, read in
    the same pass (None when every line is kept unread: `store_keys` then asks the store)."""
    if reads is None:
        return ntriples, None
    predicates = {f"<{p}>".encode() for p in reads["predicates"]}
    types = {f"<{t}>".encode() for t in reads["types"]}
    rdf_type = f"<{RDF_TYPE}>".encode()
    kept, pairs = [], set()
    for line in ntriples.splitlines(keepends=True):
        _, p, rest = line.split(b" ", 2)
        obj = rest[:-3] if rest.endswith(b" .\n") else rest.rstrip()[:-1].rstrip()
        if p in predicates or (p == rdf_type and obj in types):
            kept.append(line)
            pairs.add((p, obj if obj[:1] == b"<" else None))
    keys: set[Key] = set()
    for p, obj in pairs:
        triple_keys(p[1:-1].decode(), None if obj is None else obj[1:-1].decode(), keys)
    return b"".join(kept), keys


def store_keys(store: ox.Store) -> set[Key]:
    """`ox_keys` of every triple of a store's default graph, read by one query rather than triple by triple."""
    out: set[Key] = set()
    for row in store.query("SELECT DISTINCT ?p ?o WHERE { ?s ?p ?x BIND(IF(isIRI(?x), ?x, 0) AS ?o) }"):
        o = row["o"]
        triple_keys(row["p"].value, o.value if isinstance(o, ox.NamedNode) else None, out)
    return out


def run_strata(strata: Iterable[tuple[list[str], bool]], rules: dict[str, Rule], topics: set[str],
               present: set[Key], apply, holders: "Holders | None" = None) -> None:
    """Run (stratum, recursive) pairs in order: a recursive one until `apply(iri)` adds nothing, the others once.

    A rule is skipped when it is scoped to topics none of the casts has, or when the store has no
    triple for one of the keys it requires (`present`: the keys of every triple in the store, kept up
    to date here from the triples each `apply` returns as new), or, given `holders`, when no one node carries
    the keys of one of its groups.
    """
    for stratum, recursive in strata:
        while True:
            added = 0
            for iri in stratum:
                if not _runs(rules[iri], topics, present, holders):
                    continue
                fresh = apply(iri)
                if fresh:
                    ox_keys(fresh, present)
                    if holders is not None:
                        holders.add(fresh)
                    added += len(fresh)
            if not recursive or added == 0:
                break


def _runs(rule: Rule, topics: set[str], present: set[Key], holders: "Holders | None" = None) -> bool:
    """Worth evaluating: scoped to a topic some cast has (or to none), every key it requires present, and
    (given `holders`) each of its groups of keys carried by one node."""
    return ((rule.topics is None or bool(rule.topics & topics)) and rule.io.required <= present
            and (holders is None or holders.allow(rule.iri)))


def runnable(rules: dict[str, Rule], members: list[str], topics: set[str], present: set[Key],
             holders: "Holders | None" = None) -> list[str]:
    """The rules of `members` worth evaluating (`_runs`)."""
    return [iri for iri in members if _runs(rules[iri], topics, present, holders)]


class Holders:
    """Which of the casts' nodes carry each key a rule's `together` groups name, kept from a derivation's own
    triples (asserted, then derived), so a rule is skipped while no node carries one of its groups (RuleIO.together).

    Sound without the reference's nodes: only groups with a key the reference has no triple for are kept
    (`groups`), so a node carrying one is a cast's node, every triple about which is a cast's; the reference
    describes no cast node (checked by the engine) and a rule describes only casts (RuleScopeError). A subject
    that is not a cast's node switches the guard off for the derivation.
    """

    def __init__(self, groups: dict[str, tuple[frozenset[Key], ...]], keys: frozenset[Key]):
        self._groups, self._keys = groups, keys
        self._by_key: dict[Key, set] = {}
        self._off = False

    def add(self, triples: Iterable) -> None:
        keys, by_key = self._keys, self._by_key
        for t in triples:
            s = t.subject
            if not (isinstance(s, ox.NamedNode) and s.value.startswith(CAST)):
                self._off = True
                continue
            p, o = t.predicate.value, t.object
            obj = o.value if isinstance(o, ox.NamedNode) else None
            for k in (("p", RDF_TYPE, ""), ("t", obj, "")) if p == RDF_TYPE else (("p", p, ""), ("p", p, obj)):
                if k in keys:
                    by_key.setdefault(k, set()).add(s)

    def allow(self, iri: str) -> bool:
        """False when some group of the rule's is carried by no single node."""
        groups = self._groups.get(iri)
        if not groups or self._off:
            return True
        by_key = self._by_key
        for group in groups:
            nodes = sorted((by_key.get(k, ()) for k in group), key=len)
            common = set(nodes[0])
            for other in nodes[1:]:
                if not common:
                    break
                common &= other
            if not common:
                return False
        return True


class Engine:
    """Derives the states of casts by running the rule base on a working store."""

    #: threads evaluating the rules of one level at once: pyoxigraph parses, plans and evaluates a query
    #: without holding the GIL, and the rules of a level do not read each other's output (RulePlan.groups)
    THREADS = min(2, os.cpu_count() or 1)
    #: a level with fewer rules to evaluate runs in the calling thread: handing rules over costs more
    PARALLEL_FROM = 8

    def __init__(self, rules: list[Rule], reference: Iterable[ox.Quad] | bytes, *, threads: int | None = None,
                 rule_plan: RulePlan | None = None, reference_keys: frozenset[Key] | None = None):
        """`reference`: the ontology and reference quads, or their triples as N-Triples (what a store dumps
        without a Python object per quad, cheaper for every `liuyao cast`). `threads`: see THREADS (1: every
        rule in the calling thread, as a batch worker process, one per core, does). `rule_plan`, `reference_keys`:
        the rules' plan, and the keys of a `reference` already kept (`kept_reference`), when shipped with them
        (reasoner/rule_base.py)."""
        self.threads = self.THREADS if threads is None else max(1, threads)
        self._pool = ForkSafePool("liuyao-rules")
        #: when a dict, each evaluation is timed into it: {rule IRI: [evaluations, of them finding nothing, seconds,
        #: seconds of those finding nothing]} (wall clock of pyoxigraph's query and reading its triples;
        #: benchmarks/single_cast.py). None: not timed.
        self.timings: dict[str, list] | None = None
        self.rules = {r.iri: r for r in rules}
        self.plan: RulePlan = rule_plan if rule_plan is not None else plan(
            {r.iri: r.io for r in rules}, {r.iri: r.construct for r in rules})
        # ?rule is bound to the rule's own IRI by a trailing VALUES block (SPARQL 1.1 §10.2.2).
        self._queries = {r.iri: f"{_PROLOGUE}{r.construct}\nVALUES ?rule {{ <{r.iri}> }}" for r in rules}
        if reference_keys is not None:
            self._reference, keys = reference, reference_keys
        else:
            self._reference, keys = kept_reference(reference if isinstance(reference, bytes) else ox.serialize(
                [q.triple for q in reference], format=ox.RdfFormat.N_TRIPLES), self.plan.reference_reads)
        self._fresh_store()
        self._deriving = threading.Lock()  # one derivation at a time on the working store (an engine is shared)
        self._reference_keys = store_keys(self._work) if keys is None else keys
        # the groups a Holders can check: a key of each the reference lacks, and no cast node in the reference
        describes_casts = re.search(rb"(?m)^<" + re.escape(CAST.encode()), self._reference) is not None
        self._groups = {} if describes_casts else {
            r.iri: kept for r in rules if (kept := tuple(g for g in r.io.together if not g <= self._reference_keys))}
        self._group_keys = frozenset(k for groups in self._groups.values() for g in groups for k in g)

    #: pyoxigraph's in-memory store keeps removed quads as history, which slows every later scan;
    #: the working store is rebuilt from the reference after this many derivations.
    REBUILD_EVERY = 32
    #: rebuilding the working store is cheaper than removing more quads than this one by one
    REBUILD_ABOVE_QUADS = 8000

    def _fresh_store(self) -> None:
        # Everything sits in the working store's default graph: a query over one graph avoids the
        # cost of evaluating over the union of named graphs, and which cast an inferred triple
        # belongs to is read off its subject (`cast_of`), not off a graph name.
        self._work = ox.Store()
        self._work.load(self._reference, format=ox.RdfFormat.N_TRIPLES)
        self._uses = 0

    def derive(self, cast_quads: Iterable[ox.Quad]) -> list[ox.Quad]:
        """Return the inferred quads for the casts given (their asserted quads)."""
        with self._deriving:
            return self._derive(list(cast_quads))

    def _derive(self, quads: list[ox.Quad]) -> list[ox.Quad]:
        topics = {q.object.value for q in quads if q.predicate == _TOPIC}
        if self._uses >= self.REBUILD_EVERY:
            self._fresh_store()
        self._uses += 1
        work = self._work
        asserted = [ox.Quad(q.subject, q.predicate, q.object) for q in quads]
        work.extend(asserted)
        run = _Run(graphs={q.graph_name for q in quads}, seen={q.triple for q in asserted})
        present = ox_keys(asserted, set(self._reference_keys))
        holders = Holders(self._groups, self._group_keys)
        holders.add(asserted)
        try:
            for members, recursive in self.plan.groups:
                if recursive:  # one recursive stratum, to its fixpoint
                    run_strata([(members, True)], self.rules, topics, present, lambda iri: self._apply(iri, run),
                               holders)
                    continue
                iris = runnable(self.rules, members, topics, present, holders)
                for iri, triples in zip(iris, self._evaluate(iris)):  # in the level's order: the same output
                    fresh = self._add(iri, triples, run)
                    if fresh:
                        ox_keys(fresh, present)
                        holders.add(fresh)
        finally:  # leave the working store as it was, whether derivation succeeded or not
            if len(run.seen) > self.REBUILD_ABOVE_QUADS:
                self._fresh_store()
            else:
                for q in asserted:
                    work.remove(q)
                for q in run.out:
                    work.remove(ox.Quad(q.subject, q.predicate, q.object))
        return run.out

    def _evaluate(self, iris: list[str]) -> list[list[ox.Triple]]:
        """Each rule's triples, the rules of one level shared by `threads` threads (none writes the store)."""
        work, queries = self._work, self._queries
        out: list = [None] * len(iris)
        todo = iter(range(len(iris)))  # shared: each thread takes the next rule (next() is atomic under the GIL)

        timings = self.timings
        took: list = [0.0] * len(iris) if timings is not None else []

        def take() -> None:
            if timings is None:
                for i in todo:
                    out[i] = list(work.query(queries[iris[i]]))
                return
            for i in todo:  # each slot written by one thread; summed below, in the calling thread
                start = time.perf_counter()
                out[i] = list(work.query(queries[iris[i]]))
                took[i] = time.perf_counter() - start

        n = self.threads
        if n == 1 or len(iris) < self.PARALLEL_FROM:
            take()
        else:
            pool = self._pool.get(n - 1)
            helpers = [pool.submit(take) for _ in range(n - 1)]
            take()
            for h in helpers:
                h.result()
        if timings is not None:
            for iri, triples, seconds in zip(iris, out, took):
                _count(timings, iri, triples, seconds)
        return out

    def _apply(self, iri: str, run: "_Run") -> list[ox.Quad]:
        """Evaluate one rule; add its new triples to the store and to `run.out`, and return them."""
        if self.timings is None:
            return self._add(iri, self._work.query(self._queries[iri]), run)
        start = time.perf_counter()
        triples = list(self._work.query(self._queries[iri]))
        _count(self.timings, iri, triples, time.perf_counter() - start)
        return self._add(iri, triples, run)

    def _add(self, iri: str, triples: Iterable[ox.Triple], run: "_Run") -> list[ox.Quad]:
        """Add a rule's triples that are new to the store and to `run.out`, and return them."""
        seen, inferred = run.seen, run.inferred
        new = []
        for t in triples:
            if t in seen:
                continue
            graph = inferred.get(t.subject)
            if graph is None:
                inferred[t.subject] = graph = _inferred_graph_of(t, iri, run.graphs)
            seen.add(t)
            new.append(ox.Quad(t.subject, t.predicate, t.object, graph))
        if new:
            self._work.extend(ox.Quad(q.subject, q.predicate, q.object) for q in new)
            run.out.extend(new)
        return new


@dataclass
class _Run:
    """One derivation's state: its casts, every triple of theirs in the working store, the output."""

    graphs: set
    seen: set
    inferred: dict = field(default_factory=dict)  # subject → the inferred graph of its cast
    out: list = field(default_factory=list)


def _count(timings: dict[str, list], iri: str, triples: list, seconds: float) -> None:
    entry = timings.setdefault(iri, [0, 0, 0.0, 0.0])
    entry[0] += 1
    entry[2] += seconds
    if not triples:
        entry[1] += 1
        entry[3] += seconds


def _inferred_graph_of(t: ox.Triple, iri: str, graphs: set) -> ox.NamedNode:
    cast = cast_of(t.subject.value) if isinstance(t.subject, ox.NamedNode) else None
    if cast is None or ox.NamedNode(cast) not in graphs:
        raise RuleScopeError(f"rule {iri} wrote {t} outside any cast being derived")
    return ox.NamedNode(inferred_graph(cast))


__all__ = ["Engine", "Rule", "run_strata", "ox_keys", "triple_keys", "RuleScopeError", "load_rules", "rule_rows",
           "rules_of_rows", "Holders", "cast_of", "LYO"]
