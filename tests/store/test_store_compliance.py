"""The store compliance suite: one set of tests, run against every adapter of the CastStore interface.

Adapters: the embedded store in memory and on disk, a remote store on the project's own `liuyao serve
--allow-update` (a subprocess), and a remote store on a private Virtuoso (tests/servers/virtuoso_server.py). The
remote ones are marked `server`. Each test states what every store must do, whatever is behind it.
"""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
import warnings

import pyoxigraph as ox
import pytest

from liuyao_kg import namespaces as ns
from liuyao_kg import queries
from liuyao_kg.load.pipeline import load_file
from liuyao_kg.reasoner.engines import build_engine, derive_casts
from liuyao_kg.loaders import make_cast_input
from liuyao_kg.store.remote import Endpoint, RemoteKnowledgeGraph
from liuyao_kg.store import CastStore, open_store
from liuyao_kg.store.versioning import GRAPH_META
from liuyao_kg.ontology import package_versions

CASTS = [dict(spec="節之中孚", month="寅", day="辛亥", topic="求財"),
         dict(spec="大畜之蒙", month="巳", day="癸未", birth="寅", topic="疾病"),
         dict(spec="否之臨", month="寅", day="己亥", topic="婚姻"),
         dict(spec="787986", date="2024-02-04T16:28:00+08:00", topic="官事")]


@pytest.fixture(scope="module")
def engine():
    return build_engine()


