"""Any SPARQL 1.1 endpoint as the store: queries through SPARQLWrapper, writes through SPARQL Update.

`RemoteKnowledgeGraph` implements the `CastStore` interface as `KnowledgeGraph` does (`has_cast`, `write_cast`,
`cast_graph`, `select`, `close`), so either can stand behind the chart, the explainer, the loader and the CLI.
What differs, and why:

- Derivation runs locally (liuyao_kg.load, with the package's rule base and reference data: this store holds
  the package's layers). Only the results travel: the asserted and the inferred
  quads of each cast go to the endpoint in ONE update request, `INSERT DATA` into both named graphs
  (`<cast>` and `<cast>/inferred`), so a cast is in completely or not at all. A cast already present
  (its asserted graph is not empty) is skipped, so loading it again is a no-op.
- The fixed layers (ontology, reference, rules, passages) are written when absent, in chunks; a layer
  whose triple count differs from this version's (an interrupted load, another version) is cleared
  and written again. Blank nodes are written with `INSERT { … } WHERE {}`, one request per layer, so a
  blank node and all its triples arrive together (some stores, Virtuoso among them, refuse blank nodes in
  `INSERT DATA`).
- Parameters are bound as data, never as text: each value is a pyoxigraph term serialised in N-Triples
  syntax (`str(term)`: quotes, backslashes and line breaks escaped; IRIs validated by pyoxigraph) and
  placed in a `VALUES` block (SPARQL 1.1 §10.2) at the start of the query's WHERE group. The block is
  joined with every top-level pattern, so a parameter used in a top-level FILTER (`FILTER(STR(?l) = ?gz)`)
  sees its value, which a VALUES clause after the query (joined only after the WHERE clause is evaluated)
  would not. Named queries therefore use their parameters in top-level patterns and filters only.
- Dataset: a query bound to one cast reads that cast's two graphs plus the fixed layers (FROM clauses),
  as the embedded store does with its `default_graph`; other queries read the endpoint's default graph,
  which for Virtuoso, Fuseki (`tdb:unionDefaultGraph true`) and GraphDB is the union of all graphs.
- Credentials (LIUYAO_ENDPOINT_USER / LIUYAO_ENDPOINT_PASSWORD, or user:password@ in the URL) are sent
  by HTTP Basic or Digest auth (LIUYAO_ENDPOINT_AUTH) and are never part of an error message: every
  failure is re-raised as `RemoteStoreError` with the endpoint's URL stripped of user info and any
  occurrence of the secret masked.
"""
from __future__ import annotations

import base64
import json
import math
import os
import re
import threading
import time
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pyoxigraph as ox

from liuyao_kg import namespaces as ns
from liuyao_kg.store import versioning
from liuyao_kg.ontology import LAYERS, layer_quads, package_versions
from liuyao_kg.store.embedded import _py
from liuyao_kg.namespaces import inferred_graph
from liuyao_kg.sparql.text import LEX as _LEX
from liuyao_kg.sparql.text import VAR as _VAR
from liuyao_kg.sparql.text import where_group as _where_group

ENV_USER = "LIUYAO_ENDPOINT_USER"
ENV_PASSWORD = "LIUYAO_ENDPOINT_PASSWORD"
ENV_AUTH = "LIUYAO_ENDPOINT_AUTH"
ENV_UPDATE = "LIUYAO_UPDATE_ENDPOINT"
ENV_DIALECT = "LIUYAO_ENDPOINT_DIALECT"
ENV_TIMEOUT = "LIUYAO_ENDPOINT_TIMEOUT"
ENV_TOTAL_TIMEOUT = "LIUYAO_ENDPOINT_TOTAL_TIMEOUT"

#: triples per INSERT DATA request when writing the fixed layers
LAYER_CHUNK = 5000
#: triples per GRAPH block inside one INSERT DATA: a parser that recurses per triple (Virtuoso's runs out of
#: stack near 5,000 triples in one block) is given several blocks of the same graph instead
BLOCK = 1000
#: longest server message kept in an error (servers echo the whole request)
MAX_MESSAGE = 600


#: an update that is constant data: INSERT DATA, alone or after dropping the graph it replaces (corpus add)
_CONSTANT_DATA = re.compile(r"(DROP SILENT GRAPH <[^<>\s]*>\s*;\s*)?INSERT DATA\b")


