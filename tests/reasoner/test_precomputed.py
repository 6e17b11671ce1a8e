"""The package ships its rule analysis precomputed (ontology/compiled/rule_analysis.json), and the rule base a new store's
engine starts from decoded (ontology/compiled/rule_base.pickle, reference_kept.nt): a first start parses no rule.

Like reference.ttl, the files are generated (python -m liuyao_kg.build rule-base) and checked here for
drift from the rules; and a fresh, read-only cache directory must not send the engine to rdflib.
"""
from __future__ import annotations

import os

import pyoxigraph as ox
import pytest

from liuyao_kg import namespaces as ns
from liuyao_kg.ontology import layer_quads
from liuyao_kg.reasoner import dependencies
from liuyao_kg.load import derive_with, engine_for
from liuyao_kg.reasoner.engine import Engine, load_rules


@pytest.fixture
def read_only_cache(tmp_path, monkeypatch):
    """An empty cache directory nothing can be written to: what a fresh machine with a locked HOME gives."""
    cache = tmp_path / "cache"
    cache.mkdir()
    os.chmod(cache, 0o500)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return cache


def _refusal(why: str):
    def refuse(*_a, **_k):
        raise AssertionError(why)

    return refuse



# --- the rule base and reference the engine starts from (reasoner/rule_base.py) --------------------------



def _store_rules_and_reference():
    layers = layer_quads()
    store = ox.Store()
    for graph in (ns.GRAPH_ONTOLOGY, ns.GRAPH_REFERENCE, ns.GRAPH_RULES):
        store.extend(layers[graph])
    rules = load_rules(store, ns.GRAPH_RULES)
    reference = b"".join(store.dump(format=ox.RdfFormat.N_TRIPLES, from_graph=ox.NamedNode(g))
                         for g in (ns.GRAPH_ONTOLOGY, ns.GRAPH_REFERENCE))
    return rules, reference


def test_the_shipped_rule_base_is_the_rules_graph_as_the_engine_reads_it():
    from liuyao_kg.reasoner import rule_base

    rules, reference = _store_rules_and_reference()
    start = rule_base.current()
    assert start.rules == rules  # IRIs, CONSTRUCTs, analyses, topics and chapter flags, in the same order
    for chapter in (True, False):  # the plans shipped, with and without the chapter rules, are the engine's own
        subset = [r for r in rules if chapter or not r.chapter]
        ours = Engine([r for r in start.rules if chapter or not r.chapter], start.reference,
                      rule_plan=start.plans[chapter], reference_keys=start.reference_keys)
        theirs = Engine(subset, reference)
        assert (ours.plan.strata, ours.plan.recursive, ours.plan.levels, ours.plan.ios) == \
            (theirs.plan.strata, theirs.plan.recursive, theirs.plan.levels, theirs.plan.ios)
        assert sorted(ours._reference.splitlines()) == sorted(theirs._reference.splitlines())
        assert ours._reference_keys == theirs._reference_keys


def test_an_engine_from_the_shipped_rule_base_derives_what_one_reading_the_store_derives():
    from liuyao_kg.reasoner.engines import build_engine
    from liuyao_kg.loaders.cast_input import make_cast_input
    from liuyao_kg.loaders.rdf import cast_quads

    rules, reference = _store_rules_and_reference()
    casts = [make_cast_input("節之中孚", month="寅", day="辛亥", topic="求財"),
             make_cast_input("787986", month="卯", day="壬子", topic="疾病", sex="女"),
             make_cast_input("乾之坤", month="午", day="甲子", topic="婚姻", year="庚午")]
    shipped, read = build_engine(packaged=True), Engine(rules, reference)
    for ci in casts:
        quads = cast_quads(ci)
        assert sorted(map(str, shipped.derive(quads))) == sorted(map(str, read.derive(quads)))


def test_a_layer_file_changed_since_the_rule_base_was_built_is_read_from_the_store(monkeypatch):
    from liuyao_kg import ontology
    from liuyao_kg.store.embedded import KnowledgeGraph
    from liuyao_kg.reasoner import rule_base

    versions = dict(ontology.package_versions())
    versions[ns.GRAPH_RULES] = "sha256:other"
    rule_base.current.cache_clear()
    monkeypatch.setattr(ontology, "package_versions", lambda: versions)
    try:
        assert rule_base.current() is None
        kg = KnowledgeGraph()
        rules = engine_for(kg).rules
        assert not kg.deferring  # the store's layers whole before the engine read its rules out of them
    finally:
        rule_base.current.cache_clear()
    assert list(rules.values()) == _store_rules_and_reference()[0]


def test_the_engine_of_a_new_store_starts_without_decoding_the_rule_analysis(monkeypatch):
    """The shipped rule base holds each rule's analysis and the plans decoded: neither the analysis file nor a
    hash of the rules' texts is needed (~60 ms of every `liuyao cast`)."""
    from liuyao_kg.store.embedded import KnowledgeGraph

    refuse = _refusal("the rule analysis was read although the rule base ships it decoded")
    monkeypatch.setattr(dependencies, "_packaged", refuse)
    monkeypatch.setattr(dependencies, "rule_ios", refuse)
    monkeypatch.setattr(dependencies, "rules_key", refuse)
    for chapter_rules in (True, False):
        engine = engine_for(derive_with(KnowledgeGraph(), chapter_rules=chapter_rules))
        assert any(r.chapter for r in engine.rules.values()) == chapter_rules


