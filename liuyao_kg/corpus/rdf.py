"""The RDF an edition's graph is written with: terms, labels in three languages, Web Annotation selectors."""
from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox

from liuyao_kg import namespaces as ns
from liuyao_kg.corpus.align import CONTEXT
from liuyao_kg.loaders.edition import Edition


def n(iri: str) -> ox.NamedNode:
    return ox.NamedNode(iri)


def lit(v: str, lang: str | None = None) -> ox.Literal:
    return ox.Literal(v, language=lang) if lang else ox.Literal(v)


def typed(v, dt: str) -> ox.Literal:
    return ox.Literal(str(v), datatype=n(ns.XSD + dt))


A = n(ns.RDF + "type")
LABEL = n(ns.RDFS + "label")


def L(name: str) -> ox.NamedNode:
    return n(ns.LYO + name)


def OA(name: str) -> ox.NamedNode:
    return n(ns.OA + name)


class Writer:
    def __init__(self, graph: str):
        self.g = n(graph)
        self.quads: list[ox.Quad] = []

    def add(self, subject, p, o) -> None:
        self.quads.append(ox.Quad(subject if not isinstance(subject, str) else n(subject), p, o, self.g))

    def labels(self, subject, zh: str, en: str, ko: str) -> None:
        for text, lang in ((zh, "zh-Hant"), (en, "en"), (ko, "ko")):
            self.add(subject, LABEL, lit(text, lang))


def selectors(w: Writer, base: str, ed: Edition, span: tuple[int, int], what: str) -> list[ox.NamedNode]:
    """A TextQuoteSelector and a TextPositionSelector for `span` of the edition's file (offsets of the original)."""
    rs, re_ = span
    q, p = n(base + "/quote"), n(base + "/position")
    w.add(q, A, OA("TextQuoteSelector"))
    w.labels(q, f"{what}：引文選擇器", f"{what}: quote selector, characters {rs}-{re_} of {Path(ed.path).name}",
             f"{what}: 인용 선택자")
    w.add(q, OA("exact"), lit(ed.raw[rs:re_]))
    w.add(q, OA("prefix"), lit(ed.raw[max(0, rs - CONTEXT):rs]))
    w.add(q, OA("suffix"), lit(ed.raw[re_:re_ + CONTEXT]))
    w.add(p, A, OA("TextPositionSelector"))
    w.labels(p, f"{what}：位置選擇器", f"{what}: position selector, characters {rs}-{re_} of {Path(ed.path).name}",
             f"{what}: 위치 선택자")
    w.add(p, OA("start"), typed(rs, "nonNegativeInteger"))
    w.add(p, OA("end"), typed(re_, "nonNegativeInteger"))
    return [q, p]