class RemoteStoreError(RuntimeError):
    """A request to the SPARQL endpoint failed (the message never contains credentials)."""


@dataclass(frozen=True, repr=False)
class Endpoint:
    """Where to query and update, and as whom. `repr` and `str` never show the password."""

    query_url: str
    update_url: str
    user: str | None = None
    password: str | None = None
    auth: str = "basic"  # or "digest" (Virtuoso's /sparql-auth)
    #: seconds for connecting and for each read from the socket (LIUYAO_ENDPOINT_TIMEOUT, `--timeout`): a
    #: server silent this long (it may still be computing a heavy query) is given up on, not retried
    timeout: float | None = 120.0
    dialect: str = "auto"  # "virtuoso", "standard", or "auto": by the server's Server header
    #: seconds one request may take in all (LIUYAO_ENDPOINT_TOTAL_TIMEOUT, `--total-timeout`): connecting, sending,
    #: the server's wait, the answer's head and body, and a read's retries with their pauses. A server that drips
    #: its head or its answer, each read within `timeout`, is cut off here
    total_timeout: float = 600.0
    #: extra attempts for an idempotent read (query, ASK) after a refused or reset connection, a 5xx or a 429
    retries: int = 3
    backoff: float = 0.5  # seconds before the first retry, doubled for each next one

    def with_timeout(self, timeout: float) -> "Endpoint":
        """This endpoint with another connect/read timeout (seconds; must be positive)."""
        import dataclasses

        if not timeout or timeout <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        return dataclasses.replace(self, timeout=float(timeout))

    def with_total_timeout(self, total_timeout: float) -> "Endpoint":
        """This endpoint with another total timeout for one request (seconds; must be positive and finite)."""
        import dataclasses

        if not total_timeout or not total_timeout > 0 or not math.isfinite(total_timeout):
            raise ValueError(f"total timeout must be a positive number of seconds, got {total_timeout!r}")
        return dataclasses.replace(self, total_timeout=float(total_timeout))

    @classmethod
    def from_env(cls, url: str, update_url: str | None = None, env: Mapping[str, str] | None = None) -> "Endpoint":
        """An endpoint from a URL (user info in it is taken as credentials) and the LIUYAO_* variables."""
        env = os.environ if env is None else env
        query_url, url_user, url_password = _split_userinfo(url)
        update = update_url or env.get(ENV_UPDATE) or url
        update_url_clean, up_user, up_password = _split_userinfo(update)
        user = env.get(ENV_USER) or url_user or up_user
        password = env.get(ENV_PASSWORD) or url_password or up_password
        auth = (env.get(ENV_AUTH) or "basic").lower()
        if auth not in ("basic", "digest"):
            raise RemoteStoreError(f"{ENV_AUTH} must be basic or digest, got {auth!r}")
        dialect = (env.get(ENV_DIALECT) or "auto").lower()
        if dialect not in ("auto", "virtuoso", "standard"):
            raise RemoteStoreError(f"{ENV_DIALECT} must be auto, virtuoso or standard, got {dialect!r}")
        endpoint = cls(query_url, update_url_clean, user or None, password or None, auth, dialect=dialect)
        if env.get(ENV_TIMEOUT):
            try:
                endpoint = endpoint.with_timeout(float(env[ENV_TIMEOUT]))
            except ValueError:
                raise RemoteStoreError(f"{ENV_TIMEOUT} must be a positive number of seconds, got {env[ENV_TIMEOUT]!r}") from None
        if env.get(ENV_TOTAL_TIMEOUT):
            try:
                endpoint = endpoint.with_total_timeout(float(env[ENV_TOTAL_TIMEOUT]))
            except ValueError:
                raise RemoteStoreError(f"{ENV_TOTAL_TIMEOUT} must be a positive number of seconds, "
                                       f"got {env[ENV_TOTAL_TIMEOUT][:40]!r}") from None
        return endpoint

    def __repr__(self) -> str:
        return f"Endpoint({self.query_url!r}, update={self.update_url!r}, auth={self.auth!r})"

    __str__ = __repr__

    def redact(self, text: str) -> str:
        """`text` with every form of the credentials masked and URL user info removed."""
        text = re.sub(r"(\b[a-z][a-z0-9+.-]*://)[^/\s@]+@", r"\1", text, flags=re.I)
        secrets = []
        if self.password:
            secrets += [self.password, urllib.parse.quote(self.password, safe=""),
                        urllib.parse.quote_plus(self.password)]
            if self.user:
                pair = f"{self.user}:{self.password}"
                secrets += [pair, base64.b64encode(pair.encode()).decode()]
        for s in sorted(set(secrets), key=len, reverse=True):
            text = text.replace(s, "***")
        return text