@pytest.mark.parametrize("content", ["names a class", "has another shape", "is cut short"])
def test_a_rule_base_file_not_as_built_is_not_read(content, tmp_path, monkeypatch):
    """Only plain data is unpickled: a file naming a class (here a harmless one) is refused, as is one of the right
    format and versions whose rules have another shape, or a truncated one; the engine then reads its rules out of
    the store as for any other rule base."""
    import pickle
    from collections import OrderedDict

    from liuyao_kg.ontology import package_versions
    from liuyao_kg.reasoner import rule_base

    built_from = {g: package_versions()[g] for g in rule_base._graphs()}
    data = {"names a class": pickle.dumps(OrderedDict(format=rule_base.FORMAT)),
            "has another shape": pickle.dumps({"format": rule_base.FORMAT, "built_from": built_from,
                                               "rules": [("urn:x:rule",)], "plans": {}, "reference_keys": ()}),
            "is cut short": rule_base.RULES.read_bytes()[:1000]}[content]
    path = tmp_path / "rule_base.pickle"
    path.write_bytes(data)
    monkeypatch.setattr(rule_base, "RULES", path)
    rule_base.current.cache_clear()
    try:
        assert rule_base.current() is None
    finally:
        rule_base.current.cache_clear()


def test_a_fresh_read_only_cache_directory_starts_the_engine_without_parsing_a_rule(read_only_cache, monkeypatch):
    refuse = _refusal("a rule was parsed although the package ships its analysis")
    monkeypatch.setattr(dependencies, "rule_io", refuse)
    monkeypatch.setattr(dependencies, "dependency_graph", refuse)
    layers = layer_quads()
    store = ox.Store()
    store.extend(layers[ns.GRAPH_RULES])
    rules = load_rules(store, ns.GRAPH_RULES)
    Engine(rules, layers[ns.GRAPH_REFERENCE])  # plans from the packaged strata
    Engine([r for r in rules if not r.chapter], layers[ns.GRAPH_REFERENCE])
    assert not any(read_only_cache.iterdir())


def test_a_rule_missing_from_the_package_is_analysed_with_a_message(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(dependencies, "PROGRESS_ABOVE", 1)
    text = "CONSTRUCT { ?s a lyo:Cast } WHERE { ?s lyo:castId ?id }"
    ios = dependencies.rule_ios({"urn:x": text})
    assert ("p", ns.LYO + "castId", "") in ios["urn:x"].reads
    assert "analysing 1 rule(s)" in capsys.readouterr().err


def test_a_cached_analysis_reads_back_as_the_analysis_itself(tmp_path, monkeypatch):
    """The analysis files write keys as text (`p lyo:relative lyr:Wealth`); IRIs outside the prefixes, a
    variable predicate and a local name no prefix can carry come back unchanged, from the cache as analysed."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    text = ("CONSTRUCT { ?s a <urn:x:Out> ; lyo:involves ?l } WHERE { ?s lyo:relative lyr:Wealth ; ?p ?o ; "
            "<http://example.org/a%20b#c> ?x . ?l a lyo:Line . FILTER NOT EXISTS { ?s a <https://w3id.org/liuyao-kg/ref/x/y> } }")
    first = dependencies.rule_ios({"urn:x": text})["urn:x"]
    assert ("p", ns.LYO + "relative", ns.LYR + "Wealth") in first.reads
    assert ("p", "http://example.org/a%20b#c", "") in first.required and ("t", "urn:x:Out", "") in first.writes
    assert ("p", "*", "") in first.reads and ("t", ns.LYR + "x/y", "") in first.negated
    monkeypatch.setattr(dependencies, "rule_io", lambda _t: pytest.fail("analysed again: not read from the cache"))
    dependencies._field_keys.cache_clear()
    assert dependencies.rule_ios({"urn:x": text})["urn:x"] == first


def test_a_cache_entry_of_another_format_is_analysed_again(tmp_path, monkeypatch):
    import hashlib
    import json

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    text = "CONSTRUCT { ?s a lyo:Cast } WHERE { ?s lyo:castId ?id }"
    old = {"reads": [["p", ns.LYO + "castId", ""]], "negated": [], "writes": [["t", ns.LYO + "Cast", ""]],
           "required": [["p", ns.LYO + "castId", ""]]}  # lists of IRIs, as version 3 wrote them
    dependencies._cache_file().parent.mkdir(parents=True)
    dependencies._cache_file().write_text(json.dumps({hashlib.sha256(text.encode()).hexdigest(): old}))
    io = dependencies.rule_ios({"urn:x": text})["urn:x"]
    assert io.required == {("p", ns.LYO + "castId", "")}
