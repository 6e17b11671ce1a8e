"""An IRI parameter written into a query as a term (`sparql_text.inline_iris`): the rows SEP-0007 substitution gives,
for every named query that takes one, and never query syntax."""
from __future__ import annotations

import json

import pyoxigraph as ox
import pytest

import liuyao_kg
from liuyao_kg.store import embedded as graph
from liuyao_kg import queries
from liuyao_kg.sparql.text import inline_iris

CAST = ox.NamedNode("https://w3id.org/liuyao-kg/cast/example")
PREFIX = "PREFIX lyo: <https://w3id.org/liuyao-kg/ontology#>\n"


def test_an_iri_parameter_is_written_where_its_variable_stands_and_bound_at_the_group_end():
    text = PREFIX + "SELECT ?cast ?line WHERE { ?cast lyo:hasLine ?line . FILTER(?cast != ?line) }\nORDER BY ?cast"
    out, rest = inline_iris(text, {"cast": CAST})
    assert rest == {}
    assert out == (PREFIX + f"SELECT ?cast ?line WHERE {{ {CAST} lyo:hasLine ?line . FILTER({CAST} != ?line) "
                            f" BIND({CAST} AS ?cast)}}\nORDER BY ?cast")


def test_a_variable_in_a_string_a_comment_an_iri_or_a_longer_name_is_not_the_parameter():
    text = (PREFIX + "SELECT ?cast ?castle WHERE {\n  # ?cast in a comment\n  ?cast lyo:note \"?cast\" ; "
            "<urn:x?cast> ?castle .\n}")
    out, _ = inline_iris(text, {"cast": CAST})
    assert out.count(str(CAST)) == 2  # the pattern's subject and the BIND
    assert "# ?cast in a comment" in out and '"?cast"' in out and "<urn:x?cast>" in out and "?castle" in out


@pytest.mark.parametrize("where", [
    "{ VALUES ?cast { <urn:a> } ?cast lyo:hasLine ?l }",
    "{ ?l lyo:inCast ?c . BIND(?c AS ?cast) }",
    "{ { SELECT ?cast WHERE { ?cast lyo:hasLine ?l } } }",
])
def test_a_query_that_binds_the_variable_itself_is_left_to_substitution(where):
    assert inline_iris(PREFIX + f"SELECT ?cast WHERE {where}", {"cast": CAST}) is None


def test_a_literal_parameter_stays_a_substitution():
    text = PREFIX + "SELECT ?cast ?gz WHERE { ?cast lyo:label ?l . FILTER(STR(?l) = ?gz) }"
    out, rest = inline_iris(text, {"cast": CAST, "gz": ox.Literal("甲子")})
    assert rest == {"gz": ox.Literal("甲子")} and "?gz" in out and '"甲子"' not in out
    assert inline_iris(text, {"gz": ox.Literal("甲子")}) is None


def test_an_iri_that_would_close_the_term_or_the_group_never_reaches_the_text():
    for value in ("urn:a> } ; DROP ALL #", "urn:a b", 'urn:a"'):
        with pytest.raises(ValueError):
            ox.NamedNode(value)
        with pytest.raises(queries.QueryParameterError):
            queries.run(liuyao_kg.default_graph(), "chart-lines", cast=value)


@pytest.fixture(scope="module")
def casts():
    kg = liuyao_kg.default_graph()
    return kg, [liuyao_kg.cast("節之中孚", month="寅", day="辛亥", topic="求財")["cast"],
                liuyao_kg.cast("797986", month="卯", day="甲子", year="甲子", topic="婚姻")["cast"]]


def _examples(kg, cast: str) -> dict[str, dict]:
    """Parameters for each named query with an IRI parameter, taken from what the cast derived."""
    judgment = queries.run(kg, "cast-judgments", cast=cast)[0]
    edition = queries.run(kg, "passage-editions", passage=judgment["passage"])[0]["edition"]
    per_cast = ("cast-instant", "cast-judgments", "cast-states", "chart-hexagrams", "chart-lines", "chart-pillars",
                "chart-question", "chart-relations", "chart-roles", "chart-use-god", "reading-factors",
                "reading-timing", "reading-verdict")
    passage = judgment["passage"]
    return {name: {"cast": cast} for name in per_cast} | {
        "line-states": {"cast": cast, "position": 4}, "judgment-editions": {"judged": cast},
        "casts-where-rule-fired": {"rule": judgment["rule"]}, "rule-condition": {"rule": judgment["rule"]},
        "rule-label": {"rule": judgment["rule"]}, "casts-where-use-god": {"first": "月破", "second": "旬空"},
        "parallels": {"passage": passage}, "passage-editions": {"passage": passage},
        "passage-in-chapter": {"passage": passage}, "passage-terms": {"passage": passage},
        "passage": {"source": passage}, "rules-citing-passage": {"passage": passage},
        "passage-urn": {"passage": passage},
        "collation-differences": {"collation": "https://w3id.org/liuyao-kg/collation/HuoZhuLin-seed--HuoZhuLin-wikisource"},
        "passage-in-edition": {"passage": passage, "edition": edition},
        "edition-variants": {"first": edition, "second": "https://w3id.org/liuyao-kg/edition/HuoZhuLin/mine"}}


def _rows(kg, name, params) -> list[str]:
    return sorted(json.dumps(r, ensure_ascii=False, sort_keys=True, default=str) for r in queries.run(kg, name, **params))


def test_every_named_query_with_an_iri_parameter_answers_inlined_as_substituted(casts, monkeypatch):
    kg, cis = casts
    examples = _examples(kg, cis[0])
    takes_iri = {n for n in queries.catalogue() if any(p.kind in ("iri", "state") for p in queries.get(n).params)}
    assert takes_iri == set(examples)
    answered = 0
    for cast in cis:
        for name, params in _examples(kg, cast).items():
            q = queries.get(name)
            assert inline_iris(q.text, queries.bindings(q, params)) is not None, name  # the rewriting applies
            inlined = _rows(kg, name, params)
            with monkeypatch.context() as m:
                m.setattr(graph, "inline_iris", lambda text, bindings: None)  # pyoxigraph's substitution alone
                assert _rows(kg, name, params) == inlined, name
            answered += bool(inlined)
    assert answered >= 40  # most of them answer something about these casts