def _split_userinfo(url: str) -> tuple[str, str | None, str | None]:
    parts = urllib.parse.urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, None, None
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    clean = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    unq = urllib.parse.unquote
    return clean, unq(parts.username) if parts.username else None, unq(parts.password) if parts.password else None


class SparqlClient:
    """SELECT, ASK and UPDATE over the SPARQL 1.1 Protocol with SPARQLWrapper; errors redacted."""

    def __init__(self, endpoint: Endpoint):
        self.endpoint = endpoint
        self.server: str | None = None  # the Server header of the first response

    def _open(self, text: str, return_format: str | None, deadline: "_Deadline"):
        """Send `text` as SPARQLWrapper words it (a POST, the format's Accept, the credentials) and return the
        response once its head has arrived; its HTTP errors raised as SPARQLWrapper's ``query()`` raises them.

        Every connection it opens is watched by `deadline`, which ends it when the total timeout is up."""
        import urllib.error
        import urllib.request

        from SPARQLWrapper import JSON, POST, SPARQLWrapper
        from SPARQLWrapper.SPARQLExceptions import (EndPointInternalError, EndPointNotFound, QueryBadFormed,
                                                    Unauthorized, URITooLong)

        e = self.endpoint
        w = SPARQLWrapper(e.query_url, updateEndpoint=e.update_url)
        w.setMethod(POST)
        w.setReturnFormat(return_format or JSON)
        w.setQuery(text)
        digest = None
        if e.user and e.password:
            if e.auth == "digest":  # a handler of this request's opener (SPARQLWrapper's installs one globally)
                digest = urllib.request.HTTPPasswordMgr()  # realm "SPARQL": SPARQLWrapper's default (Virtuoso's)
                digest.add_password("SPARQL", e.update_url if w.isSparqlUpdateRequest() else e.query_url,
                                    e.user, e.password)
            else:
                w.setCredentials(e.user, e.password)
        request = w._createRequest()
        left = deadline.left()
        if left <= 0:
            raise deadline.error()
        timeout = min(max(1, int(e.timeout)), left) if e.timeout else left
        try:
            return _opener(deadline, digest).open(request, timeout=timeout)
        except urllib.error.HTTPError as exc:
            kind = {400: QueryBadFormed, 401: Unauthorized, 404: EndPointNotFound, 414: URITooLong,
                    500: EndPointInternalError}.get(exc.code)
            if kind is None:
                raise
            raise kind(exc.read()) from None

    def _fail(self, what: str, exc: BaseException) -> RemoteStoreError:
        detail = str(exc)
        body = getattr(exc, "response", None)
        if isinstance(body, bytes):
            detail += " " + body.decode("utf-8", "replace")
        detail = re.sub(r"\s+", " ", detail).strip()
        if len(detail) > MAX_MESSAGE:
            detail = detail[:MAX_MESSAGE] + " …"
        url = self.endpoint.update_url if what == "update" else self.endpoint.query_url
        return RemoteStoreError(self.endpoint.redact(f"SPARQL {what} on {url} failed: {type(exc).__name__}: {detail}"))

    @staticmethod
    def _read(response, deadline: "_Deadline") -> bytes:
        """The whole body, within the deadline (each read is bounded by the socket timeout, their sum by the
        deadline, which ends the connection: what was read by then is not taken for the whole answer)."""
        parts = []
        reader = getattr(response, "read1", None) or response.read
        try:
            while not deadline.over:
                chunk = reader(65536)
                if not chunk:
                    break
                parts.append(chunk)
        finally:
            response.close()
        if deadline.over:
            raise deadline.error()
        return b"".join(parts)

    def _fetch(self, text: str, return_format: str | None = None) -> bytes:
        """The raw answer to a query: retried with backoff on transient failures (a read is idempotent), the
        whole within `total_timeout`."""
        deadline = _Deadline(self.endpoint.total_timeout)
        try:
            attempt = 0
            while True:
                try:
                    response = self._open(text, return_format, deadline)
                    self._note_server(response)
                    return self._read(response, deadline)
                except Exception as exc:  # noqa: BLE001, F841 - every transport or server error becomes a redacted one
                    if deadline.over:  # the connection was ended by the deadline, whatever broke then
                        exc = deadline.error()
                    pause = self.endpoint.backoff * (2 ** attempt)
                    if attempt < self.endpoint.retries and _transient(exc) and pause < deadline.left():
                        time.sleep(pause)
                        attempt += 1
                        continue
                    error = self._fail("query", exc)
                raise error  # outside the handler: the original exception is not even kept as its context
        finally:
            deadline.close()

    def _json(self, text: str) -> dict:
        data = self._fetch(text)
        try:
            return json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            pass
        raise self._malformed(f"the answer is not SPARQL JSON ({_excerpt(data)})")

    def _malformed(self, why: str) -> RemoteStoreError:
        return RemoteStoreError(self.endpoint.redact(f"SPARQL query on {self.endpoint.query_url}: malformed "
                                                     f"results: {why}"))

    def _note_server(self, response) -> None:
        if self.server is None:
            try:
                self.server = response.headers.get("Server") or ""
            except AttributeError:
                self.server = ""

    @property
    def virtuoso(self) -> bool:
        """The endpoint is OpenLink Virtuoso (by its Server header, or LIUYAO_ENDPOINT_DIALECT)."""
        if self.endpoint.dialect != "auto":
            return self.endpoint.dialect == "virtuoso"
        if self.server is None:
            self.ask("ASK {}")
        return "virtuoso" in (self.server or "").lower()

    def select(self, text: str) -> tuple[list[str], list[dict[str, object]]]:
        """(variables, rows of pyoxigraph terms) for a SELECT; RemoteStoreError if the results are malformed."""
        data = self._json(text)
        results = data.get("results") if isinstance(data, dict) else None
        bindings = results.get("bindings") if isinstance(results, dict) else None
        if not isinstance(bindings, list):
            raise self._malformed("no results.bindings list (not the answer to a SELECT?)")
        head = data.get("head")
        names = head.get("vars", []) if isinstance(head, dict) else []
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise self._malformed("head.vars is not a list of names")
        rows = []
        for i, b in enumerate(bindings):
            if not isinstance(b, dict):
                raise self._malformed(f"row {i + 1} is not an object")
            try:
                rows.append({k: _term(v) for k, v in b.items()})
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise self._malformed(f"row {i + 1}: a term is malformed ({_excerpt(str(exc).encode())})") from None
        return names, rows

    def ask(self, text: str) -> bool:
        data = self._json(text)
        if not isinstance(data, dict) or not isinstance(data.get("boolean"), (bool, int)):
            raise self._malformed("no boolean in the answer to an ASK")
        return bool(data["boolean"])

    def raw(self, text: str, form: str) -> bytes:
        """The answer to any query as sent by the server: SPARQL JSON for SELECT/ASK, Turtle for graphs."""
        from SPARQLWrapper import JSON, TURTLE

        return self._fetch(text, JSON if form in ("SELECT", "ASK") else TURTLE)

    def update(self, text: str) -> None:
        """One update request (never retried: an update that may have run must not run twice)."""
        if self.virtuoso and _CONSTANT_DATA.match(text):
            # Virtuoso compiles INSERT DATA to SQL, one statement group per triple, and refuses past 10,000
            # lines of SQL (~1,500 triples); this pragma passes the constant data as one vector instead.
            text = "DEFINE sql:big-data-const 1\n" + text
        deadline = _Deadline(self.endpoint.total_timeout)
        try:
            try:
                self._open(text, None, deadline).close()
                if deadline.over:
                    raise deadline.error()
                return
            except Exception as exc:  # noqa: BLE001
                error = self._fail("update", deadline.error() if deadline.over else exc)
            raise error
        finally:
            deadline.close()


