"""Which queries may read the part of the passages layer a new in-memory store leaves unparsed at first.

The store parses `ontology/passages-eager.ttl` (the layer without what no cast reads: 42,700 of its 77,000
quads, ~0.08 s less) and the rest on the first query that may read it: by `queries/reads.json`, built by
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
def _reads() -> dict:
    return json.loads(resources.files("liuyao_kg.queries").joinpath("reads.json").read_bytes())


def needs_deferred(text: str) -> bool:
    """False only for the text of a named query shown not to read the deferred part."""
    return _reads()["needs_deferred"].get(hashlib.sha256(text.encode()).hexdigest(), True)


def fits(quads) -> bool:
    """Whether quads about to join a cast's graphs keep lazy_build's assumption: a passage node (lyp:) is no
    subject there, and an object only under the predicates it found in the layers (as lyo:citesSource)."""
    import pyoxigraph as ox

    from liuyao_kg.namespaces import LYP

    allowed = set(_reads()["passage_object_predicates"])
    for q in quads:
        if isinstance(q.subject, ox.NamedNode) and q.subject.value.startswith(LYP):
            return False
        if isinstance(q.object, ox.NamedNode) and q.object.value.startswith(LYP) and q.predicate.value not in allowed:
            return False
    return True


def eager_bytes() -> bytes | None:
    """The eager part, or None when it was built from other passage files than the package's (a layer edited
    without `python -m liuyao_kg.lazy_build`): then nothing is deferred."""
    from liuyao_kg import namespaces as ns
    from liuyao_kg.versioning import package_versions

    if _reads().get("built_from") != package_versions()[ns.GRAPH_PASSAGES]:
        return None
    return resources.files("liuyao_kg.ontology").joinpath(EAGER_FILE).read_bytes()
