"""`liuyao serve`: the SPARQL 1.1 Protocol endpoint, queried with SPARQLWrapper and plain urllib."""
from __future__ import annotations

import csv
import io
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from SPARQLWrapper import JSON, POST, XML, SPARQLWrapper, TURTLE
from SPARQLWrapper.SPARQLExceptions import QueryBadFormed

import liuyao_kg
from liuyao_kg import namespaces as ns
from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.serve.endpoint import make_server, negotiate, _RESULTS
from liuyao_kg.load import derive_with

pytestmark = pytest.mark.server

Q_LINES = ns.sparql_prologue() + """
SELECT ?cast ?pos ?relative WHERE { ?cast a lyo:Cast ; lyo:hasLine ?l . ?l lyo:position ?pos ; lyo:relative ?r .
  ?r rdfs:label ?relative FILTER(LANGMATCHES(LANG(?relative), "zh-Hant")) } ORDER BY ?cast ?pos"""


@pytest.fixture(scope="module")
def kg(tmp_path_factory):
    g = derive_with(KnowledgeGraph(tmp_path_factory.mktemp("serve") / "kg"), chapter_rules=False)
    casts = [liuyao_kg.cast("節之中孚", month="寅", day="辛亥", topic="求財", kg=g)["cast"],
             liuyao_kg.cast("大畜之小畜", month="午", day="己巳", kg=g)["cast"]]
    g.casts = casts
    yield g
    g.close()


def _server(kg, allow_update=False):
    server = make_server(kg.store, "127.0.0.1", 0, allow_update=allow_update)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, "http://127.0.0.1:%d/sparql" % server.server_address[1]


@pytest.fixture(scope="module")
def endpoint(kg):
    server, url = _server(kg)
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture
def rw_endpoint(kg):
    server, url = _server(kg, allow_update=True)
    yield url
    server.shutdown()
    server.server_close()


def _get(url, accept=None, **params):
    req = urllib.request.Request(url + ("?" + urllib.parse.urlencode(params, doseq=True) if params else ""))
    if accept:
        req.add_header("Accept", accept)
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.status, r.headers, r.read().decode("utf-8")


def _post(url, body: bytes, ctype: str, accept=None):
    req = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": ctype})
    if accept:
        req.add_header("Accept", accept)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers, r.read().decode("utf-8")
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode("utf-8")


def _expected(kg):
    return [(r["cast"], r["pos"], r["relative"]) for r in kg.select(Q_LINES)]


def test_sparqlwrapper_select_equals_the_library_select(kg, endpoint):
    sw = SPARQLWrapper(endpoint)
    sw.setQuery(Q_LINES)
    sw.setReturnFormat(JSON)
    rows = sw.query().convert()["results"]["bindings"]
    got = [(b["cast"]["value"], int(b["pos"]["value"]), b["relative"]["value"]) for b in rows]
    assert got == _expected(kg) and len(got) == 12


def test_sparqlwrapper_post_xml_ask_and_construct(kg, endpoint):
    sw = SPARQLWrapper(endpoint)
    sw.setMethod(POST)
    sw.setQuery(Q_LINES)
    sw.setReturnFormat(XML)
    doc = sw.query().convert()  # an xml.dom document
    assert len(doc.getElementsByTagName("result")) == 12
    sw.setReturnFormat(JSON)
    sw.setQuery(f"ASK {{ <{kg.casts[0]}> a <{ns.LYO}Cast> }}")
    assert sw.query().convert()["boolean"] is True
    sw.setQuery(f"CONSTRUCT {{ ?l <{ns.LYO}relative> ?r }} WHERE {{ <{kg.casts[0]}> <{ns.LYO}hasLine> ?l . "
                f"?l <{ns.LYO}relative> ?r }}")
    sw.setReturnFormat(TURTLE)
    g = sw.query().convert()
    assert b"relative" in g and b"/line/1" in g


