"""The rule engine: rules are data, ordered by what they read and write, run to a fixpoint."""
from __future__ import annotations

from functools import cache

import pyoxigraph as ox
import pytest

import liuyao_kg
from liuyao_kg import namespaces as ns
from liuyao_kg.reasoner.dependencies import RuleCycleError, plan, rule_io
from liuyao_kg.load import derive_with, engine_for
from liuyao_kg.reasoner.engine import Engine, Rule, RuleScopeError, cast_of


def _rule(iri: str, text: str) -> Rule:
    return Rule(iri=iri, construct=text, io=rule_io(text))


def test_dependencies_are_read_from_the_rule_text():
    io = rule_io("CONSTRUCT { ?l lyo:stageDay ?s } WHERE { ?l lyo:element ?e . FILTER NOT EXISTS { ?l a lyo:MovingLine } }")
    assert ("p", ns.LYO + "element", "") in io.reads
    assert ("t", ns.LYO + "MovingLine", "") in io.negated
    assert io.writes == {("p", ns.LYO + "stageDay", "")}


def test_a_negation_nested_in_an_exists_is_a_negated_dependency():
    # rdflib keeps a FILTER nested in an EXISTS only in the EXISTS's translated pattern (an attribute, not an item)
    io = rule_io("""CONSTRUCT { ?x lyo:stageDay ?s } WHERE { ?x lyo:element ?s .
        FILTER EXISTS { ?x lyo:branch ?b . FILTER NOT EXISTS { ?b lyo:branchClashes ?c } } }""")
    assert ("p", ns.LYO + "branch", "") in io.reads and ("p", ns.LYO + "branch", "") not in io.negated
    assert ("p", ns.LYO + "branchClashes", "") in io.negated


def test_a_rule_requires_only_what_every_solution_matches():
    io = rule_io("""CONSTRUCT { ?l lyo:stageDay ?s } WHERE {
        ?l a lyo:MovingLine ; lyo:element ?e .
        OPTIONAL { ?l lyo:branch ?b }
        { ?l a lyo:UseGod ; lyo:palace ?p } UNION { ?l a lyo:UseGod }
        MINUS { ?l a lyo:StaticLine }
        FILTER NOT EXISTS { ?l a lyo:MonthBroken } }""")
    assert io.required == {("t", ns.LYO + "MovingLine", ""), ("p", ns.LYO + "element", ""), ("t", ns.LYO + "UseGod", "")}


def test_the_keys_a_rule_needs_on_one_node_are_read_from_its_text():
    io = rule_io("""CONSTRUCT { ?l lyo:stageDay ?s } WHERE {
        ?l lyo:relative lyr:Wealth ; a lyo:MovingLine . ?c lyo:hasLine ?l ; a lyo:Cast .
        OPTIONAL { ?l lyo:branch ?b }
        { ?l lyo:element ?e ; lyo:palace ?p } UNION { ?l lyo:element ?e }
        { SELECT ?c WHERE { ?x a lyo:UseGod ; lyo:position ?n } } }""")
    wealth, moving, element = ("p", ns.LYO + "relative", ns.LYR + "Wealth"), ("t", ns.LYO + "MovingLine", ""), \
        ("p", ns.LYO + "element", "")
    # the OPTIONAL's and the one-sided UNION branch's keys are not needed; the sub-select's ?x is not projected
    assert io.together == {frozenset({wealth, moving, element}),
                           frozenset({("p", ns.LYO + "hasLine", ""), ("t", ns.LYO + "Cast", "")})}


def _guarded_engine():
    rule = _rule("urn:test:hit", "CONSTRUCT { ?l a lyo:Hit } WHERE { ?l lyo:relative lyr:Wealth ; a lyo:MovingLine }")
    engine = Engine([rule], b"")
    engine.threads = 1
    evaluated = []
    evaluate = engine._evaluate
    engine._evaluate = lambda iris: evaluated.extend(iris) or evaluate(iris)
    return engine, evaluated


