"""The endpoint under attack: outbound requests, runaway queries, idle and slow clients, malformed requests."""
from __future__ import annotations

import io
import json
import os
import select
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pyoxigraph as ox
import pytest

from liuyao_kg.serve.endpoint import Limits, _BoundedBuffer, _Stop, make_server

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


def test_two_different_content_lengths_are_answered_400_and_the_connection_closed(running):
    """RFC 9112 §6.3: a proxy may have framed the request by the other length (request smuggling), so the
    request is not answered by either and nothing more is read from the connection."""
    server = running(limits=Limits(idle_timeout=30.0))
    with socket.create_connection(("127.0.0.1", server.port), timeout=20) as conn:
        conn.sendall(b"POST /sparql HTTP/1.1\r\nHost: x\r\nContent-Type: application/sparql-query\r\n"
                     b"Content-Length: 6\r\nContent-Length: 60\r\n\r\nASK {}")
        answer = b""
        while chunk := conn.recv(65536):  # ends at the server's close; a kept-alive connection would time out here
            answer += chunk
    assert _status(answer) == 400 and b"Content-Length" in answer.partition(b"\r\n\r\n")[2]
    assert b"Connection: close" in answer


def test_a_content_length_repeated_with_the_same_value_is_read_as_one(running):
    """RFC 9110 §8.6 lets a recipient take identical values as one: the framing is not in doubt."""
    server = running()
    answer = _raw(server.port, b"POST /sparql?format=json HTTP/1.0\r\nContent-Type: application/sparql-query\r\n"
                               b"Content-Length: 6\r\nContent-Length: 6\r\n\r\nASK {}")
    assert _status(answer) == 200 and answer.endswith(b'"boolean":true}')


def test_a_body_over_the_limit_gets_its_413_even_by_a_client_that_sends_it_all_first(running):
    """urllib (and requests) read the answer only once the whole body is sent: closing on the unread body
    reset the connection under them (a broken pipe). The server half-closes and drains it (RFC 9112 §9.6)."""
    server = running(limits=Limits(max_body_bytes=1000))
    req = urllib.request.Request(server.url, data=b"#" * 8_000_000, method="POST",
                                 headers={"Content-Type": "application/sparql-query"})
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=60)
    assert e.value.code == 413 and "larger than the limit of 1,000" in e.value.read().decode()


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
    from liuyao_kg.store.remote import Endpoint, RemoteKnowledgeGraph

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


# -- the time limit stops the work (a forked child per query; liuyao_kg.serve.forked) --------------------------------
NO_FIRST_ROW = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"  # 3000³ rows to count: hours


def _cpu(pid: int) -> float:
    """CPU seconds used by `pid`, its reaped children and its live descendants (from /proc)."""
    stats = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    raw = f.read()
            except OSError:
                continue
            stats[int(d)] = raw[raw.rindex(")") + 2:].split()  # state ppid … utime(11) stime(12) cutime cstime
    tree, grown = {pid}, True
    while grown:
        grown = False
        for p, f in stats.items():
            if p not in tree and int(f[1]) in tree:
                tree.add(p)
                grown = True
    own = stats[pid]
    ticks = sum(int(stats[p][11]) + int(stats[p][12]) for p in tree if stats[p][0] != "Z")
    return (ticks + int(own[13]) + int(own[14])) / os.sysconf("SC_CLK_TCK")


def _cpu_stays_flat(pid: int, settle: float = 1.0, watch: float = 3.0) -> float:
    """CPU seconds `pid`'s process tree uses in `watch` seconds, after `settle` (a running query would use ~watch)."""
    time.sleep(settle)
    before = _cpu(pid)
    time.sleep(watch)
    return _cpu(pid) - before


def _live_children() -> list[int]:
    """This process's live forked children: the server's query children (a fork keeps the parent's command
    line; other fixtures' processes in the same test worker, a Virtuoso or a Dask worker, do not)."""
    me, out = os.getpid(), []
    with open(f"/proc/{me}/cmdline", "rb") as f:
        mine = f.read()
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == me and fields[0] != "Z":
                try:
                    with open(f"/proc/{d}/cmdline", "rb") as f:
                        if f.read() != mine:
                            continue
                except OSError:
                    continue
                out.append(int(d))
    return out


