"""liuyao-kg: knowledge graph, OWL ontology and rule engine for six-line (六爻 納甲) divination.

    >>> import liuyao_kg
    >>> chart = liuyao_kg.cast("節之中孚", month="寅", day="辛亥", topic="求財")
    >>> chart["primary"]["palace"]
    '坎'
"""
from __future__ import annotations

from functools import cache

from liuyao_kg.version import __version__  # noqa: F401  (the package's release)


@cache
def default_graph():
    """The process-wide in-memory knowledge graph used by the convenience functions."""
    from liuyao_kg.store.embedded import KnowledgeGraph

    return KnowledgeGraph()


def cast(spec: str, *, lines=None, month=None, day=None, year=None, birth=None, date=None, topic=None,
         about=None, sex=None, school=None, use_god=None, day_boundary: str = "00:00", kg=None,
         horizon: str | None = None) -> dict:
    """Load one cast, derive its states, and return its chart (the JSON shape of docs/json-output.md)."""
    from liuyao_kg.chart import chart
    from liuyao_kg.loaders.cast_input import make_cast_input
    from liuyao_kg.loaders.rdf import cast_quads

    kg = kg or default_graph()
    ci = make_cast_input(spec, lines=lines, month=month, day=day, year=year, birth=birth, date=date,
                         topic=topic, about=about, sex=sex, school=school, use_god=use_god,
                         day_boundary=day_boundary)
    quads = cast_quads(ci)
    from liuyao_kg.loaders.shapes import check_cast

    check_cast(quads)  # SHACL (ontology/shapes/cast.ttl) before anything is stored
    answers = _native_answers(kg, ci.iri, quads)
    if answers is None:  # SPARQL reads the chart: another engine, changed layers, another store, a known cast
        from liuyao_kg.load import add_casts

        (iri,) = add_casts(kg, quads)
        return chart(kg, iri, horizon)
    return chart(kg, ci.iri, horizon, answers=answers)


def _native_answers(kg, iri: str, quads: list):
    """A new cast derived natively and stored, its chart's queries answered off the native result (the named queries
    compiled with the rules: tests/queries/test_native_chart.py holds them equal to SPARQL): for an embedded store holding
    the package's layers untouched and deriving with the native engine; else None, nothing done."""
    from liuyao_kg.load import engine_for

    if not {"local", "packaged"} <= kg.capabilities or kg.has_cast(iri):
        return None
    engine = engine_for(kg)
    if not hasattr(engine, "derive_cast"):
        return None
    from liuyao_kg.queries.native import answers_for, store_layers

    inferred, index = engine.derive_cast(quads)
    kg.write_cast(quads, inferred)
    return answers_for(engine, index, layers=store_layers(kg, engine))


def nayin(gz: str) -> str:
    """納音 of a stem-branch, read from the reference graph."""
    from liuyao_kg import queries
    from liuyao_kg.loaders.pillars import parse_stem_branch

    parse_stem_branch(gz)  # validates, e.g. rejects 甲丑
    rows = queries.run(default_graph(), "nayin", gz=gz)
    return rows[0]["nayin"]


def branch_relations(a: str, b: str) -> set[str]:
    """The relations (沖 合 刑 害) from branch a to branch b, read from the reference graph."""
    from liuyao_kg import queries

    return {r["relation"] for r in queries.run(default_graph(), "branch-relations", a=a, b=b)}
