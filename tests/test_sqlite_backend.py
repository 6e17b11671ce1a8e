"""`backend="sqlite"`: a knowledge graph deriving with SqliteEngine gives the charts and graphs of the default.

tests/test_columnar.py holds the engine itself to pyoxigraph's quads on the witnesses and seeded casts; this
holds the wiring: a store's own rules and reference (read from its graphs, as N-Triples) reach the engine,
and what a user sees — the chart, the reading, the stored inferred graph — is the same.
"""
from __future__ import annotations

import pyoxigraph as ox
import pytest

import liuyao_kg
from liuyao_kg.graph import KnowledgeGraph
from liuyao_kg.reasoner.engine import inferred_graph
from liuyao_kg.store import open_store


@pytest.fixture(scope="module")
def graphs():
    return KnowledgeGraph(), KnowledgeGraph(backend="sqlite")


def _inferred(kg, iri: str) -> set[str]:
    return {str(q) for q in kg.store.quads_for_pattern(None, None, None, ox.NamedNode(inferred_graph(iri)))}


@pytest.mark.parametrize("spec,month,day,topic", [("節之中孚", "寅", "辛亥", "求財"), ("大畜之蒙", "巳", "癸未", "疾病"),
                                                  ("乾之姤", "卯", "甲子", "婚姻")])
def test_a_cast_derived_on_sqlite_has_the_default_chart_and_inferred_graph(graphs, spec, month, day, topic):
    default, sqlite = graphs
    expected = liuyao_kg.cast(spec, month=month, day=day, topic=topic, kg=default)
    got = liuyao_kg.cast(spec, month=month, day=day, topic=topic, kg=sqlite)
    assert type(sqlite.engine).__name__ == "SqliteEngine"
    assert got == expected
    assert _inferred(sqlite, got["cast"]) == _inferred(default, expected["cast"])
    assert expected["judgments"], "the case must fire chapter rules"


def test_the_state_rules_alone_derive_alike_on_sqlite():
    kw = dict(month="申", day="丙寅", topic="官事")
    expected = liuyao_kg.cast("觀之比", kg=KnowledgeGraph(chapter_rules=False), **kw)
    assert liuyao_kg.cast("觀之比", kg=KnowledgeGraph(chapter_rules=False, backend="sqlite"), **kw) == expected


def test_an_unknown_backend_names_the_known_ones():
    with pytest.raises(ValueError, match="'sqlite'"):
        open_store("memory", backend="duckdb")


def test_statements_nested_too_deep_for_sqlite_run_rewritten_as_sql_not_on_pyoxigraph():
    kg = KnowledgeGraph(backend="sqlite")
    liuyao_kg.cast("節之中孚", month="寅", day="辛亥", topic="求財", kg=kg)  # UseGodChoose, among others
    assert kg.engine.rewritten, "the package has rules SQLite's parser cannot take nested"
    assert not kg.engine.too_deep


def test_hoisting_derived_tables_into_ctes_keeps_the_rows_and_leaves_literals_alone():
    import sqlite3

    from liuyao_kg.reasoner.columnar.sqlite import hoist

    sql = ("SELECT a2.x AS x FROM (SELECT a1.x AS x FROM (SELECT 'a (FROM (SELECT'' x) AS a9' AS x "
           "UNION ALL SELECT 'b' AS x) AS a1) AS a2 WHERE EXISTS (SELECT 1 FROM (WITH ma3 AS MATERIALIZED "
           "(SELECT 'a (FROM (SELECT'' x) AS a9' AS y) SELECT * FROM ma3 AS a5) AS a4 WHERE a4.y = a2.x)")
    defs, query = hoist(sql)
    assert [d.split(" AS ")[0] for d in defs] == ["a1", "a2", "ma3", "a4"]
    con = sqlite3.connect(":memory:")
    expected = con.execute(sql).fetchall()
    assert expected == [("a (FROM (SELECT' x) AS a9",)]
    assert con.execute("WITH " + ", ".join(defs) + " " + query).fetchall() == expected


def test_no_rule_on_sqlite_reads_a_reference_table_whole_to_start_its_joins():
    """The planner knows the tables' sizes (SqliteEngine._plan_statistics): a rule's joins start from the
    cast's few rows and look the reference up by index, never scan hundreds of reference rows per cast.
    (A statement SQLite's parser refuses nested runs rewritten as CTEs, planned one by one: not held here.)"""
    import re
    import sqlite3

    engine = KnowledgeGraph(backend="sqlite").engine
    con = engine.con
    tables = con.execute("SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'c\\_%' ESCAPE '\\'")
    large = {t for (t,) in tables.fetchall() if con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] >= 50}
    assert len(large) > 10, "the reference fills some cast tables with many rows"
    planned, scans = 0, []
    for iri, sql in engine._queries.items():
        try:
            plan = con.execute("EXPLAIN QUERY PLAN " + sql).fetchall()
        except sqlite3.OperationalError:  # nested too deep for the parser: run rewritten (test above)
            continue
        planned += 1
        for *_, step in plan:
            alias = re.fullmatch(r"SCAN (a\d+)", step)
            table = alias and re.search(rf"\b(c_[tp]_\w+) AS {alias.group(1)}\b", sql)
            if table and table.group(1) in large:
                scans.append((iri, table.group(1)))
    assert planned > 1000
    assert scans == []