class AnswerTooSlow(Exception):
    """The request took longer in all than the total timeout allows (never retried)."""


class _Deadline:
    """One request's total timeout. When it is up, every connection the request opened is shut down, which
    ends at once a read or a write blocked on it: a socket timeout bounds each read, so a server that drips
    its head or its answer a byte at a time is bounded only by this."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self.expired = False
        self._lock = threading.Lock()
        self._sockets: list = []
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def left(self) -> float:
        return self.at - time.monotonic()

    @property
    def over(self) -> bool:
        return self.expired or self.left() <= 0

    def error(self) -> AnswerTooSlow:
        return AnswerTooSlow(f"the answer took longer than {self.seconds:g} s in all (the total timeout: "
                             f"--total-timeout or {ENV_TOTAL_TIMEOUT})")

    def watch(self, sock) -> None:
        """End `sock`'s connection when the time is up; a duplicate is kept, as TLS takes over the original."""
        dup = sock.dup()
        with self._lock:
            self._sockets.append(dup)
            expired = self.expired
        if expired:
            _shut(dup)

    def connection(self, connection_class):
        """An http.client connection class whose sockets this deadline watches (for urllib's do_open)."""

        def make(host, **kwargs):
            conn = connection_class(host, **kwargs)
            create = conn._create_connection  # socket.create_connection, kept per connection by http.client

            def created(*args, **kw):
                sock = create(*args, **kw)
                self.watch(sock)
                return sock

            conn._create_connection = created
            return conn

        return make

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)

    def close(self) -> None:
        self._timer.cancel()
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            sock.close()


