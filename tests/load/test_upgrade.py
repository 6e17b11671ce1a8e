"""Versioned layers: an on-disk store written by an older rule base is detected and upgraded in place."""
from __future__ import annotations

import json
import warnings

import pyoxigraph as ox
import pytest

from liuyao_kg import namespaces as ns
from liuyao_kg.cli import main
from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.loaders import make_cast_input
from liuyao_kg.loaders.rdf import cast_quads
from liuyao_kg.namespaces import inferred_graph
from liuyao_kg.load.upgrade import cast_iris, upgrade
from liuyao_kg.store.versioning import (
    GRAPH_META, OutdatedStoreError, OutdatedStoreWarning, outdated_layers, recorded_versions,
)
from liuyao_kg.ontology import package_versions
from liuyao_kg.load import add_casts

from old_stores import asserted, fresh_inferred as derived_fresh, graph as _graph, old_store

CASTS = [dict(spec="大畜之小畜", month="午", day="己巳", topic="疾病"),
         dict(spec="節之中孚", month="寅", day="辛亥", topic="求財"),
         dict(spec="否之臨", month="寅", day="己亥")]


def _asserted():
    return asserted(CASTS)


@pytest.fixture(scope="module")
def fresh_inferred():
    return derived_fresh(CASTS)


def _old_store(path):
    return old_store(path, CASTS)


def test_a_fresh_store_records_the_package_version_of_every_layer(tmp_path):
    with KnowledgeGraph(tmp_path / "kg") as kg:
        assert recorded_versions(kg.store) == package_versions() and not kg.outdated
        meta = {q.predicate.value for q in kg.store.quads_for_pattern(None, None, None, ox.NamedNode(GRAPH_META))}
        assert {ns.DCTERMS + "hasVersion", ns.OWL + "versionInfo", ns.PROV + "generatedAtTime",
                ns.DCTERMS + "source"} <= meta
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # reopening a current store warns about nothing
        KnowledgeGraph(tmp_path / "kg").close()


def test_an_outdated_store_warns_refuses_writes_and_upgrade_rederives_every_cast(tmp_path, fresh_inferred):
    path = tmp_path / "kg"
    iris, asserted = _old_store(path)
    states = lambda store, c: {q.object.value for q in _graph(store, inferred_graph(c))
                               if q.predicate.value == ns.RDF + "type"}
    with pytest.warns(OutdatedStoreWarning, match="rules"):
        kg = KnowledgeGraph(path)
    try:
        assert set(kg.outdated) == {ns.GRAPH_RULES}
        assert ns.LYO + "MonthBroken" not in states(kg.store, iris[0])  # derived without the rule
        assert _graph(kg.store, inferred_graph(iris[0])) != fresh_inferred[iris[0]]
        new = cast_quads(make_cast_input("乾", month="子", day="甲子"))
        with pytest.raises(OutdatedStoreError, match="liuyao upgrade"):
            add_casts(kg, new)
        assert add_casts(kg, _asserted()) == iris  # known casts: nothing to write, no error
    finally:
        kg.close()

    seen = []
    report = upgrade(path, partition=2, on_progress=lambda done, total: seen.append((done, total)))
    assert report["casts"] == 3 and list(report["layers"]) == ["rules"]
    assert report["layers"]["rules"]["from"] == "sha256:old" and report["layers"]["rules"]["added"] > 0
    assert seen == [(2, 3), (3, 3)]

    with warnings.catch_warnings():
        warnings.simplefilter("error", OutdatedStoreWarning)
        kg = KnowledgeGraph(path)
    try:
        assert not kg.outdated and recorded_versions(kg.store) == package_versions()
        assert sorted(cast_iris(kg.store)) == sorted(iris)
        for c in iris:
            assert _graph(kg.store, c) == asserted[c]  # asserted graphs untouched
            assert _graph(kg.store, inferred_graph(c)) == fresh_inferred[c]  # equal to a fresh derivation
        assert ns.LYO + "MonthBroken" in states(kg.store, iris[0])
        fresh_rules = KnowledgeGraph().store
        assert _graph(kg.store, ns.GRAPH_RULES) == _graph(fresh_rules, ns.GRAPH_RULES)
    finally:
        kg.close()
    assert upgrade(path)["casts"] == 0  # a current store: nothing to do


def test_a_store_of_casts_that_predates_versioning_is_outdated(tmp_path):
    path = tmp_path / "kg"
    with KnowledgeGraph(path) as kg:
        add_casts(kg, _asserted()[:1])  # a store without casts is given the package's layers on open instead
        kg.store.remove_graph(ox.NamedNode(GRAPH_META))
    with pytest.warns(OutdatedStoreWarning):
        kg = KnowledgeGraph(path)
    try:
        assert set(kg.outdated) == set(package_versions()) and all(old is None for old, _ in kg.outdated.values())
    finally:
        kg.close()
    report = upgrade(path)
    assert set(report["layers"]) == {"ontology", "reference", "rules", "passages"}
    with KnowledgeGraph(path) as kg:
        assert not outdated_layers(kg.store)


def test_a_store_without_casts_whose_layers_are_unrecorded_repairs_itself_on_open(tmp_path):
    """What a process killed during an older release's first layer write left: layers, no versions, no cast."""
    path = tmp_path / "kg"
    with KnowledgeGraph(path) as kg:
        kg.store.remove_graph(ox.NamedNode(GRAPH_META))
        kg.store.remove_graph(ox.NamedNode(ns.GRAPH_PASSAGES))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with KnowledgeGraph(path) as kg:
            assert not kg.outdated and recorded_versions(kg.store) == package_versions()
            add_casts(kg, _asserted()[:1])  # and it takes casts


def test_the_cli_refuses_to_load_into_an_outdated_store_and_upgrades_it(tmp_path, capsys):
    path = tmp_path / "kg"
    iris, _ = _old_store(path)
    batch = tmp_path / "casts.jsonl"
    batch.write_text('{"id": "q", "spec": "乾", "month": "子", "day": "甲子"}\n', encoding="utf-8")
    with pytest.warns(OutdatedStoreWarning):
        code = main(["load", str(batch), "--store", str(path), "--quiet"])
    out, err = capsys.readouterr()
    assert code == 2 and "liuyao upgrade --store" in err
    code = main(["upgrade", "--store", str(path), "--lang", "en"])
    out, err = capsys.readouterr()
    assert code == 0 and json.loads(out)["casts"] == 3 and "re-deriving" in err
    code = main(["load", str(batch), "--store", str(path), "--quiet"])
    out, _ = capsys.readouterr()
    assert code == 0 and json.loads(out)["loaded"] == ["q"]