def _quads(cast: str, facts) -> list[ox.Quad]:
    return [ox.Quad(ox.NamedNode(s), ox.NamedNode(p), ox.NamedNode(o), ox.NamedNode(cast)) for s, p, o in facts]


def test_a_rule_whose_keys_sit_on_different_nodes_is_not_evaluated():
    engine, evaluated = _guarded_engine()
    cast = ns.CAST + "guard"
    wealth = (cast + "/line/1", ns.LYO + "relative", ns.LYR + "Wealth")
    assert engine.derive(_quads(cast, [wealth, (cast + "/line/2", ns.RDF + "type", ns.LYO + "MovingLine")])) == []
    assert evaluated == []
    hit = engine.derive(_quads(cast, [wealth, (cast + "/line/1", ns.RDF + "type", ns.LYO + "MovingLine")]))
    assert evaluated == ["urn:test:hit"] and [str(q.object) for q in hit] == [f"<{ns.LYO}Hit>"]


def test_a_subject_outside_the_casts_turns_the_guard_off():
    engine, evaluated = _guarded_engine()
    cast = ns.CAST + "guard"
    engine.derive(_quads(cast, [(cast + "/line/1", ns.LYO + "relative", ns.LYR + "Wealth"),
                                ("urn:elsewhere", ns.RDF + "type", ns.LYO + "MovingLine")]))
    assert evaluated == ["urn:test:hit"]


def test_skipping_rules_whose_required_facts_are_absent_changes_no_result():
    """The engine evaluates a rule only while the store has a triple for each key it requires, and one node
    carries each group of keys it needs together."""
    from dataclasses import replace

    from liuyao_kg.store.embedded import KnowledgeGraph
    from liuyao_kg.loaders.cast_input import make_cast_input
    from liuyao_kg.loaders.rdf import cast_quads
    from liuyao_kg.reasoner.dependencies import RuleIO
    from samples import sample_casts

    engine = engine_for(derive_with(KnowledgeGraph(), backend="oxigraph"))
    unfiltered = Engine([replace(r, io=RuleIO(r.io.reads, r.io.negated, r.io.writes)) for r in engine.rules.values()],
                        engine._reference)
    assert sum(bool(r.io.required) for r in engine.rules.values()) > 0.9 * len(engine.rules)
    assert sum(bool(g) for g in engine._groups.values()) > 0.5 * len(engine.rules)
    inputs = [cast_quads(make_cast_input(v, month=m, day=d, topic=t)) for v, m, d, t in sample_casts(24, seed=11)]
    for group in (inputs[:1], inputs[1:4], inputs[4:]):
        quads = [q for c in group for q in c]
        assert set(engine.derive(quads)) == set(unfiltered.derive(quads))


def test_a_rule_runs_after_the_rules_it_reads_from():
    rules = {
        "urn:b": rule_io("CONSTRUCT { ?x lyo:relative ?r } WHERE { ?x lyo:element ?r }"),
        "urn:a": rule_io("CONSTRUCT { ?x lyo:element ?e } WHERE { ?x lyo:branch ?b . ?b lyo:element ?e }"),
    }
    order = [s[0] for s in plan(rules).strata]
    assert order.index("urn:a") < order.index("urn:b")


def test_rules_depending_on_each_other_through_negation_are_rejected():
    rules = {
        "urn:p": rule_io("CONSTRUCT { ?x a lyo:MovingLine } WHERE { ?x a lyo:Line . FILTER NOT EXISTS { ?x a lyo:StaticLine } }"),
        "urn:q": rule_io("CONSTRUCT { ?x a lyo:StaticLine } WHERE { ?x a lyo:Line . FILTER NOT EXISTS { ?x a lyo:MovingLine } }"),
    }
    with pytest.raises(RuleCycleError):
        plan(rules)