def _shut(sock) -> None:
    import socket

    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:  # already closed by the peer or by the request
        pass


def _opener(deadline: _Deadline, digest=None):
    """A urllib opener (the default handlers, Digest auth if given) whose connections `deadline` watches,
    redirected or through a proxy as well."""
    import urllib.request

    http, https = _watched_handlers()
    handlers = [http(deadline), https(deadline)]
    if digest is not None:
        handlers.append(urllib.request.HTTPDigestAuthHandler(digest))
    return urllib.request.build_opener(*handlers)


@cache
def _watched_handlers():
    import urllib.request

    class Watched:
        def __init__(self, deadline: _Deadline):
            super().__init__()
            self.deadline = deadline

        def do_open(self, http_class, req, **kwargs):
            return super().do_open(self.deadline.connection(http_class), req, **kwargs)

    class HTTP(Watched, urllib.request.HTTPHandler):
        pass

    class HTTPS(Watched, urllib.request.HTTPSHandler):
        pass

    return HTTP, HTTPS


def _transient(exc: BaseException) -> bool:
    """A failure worth retrying a read for: a refused, reset or dropped connection, a 5xx or 429 answer.

    Not a timeout: a server that is silent for the whole timeout is busy or gone, and asking it again
    would only add load."""
    import http.client
    import socket
    import urllib.error

    from SPARQLWrapper.SPARQLExceptions import EndPointInternalError

    if isinstance(exc, urllib.error.HTTPError):
        return exc.code >= 500 or exc.code == 429
    if isinstance(exc, EndPointInternalError):
        return True
    if isinstance(exc, urllib.error.URLError):
        return not isinstance(exc.reason, (TimeoutError, socket.timeout))
    return isinstance(exc, (ConnectionError, http.client.HTTPException))


def _excerpt(data: bytes, limit: int = 80) -> str:
    text = data[:limit * 4].decode("utf-8", "replace")
    text = " ".join(text.split())
    return repr(text[:limit] + ("…" if len(text) > limit or len(data) > limit * 4 else ""))


_XSD_BOOLEAN = ns.XSD + "boolean"


def _term(b: dict):
    """A pyoxigraph term from a SPARQL 1.1 JSON result binding (also Virtuoso's "typed-literal")."""
    kind, value = b["type"], b["value"]
    if not isinstance(kind, str) or not isinstance(value, str):
        raise ValueError(f"a term's type and value must be strings, got {type(kind).__name__}, {type(value).__name__}")
    if kind == "uri":
        return ox.NamedNode(value)
    if kind == "bnode":
        return ox.BlankNode(re.sub(r"[^A-Za-z0-9_]", "_", value) or "b")
    if "xml:lang" in b:
        return ox.Literal(value, language=b["xml:lang"])
    if "datatype" in b:
        if b["datatype"] == _XSD_BOOLEAN and value in ("1", "0"):
            value = "true" if value == "1" else "false"  # Virtuoso writes booleans as 1/0: the canonical form
        return ox.Literal(value, datatype=ox.NamedNode(b["datatype"]))
    return ox.Literal(value)


# --- query preparation -------------------------------------------------------------------------------------


