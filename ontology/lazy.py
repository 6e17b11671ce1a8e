"""Which queries may read the parts of the passages and rules layers a new in-memory store leaves unparsed at first.

The store parses `ontology/compiled/passages-eager.nt` and `ontology/compiled/rules-eager.nt` (the layers without what no cast
reads: their Web Annotation selectors' and passages' labels, prefixes and suffixes, the rules' labels,
comments and conditions …) and the rest on the first query that may read it: by `ontology/compiled/reads.json`, built by
`python -m liuyao_kg.build lazy` from each named query's algebra. Any other text (user SPARQL, `serve`,
updates, direct use of the store) is not in it, so it loads the whole layers first.
"""
from __future__ import annotations

import hashlib
import json
from functools import cache
from importlib import resources

#: {layer graph: its eager part, in liuyao_kg.ontology} (liuyao_kg.build.lazy.LAZY)
EAGER_FILES = {"https://w3id.org/liuyao-kg/graph/passages": "compiled/passages-eager.nt",
               "https://w3id.org/liuyao-kg/graph/rules": "compiled/rules-eager.nt"}
#: {layer graph: the whole layer as N-Triples} for the layers a new store parses whole (liuyao_kg.build.lazy.WHOLE)
WHOLE_FILES = {"https://w3id.org/liuyao-kg/graph/reference": "compiled/reference-layer.nt"}


@cache
def _reads() -> dict:
    return json.loads(resources.files("liuyao_kg.ontology").joinpath("compiled", "reads.json").read_bytes())


def needs_deferred(text: str) -> bool:
    """False only for the text of a named query shown not to read the deferred parts."""
    return _reads()["needs_deferred"].get(hashlib.sha256(text.encode()).hexdigest(), True)


def fits(quads) -> bool:
    """Whether quads about to join a cast's graphs keep liuyao_kg.build.lazy's assumption: a lazy layer's own node (lyp:,
    lyrule:) is no subject there, and an object only under the predicates it allowed (as lyo:citesSource)."""
    import pyoxigraph as ox

    from liuyao_kg.namespaces import LYP, LYRULE

    allowed = set(_reads()["node_object_predicates"])
    for q in quads:
        if isinstance(q.subject, ox.NamedNode) and q.subject.value.startswith((LYP, LYRULE)):
            return False
        if (isinstance(q.object, ox.NamedNode) and q.object.value.startswith((LYP, LYRULE))
                and q.predicate.value not in allowed):
            return False
    return True


def eager_parts() -> dict[str, bytes]:
    """{layer graph: its eager part, or for the other layers the whole layer} as N-Triples written by pyoxigraph from
    strictly parsed layers (so parsed leniently), or {} when a file was built from other files than the package's
    (a layer edited without `python -m liuyao_kg.build lazy`): then nothing is deferred, and the Turtle is parsed."""
    from liuyao_kg.ontology import package_versions

    reads = _reads()
    built = {**reads["deferred"], **reads["whole"]}
    files = {**EAGER_FILES, **WHOLE_FILES}
    if any(built[g]["built_from"] != package_versions()[g] for g in files):
        return {}
    base = resources.files("liuyao_kg.ontology")
    return {g: base.joinpath(name).read_bytes() for g, name in files.items()}
