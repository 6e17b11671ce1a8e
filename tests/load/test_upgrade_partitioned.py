"""`liuyao upgrade`, a partition at a time: the same inferred graphs as the reference engine derives, each cast rewritten
wholly or not at all, and an upgrade that stops half-way finished by the next (liuyao_kg/load/upgrade.py)."""
from __future__ import annotations

import json
import warnings

import pyoxigraph as ox
import pytest

from liuyao_kg.cli import main
from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.namespaces import inferred_graph
from liuyao_kg.store import StoreError
from liuyao_kg.load.upgrade import upgrade, upgrade_graph
from liuyao_kg.store.versioning import GRAPH_META, OutdatedStoreWarning, recorded_versions
from liuyao_kg.ontology import package_versions
from liuyao_kg.load import add_casts, derive_with
from old_stores import asserted, fresh_inferred as derived_fresh, graph as _graph, old_store

#: dated and undated, every kind of input a chart reads: births, years, sexes, topics and none
CASTS = [dict(spec="大畜之小畜", month="午", day="己巳", topic="疾病"),
         dict(spec="節之中孚", month="寅", day="辛亥", topic="求財"),
         dict(spec="否之臨", month="寅", day="己亥"),
         dict(spec="乾之姤", date="2024-03-05T10:30+08:00", topic="婚姻", sex="女"),
         dict(spec="坤", month="子", day="甲子", year="甲辰", birth="庚午", topic="功名"),
         dict(spec="既濟之未濟", month="酉", day="丙申", topic="晴", sex="男")]


def _asserted():
    return asserted(CASTS)


def _all(store):
    """Every quad but the layers' version records (their times differ by run)."""
    return {q for q in store.quads_for_pattern(None, None, None, None) if q.graph_name.value != GRAPH_META}


@pytest.fixture(scope="module")
def fresh_inferred():
    return derived_fresh(CASTS)


def _old_store(path):
    return old_store(path, CASTS)


def _current_store(path):
    with KnowledgeGraph(path) as kg:
        add_casts(kg, _asserted())
        return _all(kg.store)


def test_the_upgrade_derives_every_cast_as_a_fresh_store_does(tmp_path, fresh_inferred):
    path = tmp_path / "kg"
    iris, asserted = _old_store(path)
    seen = []
    report = upgrade(path, partition=4, on_progress=lambda done, total: seen.append((done, total)))
    assert report["casts"] == len(CASTS) and seen == [(4, 6), (6, 6)]
    assert report["inferred_quads"] == sum(len(g) for g in fresh_inferred.values())
    with warnings.catch_warnings():
        warnings.simplefilter("error", OutdatedStoreWarning)
        kg = KnowledgeGraph(path)
    try:
        assert not kg.outdated and recorded_versions(kg.store) == package_versions()
        for c in iris:
            assert _graph(kg.store, c) == asserted[c]  # asserted graphs untouched
            assert _graph(kg.store, inferred_graph(c)) == fresh_inferred[c]
    finally:
        kg.close()


def test_a_forced_upgrade_of_a_current_store_leaves_every_quad_as_it_was(tmp_path):
    path = tmp_path / "kg"
    before = _current_store(path)
    report = upgrade(path, force=True)
    assert report["casts"] == len(CASTS) and report["layers"] == {}
    with KnowledgeGraph(path) as kg:
        assert not kg.outdated and _all(kg.store) == before


def test_an_upgrade_stopped_in_a_partition_leaves_each_cast_whole_and_the_store_outdated(tmp_path, monkeypatch,
                                                                                         fresh_inferred):
    path = tmp_path / "kg"
    iris, _ = _old_store(path)
    old = ox.Store.read_only(str(path))
    before = {c: _graph(old, inferred_graph(c)) for c in iris}
    del old
    real, updates = KnowledgeGraph._rewrite_graph, []

    def dies_at_the_fifth_cast(self, graph, quads, wanted):
        updates.append(graph.value)
        if len(updates) == 5:
            raise StoreError("disk failed")
        return real(self, graph, quads, wanted)

    monkeypatch.setattr(KnowledgeGraph, "_rewrite_graph", dies_at_the_fifth_cast)
    with pytest.raises(StoreError):
        upgrade(path, partition=4)
    monkeypatch.setattr(KnowledgeGraph, "_rewrite_graph", real)
    with pytest.warns(OutdatedStoreWarning, match="rules"):
        kg = KnowledgeGraph(path)
    try:
        rewritten = {g.removesuffix("/inferred") for g in updates[:4]}
        for c in iris:  # the first partition new, the second as the old rules derived it
            assert _graph(kg.store, inferred_graph(c)) == (fresh_inferred[c] if c in rewritten else before[c])
        assert any(before[c] != fresh_inferred[c] for c in iris if c not in rewritten)  # so the check tells
    finally:
        kg.close()
    report = upgrade(path)
    assert report["casts"] == len(CASTS) and report["layers"]["rules"]["from"] == "sha256:old"
    with KnowledgeGraph(path) as kg:
        assert not kg.outdated
        assert all(_graph(kg.store, inferred_graph(c)) == fresh_inferred[c] for c in iris)


def test_only_the_casts_whose_graph_changed_are_written(tmp_path, fresh_inferred):
    path = tmp_path / "kg"
    iris, _ = _old_store(path)
    old = ox.Store.read_only(str(path))
    differ = sum(_graph(old, inferred_graph(c)) != fresh_inferred[c] for c in iris)
    del old
    assert 0 < differ < len(iris)  # some casts have a month-broken line, some none
    assert upgrade(path)["changed"] == differ
    assert upgrade(path, force=True)["changed"] == 0


def test_a_store_deriving_with_the_reference_engine_upgrades_with_it_to_the_same_quads(tmp_path):
    path = tmp_path / "kg"
    before = _current_store(path)
    with derive_with(KnowledgeGraph(path), backend="oxigraph") as kg:
        assert upgrade_graph(kg, force=True)["changed"] == 0
        assert _all(kg.store) == before


def test_the_command_upgrades_in_partitions_of_the_size_asked(tmp_path, capsys):
    path = tmp_path / "kg"
    before = _current_store(path)
    assert main(["upgrade", "--store", str(path), "--force", "--partition", "4", "--quiet"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["casts"] == len(CASTS)
    assert main(["upgrade", "--store", str(path), "--force", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["changed"] == 0
    with KnowledgeGraph(path) as kg:
        assert _all(kg.store) == before


@pytest.mark.parametrize("argv, named", [(["--partition", "0"], "--partition 0")])
def test_a_bad_upgrade_option_is_refused_by_name_before_the_store_is_opened(tmp_path, capsys, argv, named):
    path = tmp_path / "kg"
    assert main(["upgrade", "--store", str(path), *argv]) == 2
    assert named in capsys.readouterr().err and not path.exists()