def test_constant_objects_keep_unrelated_roles_apart():
    writes_shi = rule_io("CONSTRUCT { ?l lyo:hasRole lyr:RoleShi } WHERE { ?l lyo:position 1 }")
    reads_ying = rule_io("CONSTRUCT { ?l lyo:spirit ?s } WHERE { ?l lyo:hasRole lyr:RoleYing ; lyo:element ?s }")
    p = plan({"urn:shi": writes_shi, "urn:ying": reads_ying})
    assert not p.graph.has_edge("urn:shi", "urn:ying")


def test_a_rule_writing_outside_the_casts_being_derived_is_refused():
    bad = _rule("urn:bad", "CONSTRUCT { lyr:BranchZi lyo:element lyr:Fire } WHERE { ?c a lyo:Cast }")
    engine = Engine([bad], [])
    cast = ox.NamedNode(ns.CAST + "x")
    with pytest.raises(RuleScopeError):
        engine.derive([ox.Quad(cast, ox.NamedNode(ns.RDF + "type"), ox.NamedNode(ns.LYO + "Cast"), cast)])


def test_recursive_rules_run_to_a_fixpoint():
    step = _rule("urn:step", """CONSTRUCT { ?a lyo:generates ?c } WHERE { ?a lyo:generates ?b . ?b lyo:generates ?c }""")
    engine = Engine([step], [])
    g = ox.NamedNode(ns.CAST + "chain")
    nodes = [ox.NamedNode(f"{ns.CAST}chain/line/{i}") for i in range(1, 6)]
    gen = ox.NamedNode(ns.LYO + "generates")
    out = engine.derive([ox.Quad(a, gen, b, g) for a, b in zip(nodes, nodes[1:])])
    assert len(out) == 6  # the transitive closure of a 5-chain adds 3 + 2 + 1 edges


def test_inferred_triples_go_to_the_cast_inferred_graph_never_the_asserted_one():
    chart = liuyao_kg.cast("節之中孚", month="寅", day="辛亥", topic="求財")
    kg = liuyao_kg.default_graph()
    asserted = kg.cast_graph(chart["cast"], inferred=False)
    everything = kg.cast_graph(chart["cast"], inferred=True)
    assert {q.graph_name.value for q in asserted} == {chart["cast"]}
    assert {q.graph_name.value for q in everything} == {chart["cast"], chart["cast"] + "/inferred"}
    assert not any(q.predicate.value == ns.LYO + "relative" for q in asserted)


def test_loading_the_same_cast_twice_adds_nothing():
    kg = liuyao_kg.default_graph()
    liuyao_kg.cast("否之臨", month="寅", day="己亥")
    before = len(kg.store)
    liuyao_kg.cast("否之臨", month="寅", day="己亥")
    assert len(kg.store) == before


def test_every_derived_state_names_the_rule_that_derived_it_and_its_source():
    chart = liuyao_kg.cast("大畜之小畜", month="午", day="己巳", topic="疾病")
    states = [s for line in chart["lines"] for s in line["states"]] + chart["states"]
    assert states
    for s in states:
        assert s["rule"].startswith(ns.LYRULE)
        assert s["source"] is not None and (s["source"]["quote"] or s["source"].get("note"))


def test_cast_of_maps_every_minted_node_to_its_cast():
    assert cast_of(ns.CAST + "abc/line/3/state/MonthBroken") == ns.CAST + "abc"
    assert cast_of(ns.LYR + "BranchZi") is None


def test_the_keys_a_store_reads_of_its_triples_in_one_query_are_those_of_each_triple():
    from liuyao_kg.ontology import layer_quads
    from liuyao_kg.reasoner.engine import ox_keys, store_keys

    layers = layer_quads()
    triples = [q.triple for g in (ns.GRAPH_ONTOLOGY, ns.GRAPH_REFERENCE) for q in layers[g]]
    store = ox.Store()
    store.extend(ox.Quad(t.subject, t.predicate, t.object) for t in triples)
    assert store_keys(store) == ox_keys(triples)