@pytest.fixture
def liuyao_serve():
    """`liuyao serve` in its own process (memory store with the layers), so its CPU time can be read."""
    procs = []

    def start(*args):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        proc = subprocess.Popen([sys.executable, "-m", "liuyao_kg.cli", "serve", "--port", str(port), *args],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        procs.append(proc)
        assert "SPARQL endpoint at" in proc.stderr.readline()
        return proc, f"http://127.0.0.1:{port}/sparql"

    yield start
    for p in procs:
        p.terminate()
        p.wait(timeout=30)


def test_a_query_with_no_first_row_is_answered_at_the_limit_and_its_work_stops(liuyao_serve):
    proc, url = liuyao_serve("--query-timeout", "1")
    t0 = time.monotonic()
    status, body = _query(url, NO_FIRST_ROW, timeout=120)
    waited = time.monotonic() - t0
    assert status == 503 and "time limit" in body
    assert waited < 1.0 + 10.0  # the limit and a generous margin (the answer used to wait for a first row: hours)
    assert _cpu_stays_flat(proc.pid) < 0.5  # the query's child was killed: nothing keeps computing
    assert _query(url, "ASK { ?s ?p ?o }", format="json")[0] == 200


@pytest.mark.parametrize("form", [
    NO_FIRST_ROW,
    "ASK { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i FILTER(CONCAT(STR(?c), STR(?f), STR(?i)) = 'never') }",
    "CONSTRUCT { ?a <urn:x> ?c } WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i FILTER(CONCAT(STR(?c), STR(?f), STR(?i)) = 'never') }",
    "DESCRIBE ?a WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i FILTER(CONCAT(STR(?c), STR(?f), STR(?i)) = 'never') }",
    "SELECT ?a WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } ORDER BY ?c ?f ?i",
], ids=["count", "ask", "construct", "describe", "order-by"])
def test_every_query_form_is_stopped_at_the_time_limit(running, form):
    server = running(_store(3000), limits=Limits(query_timeout=0.5))
    status, body = _query(server.url, form, timeout=120)
    assert status == 503 and "time limit" in body
    time.sleep(0.5)
    assert _live_children() == []  # the evaluating child is gone, not computing on


def test_a_client_that_leaves_mid_query_stops_its_work(running):
    server = running(_store(3000), limits=Limits(query_timeout=600))
    path = "/sparql?" + urllib.parse.urlencode({"query": NO_FIRST_ROW})
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        time.sleep(1.0)
        assert len(_live_children()) == 1  # it is computing
    assert _cpu_stays_flat(os.getpid()) < 0.5
    assert _live_children() == []


def test_other_clients_are_answered_during_a_query_with_no_first_row(running):
    server = running(_store(3000), limits=Limits(query_timeout=5.0))
    heavy = threading.Thread(target=_query, args=(server.url, NO_FIRST_ROW), kwargs={"timeout": 120})
    heavy.start()
    time.sleep(0.3)
    try:
        for _ in range(10):
            status, body = _query(server.url, f"ASK {{ <{EX}a> ?p ?o }}", format="json")
            assert status == 200 and json.loads(body)["boolean"] is True
    finally:
        heavy.join(timeout=120)


def _disk_store(tmp_path, n):
    s = ox.Store(str(tmp_path / "kg"))
    s.bulk_extend(_store(n))
    s.add(ox.Quad(ox.NamedNode(EX + "b"), ox.NamedNode(EX + "p"), ox.Literal("b", language="zh-Hant"),
                  ox.NamedNode(EX + "g")))
    s.add(ox.Quad(ox.BlankNode("n1"), ox.NamedNode(EX + "p"), ox.Literal("1.5", datatype=ox.NamedNode(
        "http://www.w3.org/2001/XMLSchema#decimal"))))
    s.flush()
    return s


@pytest.mark.parametrize("where", ["memory", "disk"])
def test_an_update_past_its_limit_writes_nothing_and_stops(running, tmp_path, where):
    store = _store(3000) if where == "memory" else _disk_store(tmp_path, 3000)
    before = sorted(map(str, store))
    server = running(store, allow_update=True, limits=Limits(update_timeout=1.0))
    status, body = _query(server.url, "INSERT { <urn:x:s> <urn:x:p> ?n } WHERE { SELECT (COUNT(*) AS ?n) WHERE { "
                                      "?a ?b ?c . ?d ?e ?f . ?g ?h ?i } }", "POST", timeout=120)
    assert status == 503 and "nothing was written" in body
    assert sorted(map(str, store)) == before
    time.sleep(0.5)
    assert _live_children() == []
    # within the limit: applied, whole; malformed: 400, nothing written
    status, _ = _query(server.url, f"INSERT {{ ?s <urn:x:copy> ?o }} WHERE {{ ?s <{EX}q> ?o }}", "POST")
    assert status == 204 and len(store) == len(before) + 3000
    status, _ = _query(server.url, "DELETE WHERE { ?s ?p ", "POST")
    assert status == 400 and len(store) == len(before) + 3000
    status, _ = _query(server.url, "INSERT DATA { <urn:x:d> <urn:x:p> 1 }", "POST")  # applied without a dry run
    assert status == 204 and len(store) == len(before) + 3001
    assert not list(tmp_path.glob(".liuyao-dry-run-*"))  # the checkpoints are removed


@pytest.mark.parametrize("where", ["memory", "disk"])
def test_answers_are_byte_identical_to_the_in_process_evaluation(running, tmp_path, where):
    from liuyao_kg.store.embedded import query_dataset

    store = _store(50) if where == "memory" else _disk_store(tmp_path, 50)
    server = running(store)
    cases = [(f"SELECT ?s ?o WHERE {{ ?s ?p ?o }} ORDER BY ?s ?o", fmt, ox.QueryResultsFormat.__dict__[name])
             for fmt, name in [("json", "JSON"), ("xml", "XML"), ("csv", "CSV"), ("tsv", "TSV")]]
    cases += [(f"ASK {{ <{EX}a> ?p ?o }}", "json", ox.QueryResultsFormat.JSON)]
    graph = f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ ?s ?p ?o }} ORDER BY ?s ?o"
    cases += [(graph, media, fmt) for media, fmt in [("turtle", ox.RdfFormat.TURTLE), ("nt", ox.RdfFormat.N_TRIPLES),
                                                     ("rdfxml", ox.RdfFormat.RDF_XML)]]
    cases += [(f"DESCRIBE <{EX}s7>", "nt", ox.RdfFormat.N_TRIPLES)]
    for text, short, fmt in cases:
        url = server.url + "?" + urllib.parse.urlencode({"query": text, "format": short})
        with urllib.request.urlopen(url, timeout=60) as r:
            served = r.read()
        out = io.BytesIO()
        query_dataset(store, text).serialize(out, format=fmt)
        assert served == out.getvalue(), (text, short)


