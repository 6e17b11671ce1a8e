"""Shared fixtures. `virtuoso`: a private Virtuoso for the `server` tests (see tests/servers/virtuoso_server.py).

Without Virtuoso installed those tests skip, saying why; with LIUYAO_REQUIRE_VIRTUOSO=1 (set by .ci/run)
a server that cannot start fails them instead.
"""
from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def virtuoso():
    import virtuoso_server

    required = os.environ.get("LIUYAO_REQUIRE_VIRTUOSO") == "1"
    try:
        server = virtuoso_server.start()
    except virtuoso_server.VirtuosoUnavailable as e:
        if required:
            pytest.fail(f"LIUYAO_REQUIRE_VIRTUOSO=1 but Virtuoso did not start: {e}")
        pytest.skip(str(e))
    try:
        yield server
    finally:
        server.stop()
