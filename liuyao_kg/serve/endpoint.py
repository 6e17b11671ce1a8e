"""`liuyao serve`: a SPARQL 1.1 Protocol endpoint over the embedded pyoxigraph store (stdlib http.server).

* ``GET /sparql?query=…``, ``POST`` with ``application/x-www-form-urlencoded`` (``query=``) or
  ``application/sparql-query``; ``default-graph-uri`` / ``named-graph-uri`` (repeatable) choose the
  dataset. Without them the default graph is the union of all graphs (layers and every cast's
  asserted and inferred graph), as the library's own queries see it.
* Results by content negotiation (``Accept``, or a ``format=`` parameter naming a media type or a
  short name): SELECT / ASK as SPARQL JSON (default), XML, CSV or TSV; CONSTRUCT / DESCRIBE as
  Turtle (default), N-Triples, RDF/XML or JSON-LD. Nothing acceptable → 406.
* Read-only by default: an update (``update=`` or ``application/sparql-update``) is answered 403
  unless the server was started with ``allow_update``. Updates write the store as given: they do
  not run the rule engine (load casts with ``liuyao load``).
* A malformed query or update → 400 with the parser's message; CORS headers on every answer so a
  browser client (YASGUI) can use it; ``GET /health`` → JSON; ``GET /sparql`` without a query → the
  SPARQL 1.1 Service Description in Turtle.
* Hardened (:class:`Limits`; docs/robustness.md): no SERVICE or LOAD to a host not allowed
  (:mod:`liuyao_kg.serve.guard`); a time and a size limit per query, each query evaluated in a forked
  child process (:mod:`liuyao_kg.serve.forked`) that is killed when a limit is hit or the client has gone, so the
  work stops even before the first row; an update that evaluates something is dry-run within its own time
  limit before it is applied (whole, or not at all); separate timeouts for a connection's idle wait, the
  request head, the body and the answer's sending; bodies bounded in size; every malformed request a 4xx,
  never a traceback; a listen backlog of 128 and at most ``max_concurrent`` queries evaluated at once.
* The store is any :class:`~liuyao_kg.store.CastStore` (so ``serve --endpoint URL`` fronts a remote
  store) or a bare pyoxigraph Store. Routes are one table (``_Handler.ROUTES``) read by one dispatch
  function, so more routes slot in there.
"""
from __future__ import annotations

import io
import json
import socket
import sys
import threading
import time
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pyoxigraph as ox

from liuyao_kg.serve import forked
from liuyao_kg.serve import guard as sparql_guard
from liuyao_kg.serve.readable import readable

ENDPOINT = "/sparql"
#: bytes of a refused (413) body read and discarded before closing, so that the client gets the answer
DRAIN_BYTES = 64 * 1024 * 1024

_RESULTS = {  # media type → format, for SELECT / ASK
    "application/sparql-results+json": ox.QueryResultsFormat.JSON,
    "application/json": ox.QueryResultsFormat.JSON,
    "application/sparql-results+xml": ox.QueryResultsFormat.XML,
    "application/xml": ox.QueryResultsFormat.XML,
    "text/xml": ox.QueryResultsFormat.XML,
    "text/csv": ox.QueryResultsFormat.CSV,
    "text/tab-separated-values": ox.QueryResultsFormat.TSV,
}
_GRAPHS = {  # media type → format, for CONSTRUCT / DESCRIBE
    "text/turtle": ox.RdfFormat.TURTLE,
    "application/x-turtle": ox.RdfFormat.TURTLE,
    "application/n-triples": ox.RdfFormat.N_TRIPLES,
    "text/plain": ox.RdfFormat.N_TRIPLES,
    "application/rdf+xml": ox.RdfFormat.RDF_XML,
    "application/ld+json": ox.RdfFormat.JSON_LD,
}
_SHORT = {"json": "application/sparql-results+json", "xml": "application/sparql-results+xml", "csv": "text/csv",
          "tsv": "text/tab-separated-values", "turtle": "text/turtle", "ttl": "text/turtle",
          "nt": "application/n-triples", "ntriples": "application/n-triples", "rdfxml": "application/rdf+xml",
          "jsonld": "application/ld+json", "json-ld": "application/ld+json"}
