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
"""
from __future__ import annotations

import json
import sys
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pyoxigraph as ox

ENDPOINT = "/sparql"

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


class _Handler(BaseHTTPRequestHandler):
    server_version = "liuyao-kg"
    store: ox.Store  # set on the subclass made by make_server
    allow_update: bool = False
    log = None
    api = None  # liuyao_kg.api.Api over the served knowledge graph (make_server's kg=), for /api/… and the reader

    # -- plumbing -------------------------------------------------------------------------------
    def log_message(self, fmt, *args):  # quiet unless asked
        if self.log is not None:
            self.log.write("%s - %s\n" % (self.address_string(), fmt % args))

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
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _error(self, status: int, message: str) -> None:
        self._send(status, message + "\n", "text/plain")

    def do_OPTIONS(self):  # CORS preflight
        self.send_response(HTTPStatus.NO_CONTENT)
        self._cors()
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _app(self, url, body: bytes = b"") -> bool:
        """Answer /api/… (liuyao_kg.api) and the web reader's pages (liuyao_kg.web); False if neither's."""
        if self.api is None:
            return False
        from liuyao_kg import web

        wants_page = url.path == "/" and not url.query and "text/html" in (self.headers.get("Accept") or "")
        if url.path.startswith("/api/"):
            r = self.api.handle(self.command if self.command != "HEAD" else "GET", url.path, url.query, body,
                                self.headers.get("Content-Type") or "")
        elif (url.path != "/" or wants_page) and self.command in ("GET", "HEAD"):
            r = web.answer(url.path)
        else:
            r = None
        if r is not None:
            self._send(r.status, r.body, r.media)
        return r is not None

    # -- routes ---------------------------------------------------------------------------------
    def do_GET(self):
        url = urlsplit(self.path)
        params = parse_qs(url.query, keep_blank_values=True)
        if self._app(url):
            return
        if url.path == "/health":
            return self._send(200, json.dumps({"status": "ok", "quads": len(self.store),
                                               "update": self.allow_update}), "application/json")
        if url.path not in (ENDPOINT, "/", ENDPOINT + "/"):
            return self._error(404, f"no such resource {url.path}; the endpoint is {ENDPOINT}")
        if "update" in params:
            return self._error(405 if self.allow_update else 403,
                               "updates must be POSTed" if self.allow_update else "this endpoint is read-only")
        if "query" not in params:
            host = self.headers.get("Host") or "%s:%s" % self.server.server_address[:2]
            return self._send(200, service_description(f"http://{host}{ENDPOINT}", self.allow_update), "text/turtle")
        self._query(params["query"][0], params)

    do_HEAD = do_GET

    def do_POST(self):
        url = urlsplit(self.path)
        if url.path.startswith("/api/"):
            length = int(self.headers.get("Content-Length") or 0)
            if self._app(url, self.rfile.read(length) if length else b""):
                return
            return self._error(404, f"no JSON API here (start the server with a knowledge graph); the endpoint is {ENDPOINT}")
        if url.path not in (ENDPOINT, "/", ENDPOINT + "/"):
            return self._error(404, f"no such resource {url.path}; the endpoint is {ENDPOINT}")
        params = parse_qs(url.query, keep_blank_values=True)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8") if length else ""
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype == "application/x-www-form-urlencoded":
            for k, v in parse_qs(body, keep_blank_values=True).items():
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
        return self._error(415, f"unsupported Content-Type {ctype!r}: use application/x-www-form-urlencoded, "
                                "application/sparql-query or application/sparql-update")

    # -- SPARQL ---------------------------------------------------------------------------------
    def _dataset(self, params: dict, default_key: str, named_key: str) -> dict:
        kwargs: dict = {}
        defaults = [ox.NamedNode(g) for g in params.get(default_key, []) if g]
        named = [ox.NamedNode(g) for g in params.get(named_key, []) if g]
        if defaults:
            kwargs["default_graph"] = defaults
        elif not named:
            kwargs["use_default_graph_as_union"] = True
        if named:
            kwargs["named_graphs"] = named
        return kwargs

    def _query(self, text: str, params: dict) -> None:
        short = params["format"][0] if params.get("format") else None
        accept = short or self.headers.get("Accept")
        try:
            result = self.store.query(text, **self._dataset(params, "default-graph-uri", "named-graph-uri"))
            graph = isinstance(result, ox.QueryTriples)
            if short:
                accept = (_SHORT_GRAPH.get(short) if graph else None) or _SHORT.get(short, short)
            if graph:
                media, fmt = negotiate(accept, _GRAPHS, "text/turtle")
            else:
                media, fmt = negotiate(accept, _RESULTS, "application/sparql-results+json")
            body = result.serialize(format=fmt)
        except SyntaxError as e:
            return self._error(400, f"malformed query: {e}")
        except ValueError as e:  # e.g. a bad graph IRI in default-graph-uri
            return self._error(400, str(e))
        except NotAcceptable as e:
            return self._error(406, f"cannot answer this query in any of: {e}")
        except OSError as e:
            return self._error(500, f"query failed: {e}")
        self._send(200, body, media)

    def _update(self, text: str, params: dict) -> None:
        if not self.allow_update:
            return self._error(403, "this endpoint is read-only (start it with --allow-update to accept updates)")
        try:
            if params.get("using-graph-uri") or params.get("using-named-graph-uri"):
                return self._error(400, "using-graph-uri / using-named-graph-uri are not supported")
            self.store.update(text)
        except SyntaxError as e:
            return self._error(400, f"malformed update: {e}")
        except (ValueError, OSError) as e:
            return self._error(500, f"update failed: {e}")
        self.send_response(HTTPStatus.NO_CONTENT)
        self._cors()
        self.send_header("Content-Length", "0")
        self.end_headers()


def make_server(store: ox.Store, host: str = "127.0.0.1", port: int = 7878, *, allow_update: bool = False,
                log=None, kg=None) -> ThreadingHTTPServer:
    """A ready (not yet serving) threaded HTTP server; port 0 picks a free port (see server_address).
    With `kg` (the KnowledgeGraph over `store`) it also serves the JSON API and the web reader."""
    from liuyao_kg.api import Api

    handler = type("Handler", (_Handler,), {"store": store, "allow_update": allow_update, "log": log,
                                            "api": Api(kg) if kg is not None else None})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


def serve(store: ox.Store, host: str = "127.0.0.1", port: int = 7878, *, allow_update: bool = False,
          kg=None) -> None:
    """Serve until interrupted (Ctrl-C)."""
    server = make_server(store, host, port, allow_update=allow_update, log=sys.stderr, kg=kg)
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
