"""One store interface, three adapters, one factory.

:class:`CastStore` is what the chart, the explainer, the batch loader, ``upgrade`` and ``serve`` need from a
store (in the spirit of rdflib's Store plugins and oaklib's adapters): named-query reads, raw SPARQL for the
endpoint, an atomic write of a batch of *already derived* casts, the fixed layers' recorded versions and the
write journal. Adapters:

* ``KnowledgeGraph()`` — embedded pyoxigraph, in memory (``open_store("memory")``);
* ``KnowledgeGraph(path)`` — embedded pyoxigraph on disk, RocksDB (``open_store("./kg")``);
* ``RemoteKnowledgeGraph(endpoint)`` — any SPARQL 1.1 endpoint (``open_store("http://…/sparql")``).

A store only stores: it never derives (liuyao_kg.load derives casts and writes them), and instead of being probed
for its type it says what it can do (`capabilities`). The compliance suite (tests/store/test_store_compliance.py) runs one set of tests against every adapter.
"""
from __future__ import annotations

import errno
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Protocol, runtime_checkable

import pyoxigraph as ox



class StoreError(RuntimeError):
    """A store cannot be opened or written; the message names the store and what to do."""


class StoreBusyError(StoreError):
    """Another process holds the on-disk store (a running `liuyao serve`, `load` or `upgrade`)."""


class StoreAccessError(StoreError):
    """The store's directory cannot be written (read-only file system, permissions) or read."""


class StoreFullError(StoreError):
    """The disk holding the store is full; nothing half-written was kept."""


@runtime_checkable
class CastStore(Protocol):
    """The store interface every adapter implements (see the module docstring)."""

    #: "memory", a directory, or the endpoint URL (never with credentials)
    location: str
    #: what the store can do, of: "local" (an embedded pyoxigraph store, in this process), "memory" or "disk",
    #: "remote" (a SPARQL endpoint), "bulk" (RocksDB's bulk loader for large loads), "journal" (its bulk loads are
    #: journaled), "read_only" (writes are refused), "packaged" (it holds the package's layers untouched: casts
    #: written into it may be derived by the package's own engine)
    capabilities: frozenset
    #: {layer graph: (recorded version or None, package version)} for layers written by another rule base
    outdated: dict

    # -- reads ---------------------------------------------------------------------------------------
    def select(self, text: str, bindings: Mapping[str, ox.NamedNode | ox.Literal] | None = None) -> list[dict]:
        """A SELECT with parameters bound as RDF terms (never pasted text); rows of Python values."""

    def sparql(self, text: str, *, default_graph: list[str] | None = None, named_graphs: list[str] | None = None):
        """A raw query (what `serve` forwards): pyoxigraph QuerySolutions, QueryBoolean or QueryTriples.
        Without a dataset the default graph is the union of all graphs."""

    def has_cast(self, cast_iri: str) -> bool: ...

    def present(self, cast_iris: Iterable[str]) -> set[str]:
        """The casts of `cast_iris` already in the store."""

    def cast_graph(self, cast_iri: str, inferred: bool = True) -> list[ox.Quad]: ...

    # -- writes --------------------------------------------------------------------------------------
    def write_derived(self, nquads: bytes | Path, casts: list[str] | None = None) -> None:
        """Write derived casts (their asserted and inferred graphs as N-Quads: bytes, or a file's path): each cast completely or
        not at all, even if the process is killed (the journal, or one request per cast)."""

    def write_cast(self, asserted: list[ox.Quad], inferred: list[ox.Quad]) -> None:
        """Write derived casts given as their asserted and inferred quads: each cast completely or not at all."""

    def update(self, text: str) -> None:
        """A raw SPARQL update, written as given (no derivation): `serve --allow-update`."""

    # -- layers, versions, journal -------------------------------------------------------------------
    def layer_store(self) -> ox.Store:
        """The store's layers in a pyoxigraph store, to be read (the rules an engine for this store derives with)."""

    def layer_versions(self) -> dict[str, str]:
        """{layer graph: version recorded in the store}."""

    def pending(self) -> set[str]:
        """Casts the journal records as being written (non-empty only after a crash, before recovery)."""

    def close(self) -> None: ...


def is_url(where: str) -> bool:
    return isinstance(where, str) and where.lower().startswith(("http://", "https://"))


def open_store(where: str | Path | None = "memory", *, update_url: str | None = None, read_only: bool = False, wait: float = 0.0,
               timeout: float | None = None, total_timeout: float | None = None, progress: bool | str = False) -> CastStore:
    """The store at `where`: "memory" (or None), a directory, or an http(s) SPARQL endpoint URL.

    `read_only` opens an on-disk store without taking its lock (reads only; for a read-only directory
    or beside a running writer). `wait`: seconds to wait for another process to release an on-disk
    store before giving up with :class:`StoreBusyError`. `timeout`: a remote endpoint's connect/read
    timeout in seconds; `total_timeout`: the most one request to it may take in all, in seconds. `progress`: a
    line on stderr while a new on-disk store is created.
    """
    from liuyao_kg.store.embedded import KnowledgeGraph

    if where is None or where == "memory":
        return KnowledgeGraph()
    if is_url(str(where)):
        from liuyao_kg.store.remote import Endpoint, RemoteKnowledgeGraph

        endpoint = Endpoint.from_env(str(where), update_url)
        if timeout is not None:
            endpoint = endpoint.with_timeout(timeout)
        if total_timeout is not None:
            endpoint = endpoint.with_total_timeout(total_timeout)
        return RemoteKnowledgeGraph(endpoint)
    path = Path(where)
    deadline = time.monotonic() + max(0.0, wait)
    while True:
        try:
            return KnowledgeGraph(path, read_only=read_only, progress=progress)
        except StoreBusyError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.2)


def is_disk_full(exc: BaseException) -> bool:
    """True for the error a write to a full disk raises (RocksDB reports it as an OSError or in its message)."""
    return getattr(exc, "errno", None) == errno.ENOSPC or "no space left" in str(exc).lower()


def store_error(path, exc: OSError, doing: str = "open") -> StoreError:
    """A clear StoreError for an OSError raised by RocksDB or the file system (no traceback, no LOCK jargon)."""
    text = str(exc)
    low = text.lower()
    if "lock" in low and ("hold" in low or "no locks" in low or "resource temporarily" in low
                          or "unavailable" in low):
        return StoreBusyError(f"store {path} is in use by another process (a running `liuyao serve`, `load` or "
                              f"`upgrade`?): stop it, or wait for it (`--wait SECONDS`); `liuyao query` can read "
                              f"it meanwhile with --read-only")
    if is_disk_full(exc):
        return StoreFullError(f"store {path}: the disk is full while trying to {doing}; nothing half-written was "
                              f"kept — free some space and run the command again")
    if (getattr(exc, "errno", None) in (errno.EROFS, errno.EACCES, errno.EPERM) or "read-only file system" in low
            or "permission denied" in low):
        return StoreAccessError(f"store {path}: cannot {doing} it for writing ({_short(text)}); "
                                f"to read it, use --read-only")
    return StoreError(f"store {path}: cannot {doing} it: {_short(text)}")


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + " …"


__all__ = ["CastStore", "open_store", "StoreError", "StoreBusyError", "StoreAccessError", "StoreFullError",
           "is_disk_full", "is_url", "store_error"]
