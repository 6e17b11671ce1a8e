"""The named query library: every .rq documents itself and binds its parameters safely."""
from __future__ import annotations

import re

import pytest

import liuyao_kg
from liuyao_kg import queries
from liuyao_kg.queries import QueryParameterError

NAMES = sorted(queries.catalogue())


def test_the_library_has_the_queries_users_need():
    assert {"chart-lines", "line-states", "casts-where-use-god", "rules-citing-passage", "passage-terms",
            "passages-for-term"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_every_query_states_what_it_answers_and_projects_its_parameters(name):
    q = queries.get(name)
    assert q.answers
    select = re.search(r"^SELECT (DISTINCT )?(.*)$", q.text, re.M).group(2).split()
    # pyoxigraph binds parameters by SEP-0007 substitution, which requires them in the projection.
    assert [p.name for p in q.params if f"?{p.name}" not in select] == []


def test_an_unknown_parameter_is_refused_by_name():
    with pytest.raises(QueryParameterError, match="has no parameter 'casts'"):
        queries.run(liuyao_kg.default_graph(), "chart-lines", casts="https://w3id.org/liuyao-kg/cast/x")


def test_a_missing_parameter_is_refused_by_name():
    with pytest.raises(QueryParameterError, match="needs parameter"):
        queries.run(liuyao_kg.default_graph(), "line-states", cast="https://w3id.org/liuyao-kg/cast/x")


def test_rules_citing_a_passage_are_found_from_the_passage():
    rows = queries.run(liuyao_kg.default_graph(), "rules-citing-passage",
                       passage="https://w3id.org/liuyao-kg/passage/GuaShen")
    assert [r["rule"].rsplit("/", 1)[1] for r in rows] == ["GuaShen"]


def test_the_states_of_one_line_come_with_quote_and_seed_offsets():
    chart = liuyao_kg.cast("大畜之小畜", month="午", day="己巳", topic="疾病")
    rows = queries.run(liuyao_kg.default_graph(), "line-states", cast=chart["cast"], position=5)
    broken = [r for r in rows if r["term"] == "月破"]
    assert broken and broken[0]["quote"] and broken[0]["seed"] and broken[0]["end"] > broken[0]["start"]


def test_nayin_and_branch_relations_come_from_the_reference_graph():
    assert liuyao_kg.nayin("甲子") == "海中金"
    assert liuyao_kg.branch_relations("未", "午") == {"合"}
    assert liuyao_kg.branch_relations("子", "卯") == {"刑"}
    assert liuyao_kg.branch_relations("辰", "辰") == {"刑"}


CHART_QUERIES = ["cast-judgments", "cast-states", "chart-lines", "chart-use-god", "chart-relations", "chart-pillars",
                 "chart-hexagrams", "chart-question", "chart-roles", "reading-factors", "reading-verdict",
                 "cast-instant", "reading-timing"]


def test_named_queries_asked_together_answer_as_each_asked_alone():
    kg = liuyao_kg.default_graph()
    cast = liuyao_kg.cast("節之中孚", month="寅", day="辛亥", topic="求財")["cast"]
    assert kg.parallel_reads >= 1
    calls = [(n, {"cast": cast}) for n in CHART_QUERIES] + [("judgment-editions", {"judged": cast})]
    together = queries.run_many(kg, calls)
    assert together == [queries.run(kg, n, **p) for n, p in calls]
    assert all(together[:3])  # judgments, states and lines: answers worth comparing


def test_a_bad_parameter_among_queries_asked_together_is_refused_before_any_runs():
    class Counting:
        parallel_reads = 2

        def __init__(self):
            self.kg, self.asked = liuyao_kg.default_graph(), 0

        def select(self, text, bindings):
            self.asked += 1
            return self.kg.select(text, bindings)

    kg = Counting()
    with pytest.raises(QueryParameterError, match="has no parameter 'casts'"):
        queries.run_many(kg, [("chart-lines", {"cast": "https://w3id.org/liuyao-kg/cast/x"}),
                              ("chart-roles", {"casts": "https://w3id.org/liuyao-kg/cast/x"})])
    assert kg.asked == 0


def test_answers_run_a_query_they_were_not_asked_with_those_parameters():
    kg = liuyao_kg.default_graph()
    cast = liuyao_kg.cast("節之中孚", month="寅", day="辛亥", topic="求財")["cast"]
    ask = queries.Answers(kg, [("chart-lines", {"cast": cast})]).ask
    assert ask("chart-roles", cast=cast) == queries.run(kg, "chart-roles", cast=cast)
    assert ask("chart-lines", cast=cast) == queries.run(kg, "chart-lines", cast=cast)
