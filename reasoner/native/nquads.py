"""Native terms written as N-Triples / N-Quads text: a load's derived graphs without a pyoxigraph object per term.

The text is what pyoxigraph's serializer writes for the same terms (tests/reasoner/test_native_engine.py compares them), so
a store loads it as it loads the reference engine's output.
"""
from __future__ import annotations

from liuyao_kg.reasoner.native.terms import RDF_LANG_STRING, XSD_STRING, BNode

_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"})


def term(t) -> str:
    """One native term in N-Triples syntax."""
    if type(t) is str:
        return f"<{t}>"
    if type(t) is tuple:
        text = t[0].translate(_ESCAPES)
        if t[1] == XSD_STRING:
            return f'"{text}"'
        if t[1] == RDF_LANG_STRING:
            return f'"{text}"@{t[2]}'
        return f'"{text}"^^<{t[1]}>'
    if isinstance(t, BNode):
        return f"_:{t}"
    raise TypeError(f"not a native term: {t!r}")


def quads_text(triples, graph: str) -> str:
    """Triples (native terms) as N-Quads lines in the named graph `graph`."""
    g = f" <{graph}> .\n"
    cache: dict = {}
    out = []
    for s, p, o in triples:
        parts = []
        for x in (s, p, o):
            text = cache.get(x)
            if text is None:
                text = cache[x] = term(x)
            parts.append(text)
        out.append(" ".join(parts) + g)
    return "".join(out)