def test_urllib_get_and_both_post_forms_agree(kg, endpoint):
    expected = _expected(kg)
    _, h, body = _get(endpoint, "application/sparql-results+json", query=Q_LINES)
    assert h["Content-Type"].startswith("application/sparql-results+json")
    assert h["Access-Control-Allow-Origin"] == "*"
    assert [(b["cast"]["value"], int(b["pos"]["value"]), b["relative"]["value"])
            for b in json.loads(body)["results"]["bindings"]] == expected
    _, _, form = _post(endpoint, urllib.parse.urlencode({"query": Q_LINES}).encode(),
                       "application/x-www-form-urlencoded", "application/sparql-results+json")
    _, _, direct = _post(endpoint, Q_LINES.encode(), "application/sparql-query", "application/sparql-results+json")
    assert json.loads(form) == json.loads(direct) == json.loads(body)


@pytest.mark.parametrize("accept, media", [
    ("text/csv", "text/csv"), ("text/tab-separated-values", "text/tab-separated-values"),
    ("application/sparql-results+xml", "application/sparql-results+xml"),
    ("*/*", "application/sparql-results+json"), ("text/html;q=0.9, text/csv;q=0.5", "text/csv")])
def test_select_content_negotiation(kg, endpoint, accept, media):
    _, h, body = _get(endpoint, accept, query=Q_LINES)
    assert h["Content-Type"].split(";")[0] == media
    if media == "text/csv":
        rows = list(csv.DictReader(io.StringIO(body)))
        assert [(r["cast"], int(r["pos"]), r["relative"]) for r in rows] == _expected(kg)


@pytest.mark.parametrize("accept, media, marker", [
    ("text/turtle", "text/turtle", "@prefix"), ("application/n-triples", "application/n-triples", "> <"),
    ("application/ld+json", "application/ld+json", '"@id"'), ("application/rdf+xml", "application/rdf+xml", "rdf:RDF")])
def test_construct_content_negotiation(kg, endpoint, accept, media, marker):
    q = f"CONSTRUCT {{ <{kg.casts[0]}> ?p ?o }} WHERE {{ <{kg.casts[0]}> ?p ?o }}"
    _, h, body = _get(endpoint, accept, query=q)
    assert h["Content-Type"].split(";")[0] == media and kg.casts[0].rsplit("/", 1)[1] in body
    if media == "text/turtle":
        assert marker in body or "<" in body
    else:
        assert marker in body


def test_not_acceptable_is_406(endpoint):
    with pytest.raises(urllib.error.HTTPError) as ei:
        _get(endpoint, "image/png", query="ASK {}")
    assert ei.value.code == 406


def test_default_graph_is_the_union_unless_given(kg, endpoint):
    q = "SELECT (COUNT(*) AS ?n) WHERE { ?c a <%sCast> }" % ns.LYO
    count = lambda **kw: int(json.loads(_get(endpoint, "application/json", query=q, **kw)[2])
                             ["results"]["bindings"][0]["n"]["value"])
    assert count() == 2
    assert count(**{"default-graph-uri": [kg.casts[0]]}) == 1
    assert count(**{"default-graph-uri": [ns.GRAPH_RULES]}) == 0
    q2 = "SELECT ?g WHERE { GRAPH ?g { ?c a <%sCast> } }" % ns.LYO
    body = _get(endpoint, "application/json", query=q2, **{"named-graph-uri": [kg.casts[1]]})[2]
    assert [b["g"]["value"] for b in json.loads(body)["results"]["bindings"]] == [kg.casts[1]]


def test_malformed_query_is_400_with_the_parser_message(endpoint):
    with pytest.raises(urllib.error.HTTPError) as ei:
        _get(endpoint, query="SELEC ?x WHERE { ?x ?y ?z }")
    assert ei.value.code == 400 and "error at 1:" in ei.value.read().decode()
    sw = SPARQLWrapper(endpoint)
    sw.setQuery("SELECT ?x WHERE { ?x ?y ")
    sw.setReturnFormat(JSON)
    with pytest.raises(QueryBadFormed):
        sw.query()


