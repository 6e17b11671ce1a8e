"""`liuyao cast --format turtle|trig|nquads|json-ld`: each read back by parsers that are not ours (rapper, rdflib)."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest
import rdflib

import liuyao_kg
from liuyao_kg.chart import rdf as formats
from liuyao_kg.namespaces import inferred_graph

RAPPER = shutil.which("rapper")
needs_rapper = pytest.mark.skipif(RAPPER is None, reason="rapper (Debian raptor2-utils) not installed; .ci/run installs it")


@pytest.fixture(scope="module")
def cast():
    return liuyao_kg.cast("否之臨", month="寅", day="己亥", topic="求財")["cast"]


def _rdf(cast, fmt, layers="all"):
    return formats.cast_rdf(liuyao_kg.default_graph(), cast, fmt, layers)


def _expected(cast, layers="all"):
    return {(q.subject.value, q.predicate.value, q.object.value)
            for q in formats.cast_quads(liuyao_kg.default_graph(), cast, layers)}


def _triples(g):
    return {(str(s), str(p), str(o)) for s, p, o in g}


def test_turtle_is_one_graph_of_asserted_and_inferred_triples_rdflib_reads(cast):
    g = rdflib.Graph().parse(data=_rdf(cast, "turtle"), format="turtle")
    assert _triples(g) == _expected(cast)
    assert (cast, "https://w3id.org/liuyao-kg/ontology#primaryHexagram", "https://w3id.org/liuyao-kg/ref/Hexagram12") in _triples(g)


def test_turtle_of_the_asserted_graph_alone_has_no_derived_state(cast):
    g = rdflib.Graph().parse(data=_rdf(cast, "turtle", "asserted"), format="turtle")
    assert not any("MonthBroken" in o for _, _, o in _triples(g))
    assert _triples(g) == _expected(cast, "asserted")


@pytest.mark.parametrize("fmt, rdflib_format", [("trig", "trig"), ("nquads", "nquads"), ("json-ld", "json-ld")])
def test_named_graph_formats_keep_the_cast_and_inferred_graphs_apart(cast, fmt, rdflib_format):
    ds = rdflib.Dataset()
    ds.parse(data=_rdf(cast, fmt), format=rdflib_format)
    graphs = {str(c.identifier): _triples(c) for c in ds.contexts() if len(c)}
    assert set(graphs) == {cast, inferred_graph(cast)}
    assert graphs[inferred_graph(cast)] == _expected(cast, "inferred")
    assert any(o.endswith("#MonthBroken") for _, _, o in graphs[inferred_graph(cast)])


def test_json_ld_carries_the_published_context(cast):
    doc = json.loads(_rdf(cast, "json-ld"))
    assert doc["@context"] == formats.context()["@context"]
    assert doc["@context"]["lyo"] == "https://w3id.org/liuyao-kg/ontology#"


@needs_rapper
@pytest.mark.parametrize("fmt, syntax", [("turtle", "turtle"), ("trig", "trig"), ("nquads", "nquads")])
def test_rapper_parses_every_rdf_format_and_counts_the_same_triples(cast, fmt, syntax, tmp_path):
    path = tmp_path / f"cast.{fmt}"
    path.write_text(_rdf(cast, fmt), encoding="utf-8")
    done = subprocess.run([RAPPER, "-i", syntax, "-o", "ntriples", "-c", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    count = int(done.stderr.split("returned")[1].split()[0])
    assert count == (len(_expected(cast)) if fmt == "turtle" else len(formats.cast_quads(liuyao_kg.default_graph(), cast)))
