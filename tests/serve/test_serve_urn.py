"""Citations resolve in `liuyao serve` (docs/citation.md): /api/passages/{urn} and /urn/{urn}, JSON for a client,
the reader's passage view for a browser, a 404 naming the fault for a malformed URN or one citing nothing here."""
from __future__ import annotations

import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

import liuyao_kg
from liuyao_kg.load import derive_with
from liuyao_kg.serve.api import Api
from liuyao_kg.serve.endpoint import make_server
from liuyao_kg.store.embedded import KnowledgeGraph

ROOT = Path(__file__).resolve().parents[2]
HJC = ROOT.parent / "shared" / "corpora" / "huangjince.wikisource.txt"
LYP = "https://w3id.org/liuyao-kg/passage/"
EIGHT_PALACES = "urn:liuyao:HuoZhuLin:seed002:9.5@17-30"   # 「定一宮管八卦，七卦皆從一宮出」 in seed 002


@pytest.fixture(scope="module")
def api():
    return Api(liuyao_kg.default_graph())


def call(api, path):
    r = api.handle("GET", path, "", b"", "")
    return r.status, json.loads(r.body)


def test_a_passage_answers_with_its_urn_and_its_urn_answers_with_the_same_passage(api):
    status, by_id = call(api, "/api/passages/EightPalaces")
    assert status == 200 and by_id["urn"] == EIGHT_PALACES and by_id["same_place"] == []
    status, by_urn = call(api, "/api/passages/" + urllib.parse.quote(EIGHT_PALACES, safe=""))
    assert status == 200 and by_urn == by_id
    assert by_urn["passage"]["quote"] == "定一宮管八卦，七卦皆從一宮出"


def test_a_urn_several_rules_quote_names_the_first_passage_and_the_others_at_the_same_place(api):
    status, data = call(api, "/api/passages/ch-000-chonghe-six-combine-matter-succeeds")
    assert status == 200 and data["urn"] == "urn:liuyao:YiMao:seed000:36.1@11-15"
    status, data = call(api, "/api/passages/urn:liuyao:TianXuanFu:seed004:33.1")
    assert status == 200 and len(data["same_place"]) == 12
    assert data["passage"]["iri"] < min(data["same_place"])   # the first by IRI, the others beside it
    assert {data["passage"]["quote"]} == {call(api, "/api/passages/" + p[len(LYP):])[1]["passage"]["quote"]
                                          for p in data["same_place"][:3]}


@pytest.mark.parametrize("urn, message", [
    ("urn:liuyao:Nope:x:1.1", "unknown work 'Nope'"),
    ("urn:liuyao:HuoZhuLin:wikisource:1.x", "the sentence 'x' is not a number"),
    ("urn:liuyao:HuoZhuLin:seed002:9.5", "no passage in this store is cited as urn:liuyao:HuoZhuLin:seed002:9.5"),
    ("urn:liuyao:HuangJinCe:wikisource:6.6", "the edition HuangJinCe/wikisource is not in it"),
])
def test_a_malformed_urn_or_one_citing_nothing_here_is_a_404_naming_why(api, urn, message):
    status, data = call(api, "/api/passages/" + urn)
    assert status == 404 and message in data["error"] and data["field"] == "urn"


@pytest.fixture(scope="module")
def served():
    """`liuyao serve` over a memory store to which `corpus add` has added Wikisource's 黃金策 (../shared/corpora)."""
    if not HJC.is_file():
        pytest.skip(f"Wikisource's 黃金策 is not at {HJC}")
    from liuyao_kg.corpus.add import add_edition

    kg = derive_with(KnowledgeGraph(), chapter_rules=False)
    add_edition(kg, HJC, "黃金策", "wikisource")
    server = make_server(kg.store, "127.0.0.1", 0, kg=kg)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield "http://127.0.0.1:%d" % server.server_address[1]
    server.shutdown()
    server.server_close()
    kg.close()


def get(url, accept="*/*"):
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": accept})) as r:
            return r.status, r.headers["Content-Type"], r.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Content-Type"], e.read().decode("utf-8")


@pytest.mark.server
def test_a_sentence_of_an_added_edition_resolves_at_urn_as_json_for_a_client(served):
    status, media, body = get(served + "/urn/urn:liuyao:HuangJinCe:wikisource:6.6")
    data = json.loads(body)
    assert status == 200 and media == "application/json"
    assert data["urn"] == "urn:liuyao:HuangJinCe:wikisource:6.6" and data["chapter"] == "身命"
    assert data["passage"]["iri"] == LYP + "HuangJinCe/wikisource/06/006"
    assert data["passage"]["quote"] == "若問成家，嫌六沖之為卦；"


@pytest.mark.server
def test_a_package_passage_and_the_added_sentence_it_quotes_whole_share_the_urn_the_package_one_first(served):
    status, _, body = get(served + "/api/passages/urn:liuyao:HuangJinCe:wikisource:1.5")
    data = json.loads(body)
    assert status == 200 and data["passage"]["iri"] == LYP + "ReadingSupport"
    assert data["same_place"] == [LYP + "HuangJinCe/wikisource/01/005"]


@pytest.mark.server
def test_a_browser_gets_the_readers_passage_view_and_a_plain_message_for_a_bad_urn(served):
    status, media, body = get(served + "/urn/urn:liuyao:HuangJinCe:wikisource:6.6", "text/html,*/*;q=0.8")
    assert status == 200 and media.startswith("text/html") and "/web/app.js" in body
    status, media, body = get(served + "/urn/urn:liuyao:HuangJinCe:wikisource:6.6?format=html")
    assert status == 200 and media.startswith("text/html")
    status, media, body = get(served + "/urn/urn:liuyao:HuangJinCe:wikisource:6.6?format=json", "text/html")
    assert status == 200 and json.loads(body)["urn"] == "urn:liuyao:HuangJinCe:wikisource:6.6"
    status, media, body = get(served + "/urn/urn:liuyao:HuangJinCe:wikisource:06.6", "text/html")
    assert status == 404 and media.startswith("text/plain") and "the chapter '06' has a leading zero" in body
    status, media, body = get(served + "/urn/urn:liuyao:HuangJinCe:wikisource:99.1")
    assert status == 404 and "no passage in this store is cited as" in json.loads(body)["error"]