def test_updates_are_forbidden_unless_allowed(kg, endpoint, rw_endpoint):
    update = "INSERT DATA { GRAPH <urn:test:g> { <urn:test:s> <urn:test:p> 1 } }"
    before = len(kg.store)
    for body, ctype in [(urllib.parse.urlencode({"update": update}).encode(), "application/x-www-form-urlencoded"),
                        (update.encode(), "application/sparql-update")]:
        code, _, msg = _post(endpoint, body, ctype)
        assert code == 403 and "read-only" in msg
    with pytest.raises(urllib.error.HTTPError) as ei:
        _get(endpoint, update=update)
    assert ei.value.code == 403
    assert len(kg.store) == before
    code, _, _ = _post(rw_endpoint, update.encode(), "application/sparql-update")
    assert code == 204 and len(kg.store) == before + 1
    code, _, msg = _post(rw_endpoint, b"INSERT DATA { <a> ", "application/sparql-update")
    assert code == 400 and "malformed update" in msg
    code, _, _ = _post(rw_endpoint, b"DROP GRAPH <urn:test:g>", "application/sparql-update")
    assert code == 204 and len(kg.store) == before


def test_health_service_description_and_cors_preflight(endpoint):
    base = endpoint.rsplit("/", 1)[0]
    _, h, body = _get(base + "/health")
    assert json.loads(body)["status"] == "ok" and json.loads(body)["update"] is False
    _, h, body = _get(endpoint)
    assert h["Content-Type"].startswith("text/turtle") and "sd:Service" in body and endpoint in body
    req = urllib.request.Request(endpoint, method="OPTIONS")
    with urllib.request.urlopen(req, timeout=10) as r:
        assert r.status == 204 and "POST" in r.headers["Access-Control-Allow-Methods"]


def test_negotiate_prefers_higher_q():
    assert negotiate("text/csv;q=0.2, application/sparql-results+xml", _RESULTS, "application/sparql-results+json")[0] \
        == "application/sparql-results+xml"
    assert negotiate(None, _RESULTS, "application/sparql-results+json")[0] == "application/sparql-results+json"


def test_the_serve_command_answers_on_its_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "liuyao_kg.cli", "serve", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                _, _, body = _get(f"http://127.0.0.1:{port}/health")
                break
            except (urllib.error.URLError, ConnectionError):
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read().decode()
                time.sleep(0.2)
        assert json.loads(body)["quads"] > 0
        _, _, body = _get(f"http://127.0.0.1:{port}/sparql", "application/json",
                          query=f"ASK {{ ?h a <{ns.LYO}Hexagram> }}")
        assert json.loads(body)["boolean"] is True
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize("form", ["CONSTRUCT { ?c a lyo:Cast } WHERE { ?c a lyo:Cast }",
                                  "DESCRIBE ?c WHERE { ?c a lyo:Cast }"])
def test_sparqlwrapper_defaults_get_rdf_xml_for_graph_queries(endpoint, form):
    sw = SPARQLWrapper(endpoint)  # default settings: returnFormat XML, sent as format=xml
    sw.setQuery(ns.sparql_prologue() + form)
    g = sw.query().convert()  # SPARQLWrapper parses the RDF/XML into an rdflib Graph
    assert len(g) >= 2


@pytest.mark.parametrize("query, check", [
    ("SELECT ?c WHERE { ?c a lyo:Cast }", lambda r: len(r.getElementsByTagName("result")) == 2),
    ("ASK { ?c a lyo:Cast }", lambda r: r.getElementsByTagName("boolean")[0].firstChild.data == "true"),
])
def test_sparqlwrapper_defaults_get_results_xml_for_select_and_ask(endpoint, query, check):
    sw = SPARQLWrapper(endpoint)
    sw.setQuery(ns.sparql_prologue() + query)
    assert check(sw.query().convert())


def test_sparqlwrapper_json_for_a_construct_is_json_ld(endpoint):
    sw = SPARQLWrapper(endpoint)
    sw.setQuery(ns.sparql_prologue() + "CONSTRUCT { ?c a lyo:Cast } WHERE { ?c a lyo:Cast }")
    sw.setReturnFormat(JSON)
    doc = sw.query().convert()
    assert any("https://w3id.org/liuyao-kg/ontology#Cast" in json.dumps(n) for n in doc)
