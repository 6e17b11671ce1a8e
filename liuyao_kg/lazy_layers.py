"""Which queries may read the part of the passages layer a new in-memory store leaves unparsed at first.

The store parses `ontology/passages-eager.ttl` (the layer without the predicates no cast reads, ~0.05 s less
than the whole layer) and the rest on the first query that may read it: by `queries/reads.json`, built by
`python -m liuyao_kg.lazy_build` from each named query's algebra. Any other text (user SPARQL, `serve`,
updates, direct use of the store) is not in it, so it loads the whole layer first.
"""
from __future__ import annotations

import hashlib
import json
from functools import cache
from importlib import resources

EAGER_FILE = "passages-eager.ttl"  # in liuyao_kg.ontology


@cache
def _needs() -> dict[str, bool]:
    return json.loads(resources.files("liuyao_kg.queries").joinpath("reads.json").read_bytes())["needs_deferred"]


def needs_deferred(text: str) -> bool:
    """False only for the text of a named query shown not to read the deferred part."""
    return _needs().get(hashlib.sha256(text.encode()).hexdigest(), True)


def eager_bytes() -> bytes:
    return resources.files("liuyao_kg.ontology").joinpath(EAGER_FILE).read_bytes()