# a short name said of a graph result (CONSTRUCT / DESCRIBE): SPARQLWrapper sends format=xml and format=json
# for every query form, meaning RDF/XML and JSON-LD there
_SHORT_GRAPH = {"xml": "application/rdf+xml", "rdf": "application/rdf+xml", "json": "application/ld+json"}


class NotAcceptable(Exception):
    pass


def _accepted(accept: str) -> list[tuple[str, float]]:
    """The media ranges of an Accept header, best first (q-values; stable for equal q)."""
    out = []
    for i, part in enumerate(accept.split(",")):
        fields = [f.strip() for f in part.split(";")]
        if not fields[0]:
            continue
        q = 1.0
        for f in fields[1:]:
            k, _, v = f.partition("=")
            if k.strip() == "q":
                try:
                    q = float(v)
                except ValueError:
                    q = 0.0
        out.append((i, fields[0].lower(), q))
    out.sort(key=lambda t: (-t[2], t[0]))
    return [(m, q) for _, m, q in out if q > 0]


def negotiate(accept: str | None, table: dict, default: str) -> tuple[str, object]:
    """(media type, pyoxigraph format) for an Accept header; NotAcceptable if nothing in table fits."""
    if not accept or not accept.strip():
        return default, table[default]
    for media, _ in _accepted(accept):
        if media in table:
            return media, table[media]
        if media in ("*/*", "*"):
            return default, table[default]
        major, _, minor = media.partition("/")
        if minor == "*":
            for m in table:
                if m.startswith(major + "/"):
                    return (default, table[default]) if default.startswith(major + "/") else (m, table[m])
    raise NotAcceptable(accept)


def service_description(base: str, allow_update: bool) -> str:
    lang = "sd:SPARQL11Query" + (" , sd:SPARQL11Update" if allow_update else "")
    results = " , ".join(f"<http://www.w3.org/ns/formats/{n}>" for n in (
        "SPARQL_Results_JSON", "SPARQL_Results_XML", "SPARQL_Results_CSV", "SPARQL_Results_TSV", "Turtle",
        "N-Triples", "RDF_XML", "JSON-LD"))
    return f"""@prefix sd: <http://www.w3.org/ns/sparql-service-description#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
[] a sd:Service ;
   sd:endpoint <{base}> ;
   sd:supportedLanguage {lang} ;
   sd:feature sd:UnionDefaultGraph ;
   sd:resultFormat {results} ;
   dcterms:title "liuyao-kg SPARQL endpoint" .
"""


@dataclass(frozen=True)
class Limits:
    """What one request may cost. Defaults suit a shared machine; `liuyao serve` takes each as an option."""

    #: seconds a query may run; when hit, the evaluation is stopped (its child process killed) and 503 answered
    query_timeout: float = 30.0
    #: seconds the dry run of an update that evaluates something (WHERE, CLEAR, ADD …) may take; past it
    #: nothing is written and 503 answered. INSERT DATA / DELETE DATA are applied directly (linear in the body)
    update_timeout: float = 30.0
    #: bytes an answer may have (the evaluation stops when the serialised answer grows past it)
    max_result_bytes: int = 64 * 1024 * 1024
    #: bytes a request body may have (refused with 413 before it is read)
    max_body_bytes: int = 16 * 1024 * 1024
    #: seconds a connection may wait silent for a request to begin (a new connection, or kept alive between two)
    idle_timeout: float = 15.0
    #: seconds a request's head (request line and headers) may take once it has begun (a client dripping it)
    header_timeout: float = 10.0
    #: seconds a whole request body may take to arrive (a client dripping bytes is cut off with 408)
    body_timeout: float = 30.0
    #: seconds sending one answer may take (a client that reads too slowly is cut off)
    send_timeout: float = 60.0
    #: requests evaluated at once; more wait in the listen backlog or get 503
    max_concurrent: int = 32
    #: hosts (host or host:port) that SERVICE and LOAD may reach; none by default
    allow_service: tuple[str, ...] = ()
    #: "fork": evaluate each query of an embedded store in a child process (a limit stops any query at once);
    #: "thread": in the server process (a query then stops only at its next row; no fork cost)
    isolate: str = "fork" if forked.AVAILABLE else "thread"

    def __post_init__(self):
        if self.isolate not in ("fork", "thread"):
            raise ValueError(f"isolate must be 'fork' or 'thread', not {self.isolate!r}")
        if self.isolate == "fork" and not forked.AVAILABLE:
            raise ValueError("isolate='fork' needs Linux (os.fork and /proc)")


