"""`liuyao corpus add --endpoint URL`: an edition's graph written to a SPARQL endpoint with SPARQL Update, in
one request, idempotent as on the embedded store. Against `liuyao serve --allow-update` (in this process) and
a private Virtuoso (tests/servers/virtuoso_server.py): marked `server`.
"""
from __future__ import annotations

import json
import threading
from pathlib import Path

import pyoxigraph as ox
import pytest

from liuyao_kg import queries
from liuyao_kg.cli import main
from liuyao_kg.corpus.add import add_edition
from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.store.remote import Endpoint, RemoteKnowledgeGraph, RemoteStoreError
from liuyao_kg.serve.endpoint import make_server

pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[2]
HZL = ROOT.parent / "shared" / "corpora" / "huozhulin.wikisource.txt"
GRAPH = "https://w3id.org/liuyao-kg/graph/edition/HuoZhuLin/"
EDITION = "https://w3id.org/liuyao-kg/edition/HuoZhuLin/"
LYP = "https://w3id.org/liuyao-kg/passage/"


def _graph_size(store: ox.Store, graph: str) -> int:
    return sum(1 for _ in store.quads_for_pattern(None, None, None, ox.NamedNode(graph)))


@pytest.fixture
def served():
    """An in-memory store behind `liuyao serve --allow-update`: (the store, the endpoint URL)."""
    kg = KnowledgeGraph()
    server = make_server(kg.store, "127.0.0.1", 0, allow_update=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield kg, "http://127.0.0.1:%d/sparql" % server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        kg.close()


def _add(capsys, url: str, path, name: str) -> dict:
    code = main(["corpus", "add", str(path), "--work", "火珠林", "--edition", name, "--endpoint", url,
                 "--update-endpoint", url, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_corpus_add_with_an_endpoint_writes_the_edition_graph_and_a_second_run_writes_nothing(served, capsys):
    if not HZL.is_file():
        pytest.skip(f"no {HZL}")
    kg, url = served
    first = _add(capsys, url, HZL, "wikisource")
    assert first["status"] == "added" and first["aligned"] == {"exact": 16, "folded": 140}
    assert _graph_size(kg.store, GRAPH + "wikisource") == first["quads"]
    rows = queries.run(kg, "passage-in-edition", passage=LYP + "EightPalaces", edition=EDITION + "wikisource")
    assert [(r["method"], r["exact"]) for r in rows] == [("folded", "定一宫管八卦，七卦皆从一宫出")]
    size = len(kg.store)
    second = _add(capsys, url, HZL, "wikisource")
    assert (second["status"], second["quads"], len(kg.store)) == ("unchanged", 0, size)


def _remote(url: str, sent: list[str]) -> RemoteKnowledgeGraph:
    remote = RemoteKnowledgeGraph(Endpoint.from_env(url, env={}))
    real = remote.client.update
    remote.client.update = lambda text: (sent.append(text), real(text))[1]
    return remote


def test_a_changed_file_replaces_the_edition_graph_in_one_update_request(served, tmp_path):
    kg, url = served
    sent: list[str] = []
    remote = _remote(url, sent)
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("財官異路，可辨五鄉。旺相得地。\n", encoding="utf-8")
    b.write_text("用財伏兄，口舌相侵。\n", encoding="utf-8")
    assert add_edition(remote, a, "火珠林", "mine").status == "added"
    assert add_edition(remote, b, "火珠林", "mine").status == "replaced"
    assert len(sent) == 2 and all(t.startswith(f"DROP SILENT GRAPH <{GRAPH}mine> ;\nINSERT DATA {{") for t in sent)
    quotes = {q.object.value for q in kg.store.quads_for_pattern(
        None, ox.NamedNode("https://w3id.org/liuyao-kg/ontology#quote"), None, ox.NamedNode(GRAPH + "mine"))}
    assert quotes == {"用財伏兄，口舌相侵。"}


def test_a_request_the_endpoint_refuses_leaves_the_edition_graph_as_it_was(served, tmp_path):
    kg, url = served
    remote = _remote(url, [])
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("財官異路，可辨五鄉。\n", encoding="utf-8")
    b.write_text("用財伏兄，口舌相侵。\n", encoding="utf-8")
    add_edition(remote, a, "火珠林", "mine")
    before = set(kg.store.quads_for_pattern(None, None, None, ox.NamedNode(GRAPH + "mine")))
    real = remote.client.update
    remote.client.update = lambda text: real(text[:-1] + '<urn:x> <urn:y> "unterminated }')  # cut at its very end
    with pytest.raises(RemoteStoreError):
        add_edition(remote, b, "火珠林", "mine")
    assert set(kg.store.quads_for_pattern(None, None, None, ox.NamedNode(GRAPH + "mine"))) == before


def test_corpus_add_with_virtuoso_writes_the_edition_graph_once(virtuoso, monkeypatch, capsys):
    if not HZL.is_file():
        pytest.skip(f"no {HZL}")
    monkeypatch.setenv("LIUYAO_ENDPOINT_USER", virtuoso.user)
    monkeypatch.setenv("LIUYAO_ENDPOINT_PASSWORD", virtuoso.password)
    monkeypatch.setenv("LIUYAO_ENDPOINT_AUTH", "digest")
    argv = ["corpus", "add", str(HZL), "--work", "火珠林", "--edition", "wikisource", "--endpoint", virtuoso.sparql,
            "--update-endpoint", virtuoso.sparql_auth, "--format", "json"]
    remote = RemoteKnowledgeGraph(Endpoint(virtuoso.sparql, virtuoso.sparql_auth, virtuoso.user, virtuoso.password,
                                           "digest"))
    try:
        _adds_the_edition_once(argv, remote, capsys)
    finally:  # the Virtuoso is the session's: the other server tests (tests/store/test_remote.py) hold no edition
        remote.client.update(f"DROP SILENT GRAPH <{GRAPH}wikisource>")


def _adds_the_edition_once(argv, remote, capsys):
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["status"] in ("added", "replaced") and first["aligned"] == {"exact": 16, "folded": 140}
    assert remote.graph_sizes([GRAPH + "wikisource"])[GRAPH + "wikisource"] == first["quads"]
    rows = queries.run(remote, "passage-in-edition", passage=LYP + "EightPalaces", edition=EDITION + "wikisource")
    assert [(r["method"], r["exact"]) for r in rows] == [("folded", "定一宫管八卦，七卦皆从一宫出")]
    assert main(argv) == 0
    second = json.loads(capsys.readouterr().out)
    assert (second["status"], second["quads"]) == ("unchanged", 0)