@pytest.fixture(scope="module")
def reference(engine):
    """The casts as the memory store holds them once written: what every adapter must hold."""
    kg = open_store("memory")
    cis = [make_cast_input(**c) for c in CASTS]
    kg.write_derived(derive_casts(engine, cis), casts=[c.iri for c in cis])
    return kg, cis


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def liuyao_serve():
    """`liuyao serve --allow-update` on a free loopback port (its own in-memory store)."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "liuyao_kg.cli", "serve", "--allow-update", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/sparql"
    deadline = time.monotonic() + 90
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5).read()
            break
        except OSError:
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read().decode()
            time.sleep(0.3)
    yield url
    proc.terminate()
    proc.wait(timeout=20)


@pytest.fixture(scope="module")
def disk_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("compliance") / "kg"
    open_store(path).close()
    return path


class Adapter:
    """How to open (and reopen) one kind of store, and to wipe it between tests."""

    def __init__(self, name, opener, wipe):
        self.name, self.open, self.wipe = name, opener, wipe


def _wipe_remote(store):
    for g in _cast_graphs(store):
        store.update(f"DROP SILENT GRAPH <{g}>")


def _cast_graphs(store) -> list[str]:
    rows = store.select(f"SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{ ?s ?p ?o }} FILTER(STRSTARTS(STR(?g), \"{ns.CAST}\")) }}")
    return [r["g"] for r in rows]


@pytest.fixture(params=["memory", "disk", pytest.param("serve", marks=pytest.mark.server),
                        pytest.param("virtuoso", marks=pytest.mark.server)])
def adapter(request, tmp_path):
    kind = request.param
    if kind == "memory":
        kg = open_store("memory")
        yield Adapter(kind, lambda: kg, lambda s: None)
    elif kind == "disk":  # one store for the module (a new one writes ~100 MB of layers), emptied of casts
        path = request.getfixturevalue("disk_store")
        opened = []

        def opener():
            for s in opened:
                s.close()
            opened.append(open_store(path))
            return opened[-1]

        _wipe_remote(opener())
        yield Adapter(kind, opener, _wipe_remote)
        _wipe_remote(opener())
        for s in opened:
            s.close()
    elif kind == "serve":
        url = request.getfixturevalue("liuyao_serve")
        a = Adapter(kind, lambda: RemoteKnowledgeGraph(Endpoint(url, url)), _wipe_remote)
        yield a
        _wipe_remote(a.open())
    else:
        v = request.getfixturevalue("virtuoso")
        a = Adapter(kind, lambda: RemoteKnowledgeGraph(Endpoint(v.sparql, v.sparql_auth, v.user, v.password,
                                                                "digest")), _wipe_remote)
        _wipe_remote(a.open())
        yield a
        _wipe_remote(a.open())


def _write(store, engine, cis):
    store.write_derived(derive_casts(engine, cis), casts=[c.iri for c in cis])


def test_every_adapter_implements_the_store_interface(adapter):
    store = adapter.open()
    assert isinstance(store, CastStore)
    assert "@" not in store.location and len(store.capabilities & {"local", "remote"}) == 1
    assert not hasattr(store, "engine") and not hasattr(store, "add_quads")  # stores only store (liuyao_kg.load derives)


def test_a_store_records_the_package_version_of_every_layer(adapter):
    store = adapter.open()
    assert store.layer_versions() == package_versions() and not store.outdated


def test_written_casts_read_back_whole(adapter, engine, reference):
    ref, cis = reference
    store = adapter.open()
    _write(store, engine, cis)
    for ci in cis:
        assert store.has_cast(ci.iri)
        assert set(store.cast_graph(ci.iri)) == set(ref.cast_graph(ci.iri))
    assert store.present([c.iri for c in cis] + [ns.CAST + "0000000000000000"]) == {c.iri for c in cis}
    assert store.pending() == set()  # nothing left in the journal once a write returns


def test_a_batch_whose_data_breaks_half_way_writes_no_cast(adapter, engine):
    cis = [make_cast_input(**c) for c in CASTS[:2]]
    good = derive_casts(engine, cis)
    broken = good[: len(good) // 2] + b"\n<not an IRI> <x> .\n" + good[len(good) // 2:]
    store = adapter.open()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the disk store warns that it took the chunk out again
        with pytest.raises((SyntaxError, ValueError)):
            store.write_derived(broken, casts=[c.iri for c in cis])
    store = adapter.open()
    assert store.present([c.iri for c in cis]) == set() and store.pending() == set()
    for ci in cis:
        assert store.cast_graph(ci.iri) == []


def test_loading_a_file_again_writes_nothing(adapter, tmp_path):
    batch = tmp_path / "casts.jsonl"
    batch.write_text("".join(json.dumps({"id": f"r{i}", **c}, ensure_ascii=False) + "\n" for i, c in enumerate(CASTS)),
                     encoding="utf-8")
    store = adapter.open()
    first = load_file(batch, store, workers=1)
    assert first["loaded"] == [f"r{i}" for i in range(len(CASTS))] and not first["rejected"]
    sizes = {c: len(store.cast_graph(c)) for c in _cast_graphs(store) if not c.endswith("/inferred")}
    store = adapter.open()
    again = load_file(batch, store, workers=1)
    assert again["loaded"] == [] and again["skipped"] == first["loaded"]
    assert {c: len(store.cast_graph(c)) for c in sizes} == sizes


def _named_query_rows(store, cis) -> dict:
    """Rows of named queries, as comparable values (sorted; booleans and integers as Python values)."""
    calls = [("chart-lines", {"cast": cis[0].iri}), ("line-states", {"cast": cis[1].iri, "position": 4}),
             ("cast-judgments", {"cast": cis[0].iri}), ("chart-pillars", {"cast": cis[3].iri}),
             ("chart-relations", {"cast": cis[2].iri}),
             ("casts-where-use-god", {"first": "月破", "second": "旬空"}), ("nayin", {"gz": "甲子"}),
             ("rules-by-topic", {"topic": "婚姻"})]
    out = {}
    for name, params in calls:
        rows = queries.run(store, name, **params)
        out[name] = sorted(json.dumps(r, ensure_ascii=False, sort_keys=True) for r in rows)
    return out


def test_named_queries_give_the_rows_of_the_memory_store(adapter, engine, reference):
    ref, cis = reference
    store = adapter.open()
    _write(store, engine, cis)
    expected = _named_query_rows(ref, cis)
    assert all(expected[k] for k in ("chart-lines", "cast-judgments", "nayin", "chart-pillars", "chart-relations"))
    assert _named_query_rows(store, cis) == expected


def test_raw_sparql_answers_as_the_endpoint_forwards_it(adapter):
    store = adapter.open()
    result = store.sparql(f"SELECT (COUNT(*) AS ?n) WHERE {{ ?h a <{ns.LYO}Hexagram> }}")
    assert [int(row["n"].value) for row in result] == [64]
    graph = store.sparql(f"CONSTRUCT {{ ?h a <{ns.LYO}Hexagram> }} WHERE {{ ?h a <{ns.LYO}Hexagram> }}")
    assert len(list(graph)) == 64


def test_a_layer_recorded_at_another_version_is_brought_to_the_package_version(adapter, engine, reference, tmp_path):
    """Embedded: the store is outdated, refuses writes, and `upgrade` re-derives; remote: rewritten on open."""
    from liuyao_kg.load.upgrade import upgrade_graph
    from liuyao_kg.store.versioning import OutdatedStoreError, OutdatedStoreWarning

    ref, cis = reference
    store = adapter.open()
    _write(store, engine, cis[:1])
    meta = f"<{GRAPH_META}>"
    store.update(f"DELETE {{ GRAPH {meta} {{ <{ns.GRAPH_RULES}> <{ns.DCTERMS}hasVersion> ?v }} }} "
                 f"INSERT {{ GRAPH {meta} {{ <{ns.GRAPH_RULES}> <{ns.DCTERMS}hasVersion> \"sha256:old\" }} }} "
                 f"WHERE {{ GRAPH {meta} {{ <{ns.GRAPH_RULES}> <{ns.DCTERMS}hasVersion> ?v }} }}")
    if adapter.name == "memory":
        from liuyao_kg.store import versioning

        store.outdated = versioning.outdated_layers(store.store)  # a memory store is only ever opened once
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OutdatedStoreWarning)
            store = adapter.open()
    if isinstance(store, RemoteKnowledgeGraph):
        assert store.layers_written == [ns.GRAPH_RULES]
    else:
        assert set(store.outdated) == {ns.GRAPH_RULES}
        with pytest.raises(OutdatedStoreError):
            _write(store, engine, cis[1:2])
        assert upgrade_graph(store)["casts"] == 1
    assert store.layer_versions() == package_versions() and not store.outdated
    assert set(store.cast_graph(cis[0].iri)) == set(ref.cast_graph(cis[0].iri))
    _write(store, engine, cis[1:2])
    assert store.has_cast(cis[1].iri)


def test_a_chunk_cut_off_by_a_crash_is_gone_when_the_store_is_opened_again(adapter, engine):
    """The disk store's journal; the other adapters write each cast in one transaction or request."""
    from liuyao_kg.store.embedded import InterruptedLoadWarning, _JOURNAL, _PENDING

    if adapter.name != "disk":
        pytest.skip(f"{adapter.name}: each cast is one transaction or one request, so there is nothing to journal")
    cis = [make_cast_input(**c) for c in CASTS[:2]]
    store = adapter.open()
    data = derive_casts(engine, cis)
    # what a process killed inside write_derived leaves: the journal entry and part of the chunk
    store.store.extend([ox.Quad(ox.NamedNode(ns.GRAPH + "journal/x"), _PENDING, ox.NamedNode(c.iri), _JOURNAL)
                        for c in cis])
    store.store.load(data[: len(data) // 2].rsplit(b"\n", 1)[0] + b"\n", format=ox.RdfFormat.N_QUADS)
    assert store.pending() == {c.iri for c in cis}
    with pytest.warns(InterruptedLoadWarning):
        store = adapter.open()
    assert store.pending() == set() and store.present([c.iri for c in cis]) == set()
    assert not [q for q in store.store if q.graph_name.value.startswith(ns.CAST)]
    _write(store, engine, cis)
    assert store.present([c.iri for c in cis]) == {c.iri for c in cis}
