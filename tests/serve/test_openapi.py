"""The OpenAPI document's schemas describe what the API really answers: real answers of every route, for casts of
every kind (with and without a question, a date, a year, the asker), validate against them with every object
closed, so a key the code adds or drops, or a value outside an enum, fails here."""
from __future__ import annotations

import copy
import json
import urllib.parse

import jsonschema
import pytest
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

import liuyao_kg
from liuyao_kg.chart.i18n import labels
from liuyao_kg.chart.plain import plain_reading
from liuyao_kg.ontology import tables
from liuyao_kg.serve.api import Api, openapi
from liuyao_kg.serve.schemas import REF, closed

JIE = {"spec": "節之中孚", "month": "寅", "day": "辛亥", "topic": "求財"}
#: casts that reach every optional part of a chart: no question, no day, no month, a date with its hour, a year and
#: the asker, a static cast, a hidden use-god, a question about someone, weather, coins
CASTS = [
    JIE,
    {"spec": "節之中孚", "month": "寅", "day": "辛亥"},
    {"spec": "節", "month": "寅"},
    {"spec": "節"},
    {"spec": "乾之姤", "date": "2024-02-04T16:28+08:00", "topic": "婚姻", "sex": "男", "birth": "子", "year": "甲辰"},
    {"spec": "坤", "month": "子", "day": "甲子", "topic": "疾病", "about": "父母"},
    {"spec": "787986", "month": "丙寅", "day": "辛亥", "topic": "晴"},
    {"spec": "未濟之既濟", "month": "午", "day": "癸卯", "topic": "官事"},
    {"spec": "豐之離", "month": "酉", "day": "庚申", "topic": "求財"},
    {"coins": "HHT,HTT,TTT,HHH,HHT,HTT", "month": "寅", "day": "辛亥", "topic": "婚姻", "sex": "女"},
]


@pytest.fixture(scope="module")
def api():
    return Api(liuyao_kg.default_graph())


@pytest.fixture(scope="module")
def registry():
    doc = openapi()
    doc["components"] = closed(doc["components"])
    return Registry().with_resource("urn:liuyao-api", Resource.from_contents(doc, default_specification=DRAFT202012))


def problems(registry, name: str, instance) -> list[str]:
    validator = jsonschema.Draft202012Validator({"$ref": "urn:liuyao-api" + REF + name}, registry=registry,
                                                format_checker=jsonschema.FormatChecker())
    return [f"{list(e.absolute_path)}: {e.message[:300]}" for e in validator.iter_errors(instance)]


def get(api, path, query=""):
    r = api.handle("GET", path, query, b"")
    return r.status, json.loads(r.body)


def test_every_component_is_a_valid_json_schema():
    for name, schema in openapi()["components"]["schemas"].items():
        jsonschema.Draft202012Validator.check_schema(schema)


def test_every_answer_is_typed_by_a_component():
    for path, ops in openapi()["paths"].items():
        for method, op in ops.items():
            for status, r in op["responses"].items():
                schema = next(iter(r.get("content", {}).values()), {}).get("schema")
                assert schema is not None, (path, method, status)
                if status.startswith("4"):
                    assert schema == {"$ref": REF + "Error"}, (path, method, status)
    assert openapi()["paths"]["/api/cast"]["post"]["responses"]["200"]["content"]["application/json"]["schema"] \
        == {"$ref": REF + "Chart"}


@pytest.mark.parametrize("fields", CASTS, ids=lambda f: "-".join(f.values()))
def test_the_chart_of_every_kind_of_cast_matches_the_chart_schema(api, registry, fields):
    status, chart = get(api, "/api/cast", urllib.parse.urlencode(fields))
    assert status == 200 and problems(registry, "Chart", chart) == []


@pytest.mark.parametrize("lang", ["zh-Hant", "zh-Hans", "en", "ko"])
def test_the_reading_in_each_language_matches_the_reading_schema(api, registry, lang):
    for fields in (JIE, CASTS[1], CASTS[4]):
        reading = plain_reading(api.cast(dict(fields)), lang, labels(api.kg))
        assert problems(registry, "Reading", reading) == []


def test_a_changed_key_or_an_unknown_value_fails_the_chart_schema(api, registry):
    chart = api.cast(dict(JIE))
    assert problems(registry, "Chart", chart) == []
    for change, where in [(lambda c: c.update(colour="red"), "colour"),
                          (lambda c: c["lines"][0].update(spirit="龍"), "['lines', 0, 'spirit']"),
                          (lambda c: c["verdict"].update(polarity="大吉"), "['verdict', 'polarity']"),
                          (lambda c: c["judgments"][0].pop("source"), "'source' is a required property"),
                          (lambda c: c["timing"][0].update(dates=["2024-02-30"]), "is not a 'date'")]:
        broken = copy.deepcopy(chart)
        change(broken)
        found = problems(registry, "Chart", broken)
        assert len(found) == 1 and where in found[0], found


def test_the_enums_are_the_tables_the_charts_are_built_from():
    schemas = openapi()["components"]["schemas"]
    assert schemas["Branch"]["enum"] == list(tables.BRANCHES) and schemas["Stem"]["enum"] == list(tables.STEMS)
    assert set(schemas["Relative"]["enum"]) == {"父母", "兄弟", "妻財", "官鬼", "子孫"}
    assert schemas["Lang"]["enum"] == ["zh-Hant", "zh-Hans", "en", "ko"]


@pytest.mark.parametrize("query", [urllib.parse.urlencode(JIE), urllib.parse.urlencode(JIE) + "&line=1",
                                   urllib.parse.urlencode({**JIE, "rule": "case-wealth-severed-sibling-moves"})])
def test_why_matches_the_why_schema(api, registry, query):
    status, trace = get(api, "/api/why", query)
    assert status == 200 and problems(registry, "Why", trace) == []


def test_the_rule_catalogue_every_tenth_rule_and_the_conflicts_match_their_schemas(api, registry):
    _, rules = get(api, "/api/rules")
    assert problems(registry, "Rules", rules) == []
    for r in rules["rules"][::10]:
        status, detail = get(api, "/api/rules/" + urllib.parse.quote(r["path"]))
        assert status == 200 and problems(registry, "RuleDetail", detail) == [], r["path"]
    _, conflicts = get(api, "/api/conflicts")
    assert conflicts and all(problems(registry, "Conflict", c) == [] for c in conflicts)


def test_passages_and_labels_match_their_schemas(api, registry):
    _, rules = get(api, "/api/rules")
    ids = sorted({p["id"] for r in rules["rules"][::15] for p in r["passages"]})
    assert len(ids) > 10
    for pid in ids:
        status, passage = get(api, "/api/passages/" + urllib.parse.quote(pid))
        assert status == 200 and problems(registry, "Passage", passage) == [], pid
    assert problems(registry, "Labels", get(api, "/api/labels")[1]) == []


@pytest.mark.parametrize("path, query, status", [
    ("/api/cast", "spec=787985&month=寅&day=辛亥", 400), ("/api/cast", "spec=節&month=寅&day=甲丑", 400),
    ("/api/cast", "spec=節&colour=red", 400), ("/api/rules/no-such-rule", "", 404),
    ("/api/passages/nope", "", 404), ("/api/why", "spec=節&month=寅&day=辛亥&line=9", 400)])
def test_errors_match_the_error_schema(api, registry, path, query, status):
    code, body = get(api, path, query)
    assert code == status and problems(registry, "Error", body) == []