def test_the_keys_read_while_keeping_the_reference_are_those_the_kept_store_holds():
    from liuyao_kg.store.embedded import KnowledgeGraph
    from liuyao_kg.reasoner.engine import kept_reference, store_keys

    kg = KnowledgeGraph()
    try:
        engine = engine_for(kg)
        dumped = b"".join(kg.store.dump(format=ox.RdfFormat.N_TRIPLES, from_graph=ox.NamedNode(g))
                          for g in (ns.GRAPH_ONTOLOGY, ns.GRAPH_REFERENCE))
        kept, keys = kept_reference(dumped, engine.plan.reference_reads)
        store = ox.Store()
        store.load(kept, format=ox.RdfFormat.N_TRIPLES)
        assert keys == store_keys(store) and ("t", ns.LYO + "JinShenPillar", "") in keys
        assert kept_reference(dumped, None) == (dumped, None)
    finally:
        kg.close()


def test_the_working_store_keeps_the_reference_triples_some_rule_reads_and_only_those():
    from liuyao_kg.store.embedded import KnowledgeGraph
    from liuyao_kg.ontology import layer_quads

    engine = engine_for(derive_with(KnowledgeGraph(), backend="oxigraph"))
    reads = engine.plan.reference_reads
    reference = layer_quads()
    expected = {q.triple for g in (ns.GRAPH_ONTOLOGY, ns.GRAPH_REFERENCE) for q in reference[g]
                if q.predicate.value in reads["predicates"]
                or (q.predicate.value == ns.RDF + "type" and q.object.value in reads["types"])}
    assert set(engine._work.quads_for_pattern(None, None, None)) == {ox.Quad(*t) for t in expected}


def test_rules_of_one_level_never_read_each_others_output():
    # what lets the engine evaluate a level's rules in any order, or in several threads at once
    p = _reference_engine().plan
    for members, recursive in p.groups:
        if not recursive:
            inside = set(members)
            assert not [(a, b) for b in members for a in p.graph.predecessors(b) if a in inside]


def test_the_packaged_levels_are_those_of_the_dependency_graph():
    from liuyao_kg.reasoner.dependencies import stratum_levels

    p = _reference_engine().plan
    assert "levels" in p.__dict__, "the package's plan should carry its levels (no networkx at start)"
    assert p.levels == stratum_levels(p.graph, p.strata)


def _seeded_casts() -> list[list[ox.Quad]]:
    from liuyao_kg.loaders.cast_input import make_cast_input
    from liuyao_kg.loaders.rdf import cast_quads
    from samples import sample_casts

    return [cast_quads(make_cast_input(values, month=month, day=day, topic=topic))
            for values, month, day, topic in sample_casts(24, seed=5)]


def test_a_level_evaluated_in_two_threads_derives_exactly_what_one_thread_does():
    engine = _reference_engine()
    one, two = Engine(list(engine.rules.values()), engine._reference, threads=1), \
        Engine(list(engine.rules.values()), engine._reference, threads=2)
    two.PARALLEL_FROM = 1
    for quads in _seeded_casts():
        assert two.derive(quads) == one.derive(quads)  # the same quads, in the same order


def test_timing_the_evaluations_counts_each_one_and_changes_nothing_derived():
    engine = _reference_engine()
    plain, timed = Engine(list(engine.rules.values()), engine._reference, threads=2), \
        Engine(list(engine.rules.values()), engine._reference, threads=2)
    timed.PARALLEL_FROM = 1  # the timed evaluations of a level run on both threads
    evaluated: list[str] = []

    class Counting:  # the working store, counting the rule queries it answers
        def __init__(self, store):
            self.store = store

        def __getattr__(self, name):
            return getattr(self.store, name)

        def query(self, text, **kwargs):
            evaluated.append(text)
            return self.store.query(text, **kwargs)

    for quads in _seeded_casts()[:4]:
        timed.timings = {}
        # the engine may have rebuilt its working store during the last derivation (Engine.REBUILD_EVERY)
        timed._work = Counting(timed._work.store if isinstance(timed._work, Counting) else timed._work)
        del evaluated[:]
        assert timed.derive(quads) == plain.derive(quads)
        counts = timed.timings.values()
        assert sum(n for n, *_ in counts) == len(evaluated) > 0
        assert all(0 <= empty <= n and 0.0 <= empty_s <= s for n, empty, s, empty_s in counts)
        assert any(empty for _, empty, *_ in counts)  # some rules run and find nothing on every cast


