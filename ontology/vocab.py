"""Look-ups into the T-box: state classes by their zh-Hant term or English label."""
from __future__ import annotations

from functools import cache
from importlib import resources

import pyoxigraph as ox

from liuyao_kg.namespaces import LYO, sparql_prologue


@cache
def _state_terms() -> dict[str, str]:
    store = ox.Store()
    store.load(resources.files("liuyao_kg.ontology").joinpath("lyo.ttl").read_bytes(), format=ox.RdfFormat.TURTLE)
    q = sparql_prologue() + """
        SELECT ?c ?l WHERE { ?c rdfs:subClassOf+ lyo:State ; rdfs:label ?l . }"""
    out: dict[str, str] = {}
    for row in store.query(q):
        out.setdefault(row["l"].value, row["c"].value)
    return out


def state_class_by_term(term: str) -> str | None:
    """The IRI of the state class whose label (zh-Hant, en or ko) is `term`, e.g. 月破 → lyo:MonthBroken."""
    return _state_terms().get(term.strip())


__all__ = ["state_class_by_term", "LYO"]