def prepare(text: str, bindings: Mapping[str, ox.NamedNode | ox.Literal] | None = None,
            default_graphs: Iterable[str] | None = None) -> str:
    """The query with a dataset (FROM per graph) and its parameters as a VALUES block of RDF terms.

    Values are pyoxigraph terms written in N-Triples syntax, never pasted text: a literal's quotes and
    backslashes are escaped and an IRI is validated by pyoxigraph, so no value can become query syntax.
    """
    from_at, inside, has_from = _where_group(text)
    values = ""
    if bindings:
        names, terms = [], []
        for name, term in bindings.items():
            if not _VAR.match(name):
                raise ValueError(f"not a variable name: {name!r}")
            if not isinstance(term, (ox.NamedNode, ox.Literal)):
                raise TypeError(f"parameter {name} must be an IRI or a literal, got {type(term).__name__}")
            names.append(f"?{name}")
            terms.append(str(term))
        values = f"\n  VALUES ({' '.join(names)}) {{ ({' '.join(terms)}) }}\n"
    dataset = ""
    if default_graphs is not None and not has_from:
        dataset = "".join(f"FROM {ox.NamedNode(g)}\n" for g in default_graphs)
    return text[:from_at] + dataset + text[from_at:inside] + values + text[inside:]


def declares_dataset(text: str) -> bool:
    """The query has its own FROM / FROM NAMED clauses (outside any group), which then define its dataset."""
    depth = 0
    for m in _LEX.finditer(text):
        kind, value = m.lastgroup, m.group()
        if kind == "brace":
            depth += 1
        elif kind == "other" and value == "}":
            depth -= 1
        elif kind == "word" and depth == 0 and value.upper() == "FROM" and text[m.start() - 1:m.start()] != ":":
            return True
    return False


def query_form(text: str) -> str:
    """SELECT, ASK, CONSTRUCT or DESCRIBE: the query's form, read by the lexer (comments and strings skipped)."""
    for m in _LEX.finditer(text):
        if m.lastgroup == "word" and m.group().upper() in ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE"):
            return m.group().upper()
    raise SyntaxError("not a SPARQL query: no SELECT, ASK, CONSTRUCT or DESCRIBE")


def with_dataset(text: str, default_graphs: Iterable[str], named_graphs: Iterable[str]) -> str:
    """The query with FROM / FROM NAMED clauses (validated IRIs) before its WHERE clause.

    A query with FROM clauses of its own *and* dataset parameters is refused (ValueError → 400 at the
    endpoint) rather than having its own clauses silently dropped."""
    if declares_dataset(text):
        raise ValueError("the query has FROM clauses and the request default-graph-uri / named-graph-uri: give one")
    clauses = "".join(f"FROM {ox.NamedNode(g)}\n" for g in default_graphs)
    clauses += "".join(f"FROM NAMED {ox.NamedNode(g)}\n" for g in named_graphs)
    depth, at = 0, None
    for m in _LEX.finditer(text):
        kind, value = m.lastgroup, m.group()
        if kind == "brace":
            depth += 1
        elif kind == "other" and value == "}":
            depth -= 1
        elif kind == "word" and depth == 0 and value.upper() == "WHERE" and text[m.start() - 1:m.start()] != ":":
            at = m.start()
            break
    if at is None:
        if query_form(text) not in ("SELECT", "ASK"):
            raise ValueError("with default-graph-uri / named-graph-uri, write the query's WHERE keyword")
        at = _where_group(text)[0]
    return text[:at] + clauses + text[at:]


# --- writing -----------------------------------------------------------------------------------------------

def _has_bnode(q: ox.Quad) -> bool:
    return isinstance(q.subject, ox.BlankNode) or isinstance(q.object, ox.BlankNode)


def _graph_block(graph: str, quads: Iterable[ox.Quad]) -> str:
    body = "\n".join(f"{q.subject} {q.predicate} {q.object} ." for q in quads)
    return f"GRAPH {ox.NamedNode(graph)} {{\n{body}\n}}"


def insert_data(graphs: Mapping[str, list[ox.Quad]]) -> str:
    """One INSERT DATA request writing every graph given (no blank nodes), in blocks of at most BLOCK triples."""
    blocks = [_graph_block(g, qs[i:i + BLOCK]) for g, qs in graphs.items() for i in range(0, len(qs), BLOCK)]
    return "INSERT DATA {\n" + "\n".join(blocks) + "\n}"