class _Stop(Exception):
    """Raised inside a serialiser to stop the evaluation: why, as (status, message)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


class _BoundedBuffer(io.RawIOBase):
    """Where pyoxigraph serialises an answer: stops the evaluation on the deadline, the size limit, or when
    the client has gone (pyoxigraph evaluates lazily, so the serialiser drives the evaluation)."""

    def __init__(self, limit: int, deadline: float, sock):
        self.buf = io.BytesIO()
        self.limit, self.deadline, self.sock = limit, deadline, sock

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        if self.buf.tell() + len(b) > self.limit:
            raise _Stop(413, f"the answer is larger than the limit of {self.limit:,} bytes: narrow the query "
                             f"(LIMIT, filters)")
        if time.monotonic() > self.deadline:
            raise _Stop(503, "the query ran past the time limit; narrow it or raise --query-timeout")
        if _client_gone(self.sock):
            raise _Stop(499, "client closed the connection")
        return self.buf.write(b)


class _TimedReader(io.RawIOBase):
    """A connection's request side: each read waits at most until the current phase's deadline — the idle
    wait for a request to begin, then its head (from its first byte), then its body (see Limits)."""

    def __init__(self, sock, limits: Limits):
        self.sock, self.limits = sock, limits
        self.start("idle")

    def readable(self) -> bool:
        return True

    def start(self, phase: str) -> None:
        self.phase = phase
        self.deadline = time.monotonic() + {"idle": self.limits.idle_timeout, "head": self.limits.header_timeout,
                                            "body": self.limits.body_timeout}[phase]

    def readinto(self, b) -> int:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"the request's {self.phase} did not arrive in time")
        self.sock.settimeout(remaining)
        n = self.sock.recv_into(b)
        if n and self.phase == "idle":
            self.start("head")
        return n


def _client_gone(sock) -> bool:
    """The peer closed its side (readable with nothing to read); cheap enough to ask on every write."""
    try:
        if not readable([sock], 0):
            return False
        return sock.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


class _OxigraphStore:
    """A bare pyoxigraph Store seen through the two CastStore methods the endpoint uses."""

    def __init__(self, store: ox.Store):
        self.store = store

    path = None  # unknown: the dry run of an update finds out whether the store is on disk

    def sparql(self, text, *, default_graph=None, named_graphs=None):
        from liuyao_kg.store.embedded import query_dataset

        return query_dataset(self.store, text, default_graph, named_graphs)

    def update(self, text):
        self.store.update(text)

    def size(self):
        return len(self.store)


class _Handler(BaseHTTPRequestHandler):
    server_version = "liuyao-kg"
    protocol_version = "HTTP/1.1"  # keep-alive, bounded by Limits.idle_timeout between requests
    store = None  # a CastStore (or _OxigraphStore), set on the subclass made by make_server
    allow_update: bool = False
    limits: Limits = Limits()
    log = None
    api = None  # liuyao_kg.serve.api.Api over the served knowledge graph (make_server's kg=), for /api/… and the reader
    #: path → method name; the request dispatch (`_dispatch`) reads only this table, so routes slot in here
    ROUTES = {"/health": "route_health", ENDPOINT: "route_sparql", "/": "route_sparql", ENDPOINT + "/": "route_sparql"}

    # -- plumbing -------------------------------------------------------------------------------
    def setup(self):
        self.timeout = self.limits.idle_timeout
        super().setup()
        self.rfile.close()  # reads go through the phase deadlines instead
        self.reader = _TimedReader(self.connection, self.limits)
        self.rfile = io.BufferedReader(self.reader, 65536)

    def handle_one_request(self):
        self.reader.start("idle")  # a new connection, or one kept alive between two requests
        super().handle_one_request()

    def parse_request(self) -> bool:
        """http.server's reading of the head, and then of its framing: two different Content-Lengths are
        answered 400 and the connection closed (RFC 9112 §6.3), for any method — a proxy in front may have
        framed the request by the other one (request smuggling). Identical ones are read as one (RFC 9110 §8.6)."""
        if not super().parse_request():
            return False
        lengths = [v.strip() for v in self.headers.get_all("Content-Length") or []]
        if len(set(lengths)) > 1:
            self._error(400, f"the request has {len(lengths)} different Content-Length headers "
                             f"({', '.join(_short(v, 20) for v in lengths[:4])}): its body's length is in doubt")
            return False
        return True

    def send_response(self, code, message=None):
        self.connection.settimeout(self.limits.send_timeout)  # sendall's timeout bounds the whole answer
        super().send_response(code, message)

    def log_message(self, fmt, *args):  # quiet unless asked
        if self.log is not None:
            self.log.write("%s - %s\n" % (self.address_string(), fmt % args))

    def log_error(self, fmt, *args):  # http.server's own errors (bad request line, timeouts): one line, if asked
        self.log_message(fmt, *args)

    def _cors(self) -> None:
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
        self.send_header("Access-Control-Allow-Headers", "Content-Type, Accept, Authorization")
        self.send_header("Access-Control-Max-Age", "86400")

    def _send(self, status: int, body: bytes | str, media: str) -> None:
        if isinstance(body, str):
            body = body.encode("utf-8")
        self.send_response(status)
        self._cors()
        self.send_header("Content-Type", media if "charset" in media or not media.startswith("text/")
                         else media + "; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept")
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _error(self, status: int, message: str) -> None:
        self.close_connection = True
        self._send(status, message + "\n", "text/plain")

    def do_OPTIONS(self):  # CORS preflight
        self.send_response(HTTPStatus.NO_CONTENT)
        self._cors()
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _app(self, method: str, url) -> bool:
        """Answer /api/… (liuyao_kg.serve.api) and the web reader's pages (liuyao_kg.serve.web); False if neither's."""
        if self.api is None:
            return False
        from liuyao_kg.serve import web

        wants_page = url.path == "/" and not url.query and "text/html" in (self.headers.get("Accept") or "")
        if url.path.startswith("/api/"):
            body = b""
            if method == "POST":
                text = self._body()
                if text is None:  # answered (400/408/411/413)
                    return True
                body = text.encode("utf-8")
            with self.server.gate.using():  # the API reads the store in this process: no fork meanwhile
                r = self.api.handle("GET" if method == "HEAD" else method, url.path, url.query, body,
                                    self.headers.get("Content-Type") or "")
        elif url.path.startswith("/urn/") and method in ("GET", "HEAD"):
            r = self._cited(url)
        elif (url.path != "/" or wants_page) and method in ("GET", "HEAD"):
            r = web.answer(url.path)
        else:
            r = None
        if r is not None:
            self._send(r.status, r.body, r.media)
        return r is not None

    def _cited(self, url):
        """/urn/URN (docs/citation.md): the passage a citation names — the reader's passage view for a browser
        (Accept: text/html, or ?format=html), else the JSON of /api/passages/URN (?format=json); a malformed URN
        or one citing nothing here is a 404 naming the fault (plain text for a browser)."""
        from liuyao_kg.serve import web
        from liuyao_kg.serve.api import Response

        fmt = (parse_qs(url.query).get("format") or [""])[-1]
        html = fmt == "html" or (fmt != "json" and "text/html" in (self.headers.get("Accept") or ""))
        with self.server.gate.using():
            r = self.api.handle("GET", "/api/passages/" + url.path[len("/urn/"):], "", b"")
        if not html:
            return r
        if r.status == 200:
            return web.answer(url.path)
        return Response(r.status, (json.loads(r.body)["error"] + "\n").encode("utf-8"), "text/plain; charset=utf-8")

    def do_GET(self):
        self._dispatch("GET")

    do_HEAD = do_GET

    def do_POST(self):
        self._dispatch("POST")

    def _dispatch(self, method: str) -> None:
        """The one place a request is routed: path → ROUTES → route method(method, url, params).

        Every failure is an HTTP answer (4xx for the client's mistakes, 500 for ours) and at most one log
        line, never a traceback; a client that went away is simply dropped."""
        if self.request_version != "HTTP/1.1":  # keep-alive only as HTTP/1.1 says it (no 1.0 "keep-alive")
            self.close_connection = True
        try:
            url = urlsplit(self.path)
            if self._app(method, url):
                return
            if url.path.startswith("/api/"):
                return self._error(404, f"no JSON API here (start the server with a knowledge graph); "
                                        f"the endpoint is {ENDPOINT}")
            route = self.ROUTES.get(url.path)
            if route is None:
                return self._error(404, f"no such resource {url.path[:200]}; the endpoint is {ENDPOINT}")
            try:
                params = parse_qs(url.query, keep_blank_values=True, errors="strict", max_num_fields=1000)
            except (UnicodeDecodeError, ValueError) as e:
                return self._error(400, f"malformed query string: {_short(str(e))}")
            getattr(self, route)(method, url, params)
        except (BrokenPipeError, ConnectionResetError, socket.timeout, TimeoutError):
            self.close_connection = True
        except Exception as e:  # noqa: BLE001 - a bug must not print a traceback or drop the connection unanswered
            self.log_message("internal error on %s %s: %s: %s", method, self.path[:200], type(e).__name__,
                             _short(str(e)))
            try:
                self._error(500, f"internal error: {type(e).__name__}")
            except OSError:
                self.close_connection = True

    # -- routes ---------------------------------------------------------------------------------
    def route_health(self, method, url, params):
        with self.server.gate.using():
            quads = _size(self.store)
        return self._send(200, json.dumps({"status": "ok", "quads": quads, "update": self.allow_update}),
                          "application/json")

    def route_sparql(self, method, url, params):
        if method == "GET":
            if "update" in params:
                return self._error(405 if self.allow_update else 403,
                                   "updates must be POSTed" if self.allow_update else "this endpoint is read-only")
            if "query" not in params:
                host = self.headers.get("Host") or "%s:%s" % self.server.server_address[:2]
                return self._send(200, service_description(f"http://{host[:200]}{ENDPOINT}", self.allow_update),
                                  "text/turtle")
            return self._query(params["query"][0], params)
        body = self._body()
        if body is None:
            return
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype == "application/x-www-form-urlencoded":
            try:
                form = parse_qs(body, keep_blank_values=True, errors="strict", max_num_fields=1000)
            except (UnicodeDecodeError, ValueError) as e:
                return self._error(400, f"malformed form body: {_short(str(e))}")
            for k, v in form.items():
                params.setdefault(k, []).extend(v)
            if "update" in params:
                return self._update(params["update"][0], params)
            if "query" in params:
                return self._query(params["query"][0], params)
            return self._error(400, "a form POST needs a query= or update= field")
        if ctype == "application/sparql-query":
            return self._query(body, params)
        if ctype == "application/sparql-update":
            return self._update(body, params)
        return self._error(415, f"unsupported Content-Type {ctype[:100]!r}: use application/x-www-form-urlencoded, "
                                "application/sparql-query or application/sparql-update")

    def _body(self) -> str | None:
        """The request body as text, or None after answering 400/408/411/413 (bounded in size and time)."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            self._error(411, "send the body with a Content-Length (chunked bodies are not accepted)")
            return None
        raw = self.headers.get("Content-Length")
        if raw is None:
            return ""
        if not raw.strip().isdigit() or not raw.strip().isascii():
            self._error(400, f"Content-Length {raw[:40]!r} is not a number of bytes")
            return None
        length = int(raw.strip())
        if length > self.limits.max_body_bytes:
            self._error(413, f"request body of {length:,} bytes is larger than the limit of "
                             f"{self.limits.max_body_bytes:,}")
            self._staged_close(length)
            return None
        self.reader.start("body")
        data = bytearray()
        while len(data) < length:
            try:
                chunk = self.rfile.read1(min(65536, length - len(data)))
            except (socket.timeout, TimeoutError):
                chunk = None
            if chunk is None:
                self._error(408, f"the request body did not arrive in time ({len(data):,} of {length:,} bytes)")
                return None
            if not chunk:  # the client closed before sending what it announced: nobody to answer
                self.close_connection = True
                return None
            data += chunk
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            self._error(400, f"the request body is not UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start})")
            return None

    def _staged_close(self, announced: int) -> None:
        """After answering a body that is not read: half-close, then read and discard what the client still
        sends (at most DRAIN_BYTES of what it announced, within --body-timeout) before the connection is
        closed (RFC 9112 §9.6). Closed at once with unread data, the connection is reset, and a client that
        reads only once it has sent its whole body (urllib, requests) gets a broken pipe, never the answer."""
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_WR)  # the answer is complete: the client sees its end
            self.reader.start("body")
            left = min(announced, DRAIN_BYTES)
            while left > 0:
                chunk = self.rfile.read1(min(65536, left))
                if not chunk:  # the client has read the answer and closed
                    break
                left -= len(chunk)
        except (OSError, ValueError):  # a timeout (OSError), or the client gone: close now
            pass

    # -- SPARQL ---------------------------------------------------------------------------------
    def _dataset(self, params: dict, default_key: str, named_key: str) -> dict:
        defaults = [g for g in params.get(default_key, []) if g]
        named = [g for g in params.get(named_key, []) if g]
        for g in defaults + named:
            ox.NamedNode(g)  # ValueError → 400 for a malformed graph IRI
        return {"default_graph": defaults or None, "named_graphs": named or None}

    def _refuse_outbound(self, text: str) -> bool:
        try:
            sparql_guard.check(text, self.limits.allow_service)
        except sparql_guard.OutboundRequestRefused as e:
            self._error(403, str(e))
            return True
        return False

    def _query(self, text: str, params: dict) -> None:
        short = params["format"][0] if params.get("format") else None
        accept = short or self.headers.get("Accept")
        if self._refuse_outbound(text):
            return
        try:
            dataset = self._dataset(params, "default-graph-uri", "named-graph-uri")
        except ValueError as e:  # a malformed graph IRI
            return self._error(400, _short(str(e), 2000))
        deadline = time.monotonic() + self.limits.query_timeout
        if not self.server.slots.acquire(timeout=self.limits.query_timeout):
            return self._error(503, "the server is busy; try again")
        raw = self._raw_store()
        if raw is not None and self.limits.isolate == "fork":
            try:
                from liuyao_kg.store.embedded import dataset_kwargs

                result = forked.run_query(raw, text, dataset_kwargs(text, **dataset), self._chooser(accept, short),
                                          _query_error, deadline=deadline, limit=self.limits.max_result_bytes,
                                          sock=self.connection, gate=self.server.gate, gone=_client_gone)
            finally:
                self.server.slots.release()
            if result.status == 499:  # nobody is listening any more
                self.close_connection = True
                return
            if result.status != 200:
                if result.status == 500:
                    self.log_message("query failed: %s", result.message)
                return self._error(result.status, result.message)
            return self._send(200, result.body, result.media)
        outcome: dict = {}
        worker = threading.Thread(target=self._evaluate, args=(text, dataset, accept, short, outcome), daemon=True)
        worker.start()  # it releases the slot when it ends, so runaway queries cannot pile up
        worker.join(self.limits.query_timeout + 1.0)
        if worker.is_alive():
            # no answer row yet (an ORDER BY, a GROUP BY or a COUNT over a huge join): pyoxigraph cannot be
            # interrupted inside, so the evaluation stops at its first output, which the buffer refuses
            return self._error(503, "the query ran past the time limit; narrow it or raise --query-timeout")
        if "error" in outcome:
            status, message = outcome["error"]
            if status == 499:  # nobody is listening any more
                self.close_connection = True
                return
            return self._error(status, message)
        self._send(200, outcome["body"], outcome["media"])

    def _raw_store(self) -> ox.Store | None:
        """The pyoxigraph Store behind self.store when it is embedded (what a forked child can evaluate on)."""
        raw = getattr(self.store, "store", None)
        return raw if isinstance(raw, ox.Store) else None

    @staticmethod
    def _chooser(accept, short):
        """is_graph → (media, format) for the request's Accept / format= (NotAcceptable if nothing fits)."""

        def choose(graph: bool):
            wanted = accept
            if short:  # format=xml|json means RDF/XML or JSON-LD for a graph (SPARQLWrapper's defaults)
                wanted = (_SHORT_GRAPH.get(short) if graph else None) or _SHORT.get(short, short)
            if graph:
                return negotiate(wanted, _GRAPHS, "text/turtle")
            return negotiate(wanted, _RESULTS, "application/sparql-results+json")

        return choose

    def _evaluate(self, text: str, dataset: dict, accept, short, outcome: dict) -> None:
        """Evaluate and serialise one query in this process into `outcome` (body and media, or an error's status
        and message): a remote store, or Limits.isolate == "thread"."""
        try:
            deadline = time.monotonic() + self.limits.query_timeout
            result = self.store.sparql(text, **dataset)
            media, fmt = self._chooser(accept, short)(isinstance(result, (ox.QueryTriples, list)))
            out = _BoundedBuffer(self.limits.max_result_bytes, deadline, self.connection)
            if isinstance(result, list):  # a remote store's graph answer, already parsed
                ox.serialize(result, out, format=fmt)
            else:
                result.serialize(out, format=fmt)
            outcome.update(body=out.buf.getvalue(), media=media)
        except Exception as e:  # noqa: BLE001 - every failure is an answer
            outcome["error"] = _query_error(e)
            if outcome["error"][1].startswith("internal error"):
                self.log_message("internal error in a query: %s: %s", type(e).__name__, _short(str(e)))
        finally:
            self.server.slots.release()

    def _update(self, text: str, params: dict) -> None:
        if not self.allow_update:
            return self._error(403, "this endpoint is read-only (start it with --allow-update to accept updates)")
        if params.get("using-graph-uri") or params.get("using-named-graph-uri"):
            return self._error(400, "using-graph-uri / using-named-graph-uri are not supported")
        if self._refuse_outbound(text):
            return
        deadline = time.monotonic() + self.limits.update_timeout
        if not self.server.write_lock.acquire(timeout=self.limits.update_timeout):
            return self._error(503, "another update is being applied; try again")
        try:  # held from the dry run to the apply: both see the same store
            raw = self._raw_store()
            if (raw is not None and self.limits.isolate == "fork" and not getattr(self.store, "read_only", False)
                    and not sparql_guard.writes_data_only(text)):
                refused = forked.dry_run_update(raw, text, deadline=deadline, gate=self.server.gate,
                                                path=getattr(self.store, "path", None), classify=_update_error)
                if refused is not None:
                    return self._error(refused.status, refused.message)
            with self.server.gate.using():
                self.store.update(text)  # one pyoxigraph transaction: whole or not at all
        except Exception as e:  # noqa: BLE001 - every failure is an answer
            return self._error(*_update_error(e))
        finally:
            self.server.write_lock.release()
        self.send_response(HTTPStatus.NO_CONTENT)
        self._cors()
        self.send_header("Content-Length", "0")
        self.end_headers()