def test_a_request_head_dripped_slowly_is_cut_off_by_the_header_timeout(running):
    server = running(limits=Limits(idle_timeout=30.0, header_timeout=1.0))
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(b"GET /sparql?query=ASK%7B%7D HTTP/1.1\r\n")
        t0 = time.monotonic()
        closed = False
        while time.monotonic() - t0 < 20:  # a header byte every 0.2 s: never silent for the idle timeout
            try:
                s.sendall(b"X")
            except OSError:
                closed = True
                break
            ready, _, _ = select.select([s], [], [], 0.2)
            if ready and s.recv(1) == b"":
                closed = True
                break
        assert closed


def test_a_connection_is_kept_alive_between_requests_until_the_idle_timeout(running):
    server = running(limits=Limits(idle_timeout=1.0))
    request = b"GET /sparql?query=ASK%7B%7D&format=json HTTP/1.1\r\nHost: x\r\n\r\n"
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        f = s.makefile("rb")
        for _ in range(3):  # three requests on one connection
            s.sendall(request)
            assert f.readline().startswith(b"HTTP/1.1 200")
            length = 0
            while (line := f.readline()) != b"\r\n":
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            assert json.loads(f.read(length))["boolean"] is True
        assert f.read(1) == b""  # then closed by the server, idle


@pytest.fixture
def descriptors_past_1024():
    """This process holds a descriptor numbered 1024 or above (select's FD_SETSIZE), as a server holding many
    files or connections does: the next ones it opens (a query's pipes, a client's socket) are numbered so too."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < 1200:
        if hard != resource.RLIM_INFINITY and hard < 1200:
            pytest.skip(f"this process may open only {hard} files")
        resource.setrlimit(resource.RLIMIT_NOFILE, (1200, hard))
    fds = [os.open(os.devnull, os.O_RDONLY)]
    while fds[-1] < 1030:
        fds.append(os.open(os.devnull, os.O_RDONLY))
    try:
        yield fds[-1]
    finally:
        for fd in fds:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_queries_and_updates_are_answered_while_the_server_holds_descriptors_past_1024(running, descriptors_past_1024):
    # select() refuses such a descriptor; a forked query's pipes got one, and every query lost its connection
    r = running(_store(), allow_update=True)
    status, body = _query(r.url, f"SELECT ?o WHERE {{ GRAPH ?g {{ <{EX}a> ?p ?o }} }}", format="json")
    assert status == 200 and json.loads(body)["results"]["bindings"] == [{"o": {"type": "literal", "value": "a"}}]
    status, _ = _query(r.url, f"INSERT DATA {{ <{EX}b> <{EX}p> 'b' }}", method="POST")  # dry run forked, then applied
    assert status == 204
    status, body = _query(r.url, f"ASK {{ <{EX}b> <{EX}p> 'b' }}", format="json")
    assert status == 200 and json.loads(body)["boolean"] is True


def test_a_query_the_server_cannot_fork_for_is_refused_with_503_saying_why_and_the_next_is_answered(running,
                                                                                                  monkeypatch):
    import errno

    from liuyao_kg.serve import forked

    r = running(_store())
    real, refusals = os.fork, []

    def fork():  # as the kernel does when the process's mappings do not fit in memory
        if not refusals:
            refusals.append(1)
            raise OSError(errno.ENOMEM, os.strerror(errno.ENOMEM))
        return real()

    monkeypatch.setattr(forked.os, "fork", fork)
    text = f"SELECT ?o WHERE {{ GRAPH ?g {{ <{EX}a> ?p ?o }} }}"
    status, body = _query(r.url, text, format="json")
    assert status == 503 and "could not start a process" in body and os.strerror(errno.ENOMEM) in body
    status, body = _query(r.url, text, format="json")
    assert status == 200 and json.loads(body)["results"]["bindings"] == [{"o": {"type": "literal", "value": "a"}}]
