"""The endpoint under attack: outbound requests, runaway queries, idle and slow clients, malformed requests."""
from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pyoxigraph as ox
import pytest

from liuyao_kg.serve import Limits, _BoundedBuffer, _Stop, make_server

pytestmark = pytest.mark.server

EX = "http://example.org/"


def _store(n: int = 0, tag: str = "a") -> ox.Store:
    s = ox.Store()
    s.add(ox.Quad(ox.NamedNode(EX + tag), ox.NamedNode(EX + "p"), ox.Literal(tag), ox.NamedNode(EX + "g")))
    s.extend(ox.Quad(ox.NamedNode(f"{EX}s{i}"), ox.NamedNode(EX + "q"), ox.Literal(str(i))) for i in range(n))
    return s


class _Running:
    def __init__(self, store, **kw):
        log = kw.pop("log", None)
        self.server = make_server(store, "127.0.0.1", 0, log=log, **kw)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/sparql"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def running():
    servers = []

    def start(store=None, **kw):
        servers.append(_Running(store if store is not None else _store(), **kw))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


def _query(url, text, method="GET", timeout=60, **extra):
    if method == "GET":
        req = urllib.request.Request(url + "?" + urllib.parse.urlencode({"query": text, **extra}))
    else:
        req = urllib.request.Request(url, data=text.encode(), method="POST",
                                     headers={"Content-Type": "application/sparql-update"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def _raw(port: int, data: bytes, *, then: float = 0.0, timeout: float = 30.0) -> bytes:
    """Send raw bytes (optionally wait before half-closing) and return everything the server answers."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        if then:
            time.sleep(then)
        out = b""
        try:
            while chunk := s.recv(65536):
                out += chunk
        except (ConnectionResetError, socket.timeout):
            pass
        return out


def _status(answer: bytes) -> int:
    if answer.startswith(b"HTTP/"):
        return int(answer.split(b" ", 2)[1])
    # a request line without a version is HTTP/0.9, whose answer is a bare body: http.server's error page
    found = answer.find(b"Error code: ")
    return int(answer[found + 12:found + 15]) if found >= 0 else 0


def test_service_to_another_host_is_refused_unless_that_host_is_allowed(running):
    other = running(_store(tag="secret"))
    query = f"SELECT ?o WHERE {{ SERVICE <{other.url}> {{ ?s <{EX}p> ?o }} }}"
    status, body = _query(running().url, query)
    assert status == 403 and "SERVICE" in body and "--allow-service" in body
    status, body = _query(running(allow_update=True).url, f"LOAD <{other.url}?query=x> INTO GRAPH <{EX}x>", "POST")
    assert status == 403 and "LOAD" in body
    allowed = running(limits=Limits(allow_service=(f"127.0.0.1:{other.port}",)))
    status, body = _query(allowed.url, query, format="json")
    assert status == 200 and "secret" in body


def test_a_keyword_hidden_in_an_escape_or_a_string_is_read_as_what_it_is(running):
    url = running().url
    status, _ = _query(url, r"SELECT * WHERE { \u0053ERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }")
    assert status == 403
    status, _ = _query(url, "SELECT * WHERE { SERVICE ?where { ?s ?p ?o } }")
    assert status == 403
    status, body = _query(url, 'SELECT ?x WHERE { BIND("SERVICE <http://127.0.0.1:9/>" AS ?x) }', format="json")
    assert status == 200 and "SERVICE" in body
    status, _ = _query(url, "PREFIX ex: <http://example.org/> SELECT * WHERE { ?s ex:SERVICE ?o } # SERVICE <http://x/>")
    assert status == 200


def test_a_runaway_query_is_stopped_at_the_time_limit_while_others_are_answered(running):
    # a size limit it cannot reach in a second (a forked child streams some 80 MB/s)
    server = running(_store(3000), limits=Limits(query_timeout=1.0, max_result_bytes=10 ** 10))
    answers = {}

    def heavy():
        answers["heavy"] = _query(server.url, "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }", timeout=120)

    t = threading.Thread(target=heavy)
    t.start()
    light = _query(server.url, f"ASK {{ <{EX}a> ?p ?o }}", format="json")
    t.join(timeout=120)
    assert light[0] == 200 and json.loads(light[1])["boolean"] is True, light
    assert answers["heavy"][0] == 503 and "time limit" in answers["heavy"][1]


def test_a_query_that_yields_nothing_until_it_is_done_is_answered_503_at_the_time_limit(running):
    server = running(_store(3000), limits=Limits(query_timeout=0.2))
    status, body = _query(server.url, "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f }", timeout=120)
    assert status == 503 and "time limit" in body


def test_an_answer_larger_than_the_limit_is_refused(running):
    server = running(_store(2000), limits=Limits(max_result_bytes=20_000))
    status, body = _query(server.url, "SELECT * WHERE { ?s ?p ?o }")
    assert status == 413 and "20,000 bytes" in body
    status, _ = _query(server.url, "SELECT * WHERE { ?s ?p ?o } LIMIT 5")
    assert status == 200


def test_the_evaluation_stops_when_the_client_has_gone():
    ours, theirs = socket.socketpair()
    out = _BoundedBuffer(10 ** 9, time.monotonic() + 60, ours)
    out.write(b"{")
    theirs.close()
    with pytest.raises(_Stop) as stop:
        _store(3000).query("SELECT * WHERE { ?a ?b ?c . ?d ?e ?f }").serialize(out, format=ox.QueryResultsFormat.JSON)
    assert stop.value.status == 499
    ours.close()


def test_idle_connections_are_closed_and_do_not_block_others(running):
    server = running(limits=Limits(idle_timeout=1.0))
    idle = [socket.create_connection(("127.0.0.1", server.port), timeout=30) for _ in range(100)]
    try:
        assert _query(server.url, "ASK {}", format="json")[0] == 200
        assert all(s.recv(1) == b"" for s in idle)  # the server closed each one
    finally:
        for s in idle:
            s.close()


@pytest.mark.parametrize("request_bytes, status", [
    (b"POST /sparql HTTP/1.0\r\nContent-Type: application/sparql-query\r\nContent-Length: abc\r\n\r\n", 400),
    (b"POST /sparql HTTP/1.0\r\nContent-Type: application/sparql-query\r\nContent-Length: 999999999999\r\n\r\n", 413),
    (b"POST /sparql HTTP/1.0\r\nContent-Type: application/sparql-query\r\nContent-Length: 8\r\n\r\nASK\xff{}\xfe\r", 400),
    (b"POST /sparql HTTP/1.0\r\nContent-Type: application/sparql-query\r\nTransfer-Encoding: chunked\r\n\r\n", 411),
    (b"POST /sparql HTTP/1.0\r\nContent-Type: text/html\r\nContent-Length: 2\r\n\r\nhi", 415),
    (b"POST /sparql HTTP/1.0\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 9\r\n\r\nquery=%ff", 400),
    (b"GET /sparql?query=%ff%fe HTTP/1.0\r\n\r\n", 400),
    (b"GET /sparql?query=ASK%7B%7D&default-graph-uri=not%20an%20iri HTTP/1.0\r\n\r\n", 400),
    (b"GET /sparql?query=SELEKT HTTP/1.0\r\n\r\n", 400),
    (b"GET /nowhere HTTP/1.0\r\n\r\n", 404),
    (b"BREW /sparql HTTP/1.0\r\n\r\n", 501),
    (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 400),  # a TLS hello on the plain port
    (b"GET /sparql HTTP/9.9\r\n\r\n", 505),
])
def test_every_malformed_request_gets_its_4xx_and_no_traceback(running, capfd, request_bytes, status):
    server = running()
    assert _status(_raw(server.port, request_bytes)) == status
    assert "Traceback" not in capfd.readouterr().err


def test_a_body_shorter_than_announced_times_out_with_408(running, capfd):
    server = running(limits=Limits(idle_timeout=1.0, body_timeout=2.0))
    answer = _raw(server.port, b"POST /sparql HTTP/1.0\r\nContent-Type: application/sparql-query\r\n"
                               b"Content-Length: 100\r\n\r\nASK {", then=0.1)
    assert _status(answer) == 408
    assert "Traceback" not in capfd.readouterr().err


def test_sixteen_concurrent_clients_are_all_answered(running):
    server = running(_store(100))
    statuses = []
    lock = threading.Lock()

    def client():
        for _ in range(10):
            s, _ = _query(server.url, f"SELECT ?o WHERE {{ <{EX}a> ?p ?o }}", format="json")
            with lock:
                statuses.append(s)

    threads = [threading.Thread(target=client) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert statuses == [200] * 160


def test_serve_over_a_remote_store_forwards_queries_to_it(running):
    """`liuyao serve --endpoint URL`: the endpoint in front of another endpoint, through the store interface."""
    from liuyao_kg.remote import Endpoint, RemoteKnowledgeGraph

    inner = running(_store(5), allow_update=True)
    # a generous timeout: the front first writes the ~104,000 layer triples into the inner store
    front = running(RemoteKnowledgeGraph(Endpoint(inner.url, inner.url, dialect="standard", timeout=600)))
    status, body = _query(front.url, f"SELECT ?o WHERE {{ <{EX}a> <{EX}p> ?o }}", format="json")
    assert status == 200 and [b["o"]["value"] for b in json.loads(body)["results"]["bindings"]] == ["a"]
    status, body = _query(front.url, f"CONSTRUCT {{ ?s <{EX}q> ?o }} WHERE {{ ?s <{EX}q> ?o }}", format="nt")
    assert status == 200 and body.count(f"<{EX}q>") == 5
    status, body = _query(front.url, f"SELECT ?s WHERE {{ ?s ?p ?o }}", format="json",
                          **{"default-graph-uri": EX + "g"})
    assert status == 200 and [b["s"]["value"] for b in json.loads(body)["results"]["bindings"]] == [EX + "a"]