def test_a_forked_child_evaluates_a_level_with_threads_of_its_own():
    import os
    import pickle

    engine = _reference_engine()
    two = Engine(list(engine.rules.values()), engine._reference, threads=2)
    two.PARALLEL_FROM = 1
    first, second = _seeded_casts()[:2]
    two.derive(first)  # the parent's pool now has a thread, which a child does not inherit
    expected = two.derive(second)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover — the child
        with os.fdopen(write, "wb") as out:
            out.write(pickle.dumps([str(q) for q in two.derive(second)]))
        os._exit(0)
    os.close(write)
    import select
    import signal

    ready, _, _ = select.select([read], [], [], 60)  # a child waiting on a thread it never had would hang
    if not ready:
        os.kill(pid, signal.SIGKILL)
    with os.fdopen(read, "rb") as f:
        data = f.read() if ready else b""
    os.waitpid(pid, 0)
    assert ready, "the forked child did not finish deriving"
    assert pickle.loads(data) == [str(q) for q in expected]


def test_the_state_rules_with_what_they_read_derive_every_state_all_rules_derive():
    """`of_class(…, lyo:StateRule)`: what the benchmarks compare with the oracle (chart and states, no reading)."""
    from liuyao_kg.ontology import layer_quads
    from liuyao_kg.loaders.cast_input import make_cast_input
    from liuyao_kg.loaders.rdf import cast_quads
    from liuyao_kg.reasoner.dependencies import STRUCTURAL, _matches
    from liuyao_kg.reasoner.engine import load_rules, of_class, triple_keys
    from samples import sample_casts

    layers = layer_quads((ns.GRAPH_ONTOLOGY, ns.GRAPH_REFERENCE, ns.GRAPH_RULES))
    store = ox.Store()
    store.extend(layers[ns.GRAPH_RULES])
    rules = [r for r in load_rules(store, ns.GRAPH_RULES) if not r.chapter]
    typed = {q.subject.value for q in layers[ns.GRAPH_RULES]
             if q.predicate.value == ns.RDF + "type" and q.object.value == ns.LYO + "StateRule"}
    subset = of_class(rules, layers[ns.GRAPH_RULES], ns.LYO + "StateRule")
    kept = {r.iri for r in subset}
    assert typed <= kept and typed
    assert not kept & {q.subject.value for q in layers[ns.GRAPH_RULES] if q.object.value in
                       (ns.LYO + "ReadingRule", ns.LYO + "TimingRule")}  # no state rule reads the reading

    reference = layers[ns.GRAPH_ONTOLOGY] + layers[ns.GRAPH_REFERENCE]
    quads = [q for v, m, d, t in sample_casts(6) for q in cast_quads(make_cast_input(v, month=m, day=d, topic=t))]
    everything, states = set(Engine(rules, reference).derive(quads)), set(Engine(subset, reference).derive(quads))
    assert states and states <= everything
    others = {w for r in rules if r.iri not in kept for w in r.io.writes}
    for q in everything - states:  # what only the rest derives, the rest writes (provenance: checked below)
        if q.predicate.value in STRUCTURAL:
            continue
        keys = set()
        triple_keys(q.predicate.value, q.object.value if isinstance(q.object, ox.NamedNode) else None, keys)
        assert any(_matches(w, k) for w in others for k in keys), q
    by_state_rule = {q for q in everything if q.predicate.value == ns.PROV + "wasDerivedFrom" and q.object.value in typed}
    assert by_state_rule and by_state_rule <= states


@cache
def _reference_engine():
    """The reference engine (SPARQL on pyoxigraph) for the package's rules: what these tests specify."""
    from liuyao_kg.reasoner.engines import build_engine

    return build_engine(backend="oxigraph")