def _query_error(e: BaseException) -> tuple[int, str]:
    """(status, message) for an exception raised evaluating a query (also in a forked child: pure Python)."""
    if isinstance(e, _Stop):
        return e.status, e.message
    if isinstance(e, SyntaxError):
        return 400, f"malformed query: {_short(str(e), 2000)}"
    if isinstance(e, ValueError):
        return 400, _short(str(e), 2000)
    if isinstance(e, NotAcceptable):
        return 406, f"cannot answer this query in any of: {_short(str(e))}"
    if isinstance(e, (OSError, RuntimeError)):  # the store failed, or a remote store's error (never a credential)
        return (502 if type(e).__name__ == "RemoteStoreError" else 500), f"query failed: {_short(str(e))}"
    return 500, f"internal error: {type(e).__name__}"


def _update_error(e: BaseException) -> tuple[int, str]:
    if isinstance(e, SyntaxError):
        return 400, f"malformed update: {_short(str(e), 2000)}"
    if isinstance(e, (ValueError, OSError, RuntimeError)):
        return 500, f"update failed: {_short(str(e))}"
    return 500, f"internal error: {type(e).__name__}"


def _size(store) -> int | None:
    try:
        return store.size() if hasattr(store, "size") else len(store.store)
    except Exception:  # noqa: BLE001 - a remote store has no cheap size
        return None


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + " …"


