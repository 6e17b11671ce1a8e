"""The package ships its rule analysis precomputed (reasoner/rule_analysis.json): a first start parses no rule.

Like reference.ttl, the file is generated (python -m liuyao_kg.reasoner.precompute) and checked here for
drift from the rules; and a fresh, read-only cache directory must not send the engine to rdflib.
"""
from __future__ import annotations

import os

import pyoxigraph as ox
import pytest

from liuyao_kg import namespaces as ns
from liuyao_kg.graph import layer_quads
from liuyao_kg.reasoner import dependencies, precompute
from liuyao_kg.reasoner.engine import Engine, load_rules


def test_the_precomputed_rule_analysis_matches_the_rules():
    assert dependencies.PACKAGED.read_text(encoding="utf-8") == precompute.build(), \
        "reasoner/rule_analysis.json is out of date: run python -m liuyao_kg.reasoner.precompute"


def test_a_fresh_read_only_cache_directory_starts_the_engine_without_parsing_a_rule(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    cache.mkdir()
    os.chmod(cache, 0o500)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))

    def refuse(*_a, **_k):
        raise AssertionError("a rule was parsed although the package ships its analysis")

    monkeypatch.setattr(dependencies, "rule_io", refuse)
    monkeypatch.setattr(dependencies, "dependency_graph", refuse)
    layers = layer_quads()
    store = ox.Store()
    store.extend(layers[ns.GRAPH_RULES])
    rules = load_rules(store, ns.GRAPH_RULES)
    Engine(rules, layers[ns.GRAPH_REFERENCE])  # plans from the packaged strata
    Engine([r for r in rules if not r.chapter], layers[ns.GRAPH_REFERENCE])
    assert not any(cache.iterdir())


def test_a_rule_missing_from_the_package_is_analysed_with_a_message(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(dependencies, "PROGRESS_ABOVE", 1)
    text = "CONSTRUCT { ?s a lyo:Cast } WHERE { ?s lyo:castId ?id }"
    ios = dependencies.rule_ios({"urn:x": text})
    assert ("p", ns.LYO + "castId", "") in ios["urn:x"].reads
    assert "analysing 1 rule(s)" in capsys.readouterr().err