class RemoteKnowledgeGraph:
    """The knowledge graph on a SPARQL 1.1 endpoint: same public API as `KnowledgeGraph`."""

    #: what this store can do (`CastStore.capabilities`): its layers are written as the package's on open
    capabilities = frozenset({"remote", "packaged"})

    def __init__(self, endpoint: Endpoint | str, *, client: SparqlClient | None = None):
        self.endpoint = Endpoint.from_env(endpoint) if isinstance(endpoint, str) else endpoint
        self.location = self.endpoint.query_url  # user info already stripped
        self.client = client or SparqlClient(self.endpoint)
        self.layers_written = self._ensure_layers(layer_quads())
        self._layer_graphs = [g for g, _ in LAYERS]
        self.outdated: dict = {}  # a layer that differs is rewritten on open (above), never left outdated

    def close(self) -> None:
        """Nothing is held open between requests."""

    def __enter__(self) -> "RemoteKnowledgeGraph":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"RemoteKnowledgeGraph({self.endpoint!r})"

    # layers

    def graph_sizes(self, graphs: Iterable[str]) -> dict[str, int]:
        """Triples per named graph, one request per graph (a constant graph is what stores index best)."""
        out = {}
        for g in graphs:
            _, rows = self.client.select(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH {ox.NamedNode(g)} {{ ?s ?p ?o }} }}")
            try:
                out[g] = int(rows[0]["n"].value) if rows else 0
            except (KeyError, ValueError):
                raise self.client._malformed(f"the triple count of {g} is not an integer") from None
        return out

    def _ensure_layers(self, layers: dict[str, list[ox.Quad]]) -> list[str]:
        sizes = self.graph_sizes(layers)
        recorded = self.layer_versions()
        versions = package_versions()
        written = []
        for graph, quads in layers.items():
            expected = len(set(ox.Triple(q.subject, q.predicate, q.object) for q in quads))
            have = sizes.get(graph, 0)
            if have == expected and recorded.get(graph) in (None, versions[graph]):
                continue
            if have:
                self.client.update(f"CLEAR SILENT GRAPH {ox.NamedNode(graph)}")
            self._write_layer(graph, quads)
            written.append(graph)
        for graph in layers:  # last: a version is recorded only for a layer that is complete
            if recorded.get(graph) != versions[graph] or graph in written:
                self._record_version(graph)
        return written

    def _record_version(self, graph: str) -> None:
        """The layer's metadata in <…/graph/meta> (as versioning.record does on the embedded store): one request."""
        old = ox.NamedNode(graph)
        meta = ox.NamedNode(versioning.GRAPH_META)
        triples = "\n".join(f"{q.subject} {q.predicate} {q.object} ." for q in versioning.meta_quads(graph))
        self.client.update(f"DELETE WHERE {{ GRAPH {meta} {{ {old} ?p ?o }} }} ;\n"
                           f"INSERT DATA {{ GRAPH {meta} {{\n{triples}\n}} }}")

    def layer_versions(self) -> dict[str, str]:
        """{layer graph: recorded version} from the endpoint's metadata graph."""
        _, rows = self.client.select(f"SELECT ?g ?v WHERE {{ GRAPH {ox.NamedNode(versioning.GRAPH_META)} "
                                     f"{{ ?g <{ns.DCTERMS}hasVersion> ?v }} }}")
        return {r["g"].value: r["v"].value for r in rows if "g" in r and "v" in r}

    def pending(self) -> set[str]:
        """Always empty: each cast is one update request, atomic on the server, so nothing is journaled."""
        return set()

    def sparql(self, text: str, *, default_graph: list[str] | None = None, named_graphs: list[str] | None = None):
        """A raw query forwarded to the endpoint (`serve --endpoint`), answered as pyoxigraph results."""
        form = query_form(text)
        if default_graph or named_graphs:
            text = with_dataset(text, default_graph or [], named_graphs or [])
        data = self.client.raw(text, form)
        try:
            if form in ("SELECT", "ASK"):
                return ox.parse_query_results(data, format=ox.QueryResultsFormat.JSON)
            return [q.triple for q in ox.parse(data, format=ox.RdfFormat.TURTLE)]
        except (SyntaxError, ValueError) as exc:
            raise self.client._malformed(f"{type(exc).__name__}: {str(exc)[:200]}") from None

    def update(self, text: str) -> None:
        self.client.update(text)

    def _write_layer(self, graph: str, quads: list[ox.Quad]) -> None:
        plain = [q for q in quads if not _has_bnode(q)]
        blank = [q for q in quads if _has_bnode(q)]
        for i in range(0, len(plain), LAYER_CHUNK):
            self.client.update(insert_data({graph: plain[i:i + LAYER_CHUNK]}))
        if blank:  # one request, so each blank node is one node with all its triples
            self.client.update("INSERT {\n" + _graph_block(graph, blank) + "\n} WHERE {}")

    # casts

    def present(self, cast_iris: Iterable[str]) -> set[str]:
        """The casts of `cast_iris` whose asserted graph is in the store (an ASK each: a constant graph is fast)."""
        return {iri for iri in dict.fromkeys(cast_iris) if self.has_cast(iri)}

    def has_cast(self, cast_iri: str) -> bool:
        return self.client.ask(f"ASK {{ GRAPH {ox.NamedNode(cast_iri)} {{ ?s ?p ?o }} }}")

    def layer_store(self) -> ox.Store:
        """The layers in a scratch pyoxigraph store (this store holds the package's: an engine never needs them)."""
        store = ox.Store()
        store.extend(q for quads in layer_quads().values() for q in quads)
        return store

    def write_cast(self, asserted: list[ox.Quad], inferred: list[ox.Quad]) -> None:
        """Store derived casts (their asserted and inferred quads): each cast in one update request, its asserted
        and inferred graphs together (atomic on the server)."""
        graphs: dict[str, dict[str, list[ox.Quad]]] = {}
        for q in [*asserted, *inferred]:
            graph = q.graph_name.value
            graphs.setdefault(graph.removesuffix("/inferred"), {}).setdefault(graph, []).append(q)
        for iri, quads in graphs.items():
            if any(_has_bnode(q) for qs in quads.values() for q in qs):
                raise ValueError(f"cast {iri} has blank nodes; casts are written with INSERT DATA")
        for quads in graphs.values():
            self.client.update(insert_data(quads))

    def write_derived(self, nquads: bytes | Path, casts: list[str] | None = None) -> None:
        """Store casts derived elsewhere (asserted and inferred quads as N-Quads: bytes, or the path of a file): one
        update per cast.

        Each update is atomic on the server, so `casts` (which the embedded store journals) is not needed."""
        by_cast: dict[str, dict[str, list[ox.Quad]]] = {}
        source = {"path": nquads} if isinstance(nquads, Path) else {"input": nquads}
        for q in ox.parse(**source, format=ox.RdfFormat.N_QUADS):
            graph = q.graph_name.value
            cast = graph[: -len("/inferred")] if graph.endswith("/inferred") else graph
            by_cast.setdefault(cast, {}).setdefault(graph, []).append(q)
        for graphs in by_cast.values():
            self.client.update(insert_data(graphs))

    def cast_graph(self, cast_iri: str, inferred: bool = True) -> list[ox.Quad]:
        """The quads of one cast: asserted, and inferred when asked."""
        graphs = [cast_iri] + ([inferred_graph(cast_iri)] if inferred else [])
        out = []
        for g in graphs:
            _, rows = self.client.select(f"SELECT ?s ?p ?o WHERE {{ GRAPH {ox.NamedNode(g)} {{ ?s ?p ?o }} }}")
            gn = ox.NamedNode(g)
            out += [ox.Quad(r["s"], r["p"], r["o"], gn) for r in rows]
        return out

    def select_terms(self, text: str, bindings: Mapping[str, ox.NamedNode | ox.Literal] | None = None
                     ) -> tuple[list[str], list[dict]]:
        """Like `select`, with the rows as pyoxigraph terms (unbound variables absent)."""
        cast = (bindings or {}).get("cast")
        graphs = None
        if isinstance(cast, ox.NamedNode):
            # as on the embedded store: the cast's two graphs and the fixed layers, nothing else
            graphs = [cast.value, inferred_graph(cast.value)] + self._layer_graphs
        return self.client.select(prepare(text, bindings, graphs))

    def select(self, text: str, bindings: Mapping[str, ox.NamedNode | ox.Literal] | None = None) -> list[dict]:
        """Run a SELECT; return rows as {var: python value}, as `KnowledgeGraph.select` does."""
        names, rows = self.select_terms(text, bindings)
        return [{n: _py(row.get(n)) for n in names} for row in rows]


__all__ = ["Endpoint", "RemoteKnowledgeGraph", "RemoteStoreError", "SparqlClient", "prepare", "insert_data"]
