"""`liuyao serve` in this process, for the tests that read it over HTTP (the API, the reader, a generated client)."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from liuyao_kg.serve.endpoint import make_server
from liuyao_kg.store.embedded import KnowledgeGraph


@contextmanager
def serving(kg: KnowledgeGraph | None = None) -> Iterator[str]:
    """The endpoint, the JSON API and the web reader over `kg` (default: a new store in memory) on a free loopback
    port, in a thread; yields the base URL, stops the server (and closes a store it made) after."""
    own = kg is None
    kg = KnowledgeGraph() if own else kg
    server = make_server(kg.store, "127.0.0.1", 0, kg=kg)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield "http://127.0.0.1:%d" % server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        if own:
            kg.close()