class _Server(ThreadingHTTPServer):
    """A thread per connection, a listen backlog for bursts, and no traceback on stderr for a bad client."""

    request_queue_size = 128  # socketserver's default of 5 refused connections under 16 concurrent clients
    daemon_threads = True
    log = None

    def handle_error(self, request, client_address):
        exc = sys.exc_info()[1]
        if self.log is not None and not isinstance(exc, (BrokenPipeError, ConnectionResetError, TimeoutError)):
            self.log.write(f"{client_address[0]} - connection error: {type(exc).__name__}: {_short(str(exc))}\n")


def make_server(store, host: str = "127.0.0.1", port: int = 7878, *, allow_update: bool = False,
                log=None, limits: Limits | None = None, kg=None) -> ThreadingHTTPServer:
    """A ready (not yet serving) threaded HTTP server; port 0 picks a free port (see server_address).

    `store`: any CastStore (embedded or remote: `serve --endpoint` forwards to the endpoint) or a bare
    pyoxigraph Store. With `kg` (the KnowledgeGraph behind `store`) it also serves the JSON API and the
    web reader."""
    from liuyao_kg.serve.api import Api

    if isinstance(store, ox.Store):
        store = _OxigraphStore(store)
    limits = limits or Limits()
    handler = type("Handler", (_Handler,), {"store": store, "allow_update": allow_update, "log": log,
                                            "limits": limits, "api": Api(kg) if kg is not None else None})
    server = _Server((host, port), handler)
    server.log = log
    server.slots = threading.BoundedSemaphore(limits.max_concurrent)
    server.gate = forked.Gate()  # the parent's own uses of the store against forks (liuyao_kg.serve.forked)
    server.write_lock = threading.Lock()  # one update at a time, from its dry run to its apply
    return server


def serve(store, host: str = "127.0.0.1", port: int = 7878, *, allow_update: bool = False,
          limits: Limits | None = None, kg=None) -> None:
    """Serve until interrupted (Ctrl-C)."""
    server = make_server(store, host, port, allow_update=allow_update, log=sys.stderr, limits=limits, kg=kg)
    h, p = server.server_address[:2]
    print(f"liuyao-kg SPARQL endpoint at http://{h}:{p}{ENDPOINT} ({'read-write' if allow_update else 'read-only'});"
          + (f" web reader at http://{h}:{p}/ , JSON API at http://{h}:{p}/api/openapi.json;" if kg is not None else "")
          + " Ctrl-C to stop", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
