"""The remote client against misbehaving servers: silence, dripping bytes, 5xx, malformed results, echoed secrets."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from liuyao_kg.cli import main
from liuyao_kg.store.remote import Endpoint, RemoteStoreError, SparqlClient

pytestmark = pytest.mark.server

ASK_TRUE = b'{"head": {}, "boolean": true}'


class _Fake:
    """A loopback HTTP server answering every POST with `behave(handler, n)` (n: the request's number)."""

    def __init__(self, behave):
        self.requests = 0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                fake.requests += 1
                behave(self, fake.requests)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/sparql"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake():
    made = []

    def start(behave):
        made.append(_Fake(behave))
        return made[-1]

    yield start
    for f in made:
        f.close()


def _answer(h, status=200, body=ASK_TRUE, ctype="application/sparql-results+json"):
    h.send_response(status)
    h.send_header("Content-Type", ctype)
    h.send_header("Content-Length", str(len(body)))
    h.end_headers()
    h.wfile.write(body)


def _client(url, **kw) -> SparqlClient:
    return SparqlClient(Endpoint(url, url, dialect="standard", **kw))


def test_a_server_that_never_answers_times_out_with_a_clear_error(fake):
    server = fake(lambda h, n: time.sleep(30))
    with pytest.raises(RemoteStoreError, match="timed out"):
        _client(server.url, timeout=1.0, retries=0).ask("ASK {}")


def test_a_server_that_drips_its_answer_is_cut_off_at_the_total_timeout(fake):
    def drip(h, n):
        h.send_response(200)
        h.send_header("Content-Type", "application/sparql-results+json")
        h.end_headers()
        try:
            for _ in range(300):
                h.wfile.write(b" ")
                h.wfile.flush()
                time.sleep(0.1)
        except OSError:
            pass

    with pytest.raises(RemoteStoreError, match="longer than 2 s"):
        _client(fake(drip).url, timeout=5.0, total_timeout=2.0, retries=0).ask("ASK {}")


def _drip_head(h, n):
    """A status line, then a header a byte every 0.1 s for 10 s: each read is answered well within any timeout."""
    h.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
    try:
        for _ in range(100):
            h.wfile.write(b"x")
            h.wfile.flush()
            time.sleep(0.1)
        h.wfile.write(b"\r\nContent-Type: application/sparql-results+json\r\nContent-Length: 0\r\n\r\n")
    except OSError:
        pass


def test_a_server_that_drips_its_head_is_cut_off_at_the_total_timeout(fake):
    """The total bounds the whole request, not only the body: http.client reads the head line by line, each
    read within the socket timeout."""
    start = time.monotonic()
    with pytest.raises(RemoteStoreError, match="longer than 2 s"):
        _client(fake(_drip_head).url, timeout=5.0, total_timeout=2.0, retries=0).ask("ASK {}")
    assert time.monotonic() - start < 5


def test_retries_and_their_pauses_end_within_the_total_timeout(fake):
    """A read retried after each 503 would otherwise pause 1 + 2 + 4 s: the total is the whole call's."""
    server = fake(lambda h, n: _answer(h, 503, b"busy", "text/plain"))
    start = time.monotonic()
    with pytest.raises(RemoteStoreError):
        _client(server.url, total_timeout=1.5, backoff=1.0, retries=3).ask("ASK {}")
    assert time.monotonic() - start < 3


@pytest.mark.parametrize("how", ["--total-timeout", "LIUYAO_ENDPOINT_TOTAL_TIMEOUT"])
def test_the_user_sets_the_total_timeout_by_option_or_environment(fake, capsys, monkeypatch, how):
    """`--timeout` bounds each read, so only a total the user can set bounds a dripping endpoint in less than
    the default 600 s."""
    extra = ["--total-timeout", "2"] if how.startswith("--") else []
    if not extra:
        monkeypatch.setenv(how, "2")
    start = time.monotonic()
    assert main(["query", "nayin", "--param", "gz=甲子", "--endpoint", fake(_drip_head).url, "--timeout", "5",
                 *extra, "--lang", "en"]) == 1
    assert "longer than 2 s" in capsys.readouterr().err and time.monotonic() - start < 8


def test_reads_are_retried_with_backoff_after_a_5xx_and_updates_are_not(fake):
    server = fake(lambda h, n: _answer(h, 503, b"busy", "text/plain") if n <= 2 else _answer(h))
    client = _client(server.url, backoff=0.05)
    assert client.ask("ASK {}") is True and server.requests == 3
    failing = fake(lambda h, n: _answer(h, 503, b"busy", "text/plain"))
    with pytest.raises(RemoteStoreError):
        _client(failing.url, backoff=0.05).update("INSERT DATA { <urn:a> <urn:b> <urn:c> }")
    assert failing.requests == 1


@pytest.mark.parametrize("body, why", [
    (b"{}", "no results.bindings"),
    (b'{"head": {"vars": ["x"]}, "results": {}}', "no results.bindings"),
    (b'{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "uri"}}]}}', "row 1"),
    (b'{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "uri", "value": 7}}]}}', "row 1"),
    (b'{"head": {"vars": ["x"]}, "results": {"bindings": ["x"]}}', "row 1 is not an object"),
    (b"<html>not json</html>", "not SPARQL JSON"),
    (b"[" * 100000, "not SPARQL JSON"),
])
def test_malformed_select_results_are_clear_errors(fake, body, why):
    server = fake(lambda h, n: _answer(h, body=body))
    with pytest.raises(RemoteStoreError, match=why):
        _client(server.url).select("SELECT ?x WHERE { ?x ?p ?o }")


def test_a_bad_count_from_the_server_is_a_clear_error_when_opening_the_store(fake):
    from liuyao_kg.store.remote import RemoteKnowledgeGraph

    body = json.dumps({"head": {"vars": ["n"]}, "results": {"bindings": [{"n": {
        "type": "literal", "value": "many", "datatype": "http://www.w3.org/2001/XMLSchema#integer"}}]}}).encode()
    server = fake(lambda h, n: _answer(h, body=body))
    with pytest.raises(RemoteStoreError, match="not an integer"):
        RemoteKnowledgeGraph(Endpoint(server.url, server.url, dialect="standard"))


def test_a_server_echoing_the_credentials_never_gets_them_into_a_message(fake, capsys, monkeypatch):
    def echo(h, n):
        _answer(h, 500, f"error; you sent {h.headers.get('Authorization')}".encode(), "text/plain")

    server = fake(echo)
    monkeypatch.setenv("LIUYAO_ENDPOINT_USER", "liuyao")
    monkeypatch.setenv("LIUYAO_ENDPOINT_PASSWORD", "s3cret-pw")
    url = server.url.replace("http://", "http://liuyao:s3cret-pw@")
    assert main(["query", "nayin", "--param", "gz=甲子", "--endpoint", url, "--timeout", "5", "--lang", "en"]) == 1
    err = capsys.readouterr().err
    assert "SPARQL query on" in err and "s3cret-pw" not in err and "bGl1eWFv" not in err and "Traceback" not in err
