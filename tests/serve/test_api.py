"""The JSON API of `liuyao serve`: the CLI's chart contract and messages, rules, passages in context, why, OpenAPI."""
from __future__ import annotations

import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

import liuyao_kg
from liuyao_kg.serve.api import CAST_FIELDS, Api, openapi
from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.serve.endpoint import make_server
from liuyao_kg.load import derive_with

JIE = {"spec": "節之中孚", "month": "寅", "day": "辛亥", "topic": "求財"}


@pytest.fixture(scope="module")
def api():
    return Api(liuyao_kg.default_graph())


def call(api, method, path, query="", body=None):
    r = api.handle(method, path, query, json.dumps(body, ensure_ascii=False).encode() if body is not None else b"",
                   "application/json")
    return r.status, json.loads(r.body)


def test_post_cast_returns_the_clis_chart_with_rule_ids(api):
    status, chart = call(api, "POST", "/api/cast", body=JIE)
    expected = liuyao_kg.cast("節之中孚", month="寅", day="辛亥", topic="求財")
    assert status == 200
    assert [{k: v for k, v in j.items() if k != "id"} for j in chart["judgments"]] == expected["judgments"]
    assert {k: v for k, v in chart.items() if k not in ("judgments", "reading", "lang")} == \
        {k: v for k, v in expected.items() if k != "judgments"}
    assert "case-wealth-severed-sibling-moves" in {j["id"] for j in chart["judgments"]}


def test_get_cast_takes_the_same_fields_as_query_parameters(api):
    status, chart = call(api, "GET", "/api/cast", urllib.parse.urlencode(JIE))
    assert status == 200 and chart["primary"]["name"] == "節" and chart["changed"]["name"] == "中孚"


def test_coins_cast_the_same_chart_as_their_line_values(api):
    _, by_coins = call(api, "POST", "/api/cast", body={"coins": "HHT,HTT,TTT,HHH,HHT,HTT", "month": "寅", "day": "辛亥"})
    _, by_values = call(api, "POST", "/api/cast", body={"spec": "789678", "month": "寅", "day": "辛亥"})
    assert by_coins["cast"] == by_values["cast"]


@pytest.mark.parametrize("body, status, message, field", [
    ({"spec": "節x", "month": "寅", "day": "辛亥"}, 400, "unknown hexagram name '節x'", "spec"),
    ({"spec": "節", "month": "寅", "day": "甲丑"}, 400, "甲丑 is not one of the 60 jiazi", "day"),
    ({"spec": "節", "month": "子月"}, 400, "子月", "month"),
    ({"spec": "節", "month": "寅", "day": "辛亥", "colour": "red"}, 400, "unknown field(s) colour", "colour"),
    ({"spec": 787986, "month": "寅", "day": "辛亥"}, 400, "field spec must be a string", "spec"),
    ({"spec": "節", "coins": "HHT,HTT,TTT,HHH,HHT,HTT", "month": "寅", "day": "辛亥"}, 400, "not both", "coins"),
])
def test_bad_cast_input_is_a_json_error_with_the_clis_message(api, capsys, body, status, message, field):
    code, data = call(api, "POST", "/api/cast", body=body | {"lang": "en"})
    assert code == status and message in data["error"] and data["field"] == field
    if not {"colour", "coins"} & set(body) and isinstance(body["spec"], str):
        from liuyao_kg.cli import main

        args = ["cast", body["spec"]] + [a for k in ("month", "day") if k in body for a in (f"--{k}", body[k])]
        assert main([*args, "--lang", "en"]) == 2 and data["error"] in capsys.readouterr().err  # asked in en too


@pytest.mark.parametrize("lang", ["zh-Hant", "zh-Hans", "en", "ko"])
def test_the_chart_carries_the_reading_in_plain_words_in_the_asked_language(api, lang):
    from liuyao_kg.chart.i18n import labels
    from liuyao_kg.chart.plain import plain_reading

    status, chart = call(api, "POST", "/api/cast", body=JIE | {"lang": lang})
    expected = liuyao_kg.cast("節之中孚", month="寅", day="辛亥", topic="求財")
    assert status == 200 and chart["lang"] == lang
    assert chart["reading"] == plain_reading(expected, lang, labels(liuyao_kg.default_graph()))


def test_without_lang_the_reading_is_zh_hant_and_zh_names_it_too(api):
    _, default = call(api, "POST", "/api/cast", body=JIE)
    _, zh = call(api, "GET", "/api/cast", urllib.parse.urlencode(JIE | {"lang": "zh"}))
    assert default["lang"] == zh["lang"] == "zh-Hant" and default["reading"] == zh["reading"]
    assert default["reading"]["verdict"] == "凶中有吉" and "words" not in default


def test_a_zh_hans_answer_maps_the_charts_words_to_simplified_characters(api):
    _, chart = call(api, "POST", "/api/cast", body=JIE | {"lang": "zh-Hans"})
    assert chart["primary"]["name"] == "節"  # the chart keeps its zh-Hant values, which are also identifiers
    assert chart["words"]["節"] == "节" and chart["words"]["妻財"] == "妻财"
    assert chart["words"]["增刪卜易說"] == "增删卜易说"  # a school's name
    assert "日傷爻，真罹其禍" not in chart["words"]  # a quote of the classics stays as written


def test_use_god_school_and_horizon_are_the_clis(api):
    fields = JIE | {"date": "2024-02-04T16:28+08:00", "month": "", "day": ""}
    _, chart = call(api, "POST", "/api/cast", body=fields | {"use_god": "3", "school": ["易冒"], "horizon": "月"})
    expected = liuyao_kg.cast("節之中孚", date="2024-02-04T16:28+08:00", topic="求財", use_god="3", school=["易冒"],
                              horizon="月")
    assert chart["use_god"] == expected["use_god"] and chart["timing"] == expected["timing"]
    assert chart["horizon"] == "月" and chart["reading_school"] == expected["reading_school"]
    _, by_query = call(api, "GET", "/api/cast", urllib.parse.urlencode(
        fields | {"use_god": "3", "school": "易冒", "horizon": "月"}))
    assert by_query["cast"] == chart["cast"]


@pytest.mark.parametrize("body, lang, message, field", [
    ({"spec": "節x"}, "zh-Hant", "無此卦「節x」", "spec"),
    ({"spec": "節x"}, "zh-Hans", "无此卦「節x」", "spec"),
    ({"spec": "節x"}, "ko", "알 수 없는 괘 「節x」", "spec"),
    ({"spec": "節", "day": "甲丑"}, "zh-Hant", "日「甲丑」不在六十甲子之中", "day"),
    ({"spec": "節", "horizon": "週"}, "zh-Hant", "應期單位「週」：須為 日、月 或 年", "horizon"),
    ({"spec": "節", "horizon": "週"}, "en", "horizon '週': one of 日 (day), 月 (month), 年 (year)", "horizon"),
    ({"spec": "節", "school": [1]}, "en", "field school must be a string or a list of strings", "school"),
    ({"spec": "節", "colour": "red"}, "ko", "알 수 없는 항목: colour", "colour"),
    ({"spec": "節", "lang": "fr"}, None, "language 'fr': one of zh-Hant (zh), zh-Hans, en, ko", "lang"),
])
def test_a_refusal_is_said_in_the_asked_language_with_the_clis_message_as_detail(api, body, lang, message, field):
    code, data = call(api, "POST", "/api/cast", body=body | ({"lang": lang} if lang else {}))
    assert code == 400 and message in data["error"] and data["field"] == field
    if lang not in (None, "en") and field in ("spec", "day"):
        from liuyao_kg.loaders.errors import CastInputError

        try:
            liuyao_kg.cast(body["spec"], day=body.get("day"))
        except CastInputError as e:
            assert data["detail"] == str(e)


def test_why_refuses_in_the_asked_language(api):
    status, data = call(api, "GET", "/api/why", urllib.parse.urlencode(JIE | {"line": "9", "lang": "ko"}))
    assert status == 400 and data["field"] == "line" and data["error"].startswith("효 위치 「9」")


def test_a_body_that_is_not_json_is_refused_by_name(api):
    r = api.handle("POST", "/api/cast", "", "spec=節".encode(), "application/json")
    assert r.status == 400 and "not JSON" in json.loads(r.body)["error"]


def test_rules_filter_by_topic_work_chapter_and_term(api):
    status, data = call(api, "GET", "/api/rules", urllib.parse.urlencode({"topic": "求財", "chapter": "遇時章"}))
    assert status == 200 and data["count"] == len(data["rules"]) > 0
    assert all(r["chapter"] == "遇時章" and "求財" in r["topics"] for r in data["rules"])
    _, by_work = call(api, "GET", "/api/rules", urllib.parse.urlencode({"work": "Huozhulin"}))
    _, by_work_zh = call(api, "GET", "/api/rules", urllib.parse.urlencode({"work": "火珠林"}))
    assert by_work_zh["count"] > 0 and all(r["work"]["zh"] == "火珠林" for r in by_work_zh["rules"])
    assert by_work["rules"] == by_work_zh["rules"]  # a work by its English label too
    _, by_term = call(api, "GET", "/api/rules", urllib.parse.urlencode({"term": "月破"}))
    assert by_term["count"] > 0
    assert all("月破" in (r["condition"] or "") + json.dumps(r, ensure_ascii=False) for r in by_term["rules"])


def test_an_unknown_rule_filter_is_refused_by_name(api):
    status, data = call(api, "GET", "/api/rules", "colour=red")
    assert status == 400 and data["field"] == "colour"


def test_one_rule_by_short_id_with_condition_sparql_and_passage(api):
    status, rule = call(api, "GET", "/api/rules/case-wealth-severed-sibling-moves")
    assert status == 200 and rule["condition"] == "w = 妻財 日:絕; b = 兄弟 動" and "CONSTRUCT" in rule["sparql"]
    assert rule["passages"][0]["quote"] == "巳財絕於亥日，兄動奪之，理不應得"


def test_an_ambiguous_short_id_lists_the_paths_and_a_path_resolves(api):
    status, data = call(api, "GET", "/api/rules/outer-yin-inner-yang")
    assert status == 409 and "ch/001b-hunyin/outer-yin-inner-yang" in data["error"]
    status, rule = call(api, "GET", "/api/rules/ch/001b-hunyin/outer-yin-inner-yang")
    assert status == 200 and rule["path"] == "ch/001b-hunyin/outer-yin-inner-yang"


def test_a_rule_in_a_conflict_carries_the_other_side(api):
    _, conflicts = call(api, "GET", "/api/conflicts")
    pair = conflicts[0]
    _, rule = call(api, "GET", f"/api/rules/{pair['a']['id']}")
    assert pair in rule["conflicts"]
    assert pair["a"]["polarity"] != pair["b"]["polarity"] or pair["a"]["school"] != pair["b"]["school"]


def test_a_passage_comes_in_its_chapter_with_context_and_korean(api):
    status, data = call(api, "GET", "/api/passages/ch-000-yushi-case-wealth-severed-sibling-moves")
    p = data["passage"]
    assert status == 200 and data["work"] == "易冒" and data["chapter"] == "遇時章"
    assert p["quote"] == "巳財絕於亥日，兄動奪之，理不應得" and p["korean"].startswith("사화 처재가")
    assert p["prefix"].endswith("得節之中孚，") and p["seed"] == "000_611f20e21d588b1f.txt" and p["start"] == 195
    places = [(s["seed"], s["paragraph"], s["start"]) for s in data["chapter_passages"]]
    assert len(places) > 1 and places == sorted(places) and sum(s["this"] for s in data["chapter_passages"]) == 1
    assert "case-wealth-severed-sibling-moves" in {r["id"] for r in data["rules"]}


ROOT = Path(__file__).resolve().parents[2]
HZL = ROOT.parent / "shared" / "corpora" / "huozhulin.wikisource.txt"
SEED002 = "https://w3id.org/liuyao-kg/seed/002_27074fab81f0590e.txt"
HZL_WS = "https://w3id.org/liuyao-kg/edition/HuoZhuLin/wikisource"


@pytest.fixture(scope="module")
def api_with_wikisource():
    """The API over a memory store to which `corpus add` has added Wikisource's 火珠林 (../shared/corpora)."""
    if not HZL.is_file():
        pytest.skip(f"the Wikisource edition of 火珠林 is not at {HZL}")
    from liuyao_kg.corpus.add import add_edition

    kg = derive_with(KnowledgeGraph(), chapter_rules=False)
    add_edition(kg, HZL, "火珠林", "wikisource")
    yield Api(kg)
    kg.close()


def test_a_passage_comes_in_the_edition_it_was_quoted_from_and_in_every_added_edition(api_with_wikisource):
    status, data = call(api_with_wikisource, "GET", "/api/passages/EightPalaces")
    assert status == 200 and data["work"] == "火珠林"
    seed, wikisource = data["editions"]
    assert seed == {"edition": SEED002, "name": {"zh": "火珠林（002_27074fab81f0590e.txt）",
                                                 "en": "seed text 002_27074fab81f0590e.txt (Huozhulin)"},
                    "file": "002_27074fab81f0590e.txt", "exact": data["passage"]["quote"],
                    "prefix": data["passage"]["prefix"], "suffix": data["passage"]["suffix"],
                    "start": data["passage"]["start"], "end": data["passage"]["end"],
                    "method": "quoted", "score": 1.0, "reason": None, "variants": []}
    assert (wikisource["edition"], wikisource["name"]["zh"], wikisource["file"]) == (
        HZL_WS, "火珠林（wikisource）", "huozhulin.wikisource.txt")
    assert (wikisource["exact"], wikisource["method"], wikisource["score"]) == ("定一宫管八卦，七卦皆从一宫出", "folded", 1.0)
    assert wikisource["prefix"].endswith("官鬼，") and wikisource["suffix"].startswith("。旁通者")
    text = HZL.read_text(encoding="utf-8")
    assert text[wikisource["start"]:wikisource["end"]] == wikisource["exact"]
    assert wikisource["variants"] == [{"kind": "orthographic", "base": "宮", "reading": "宫", "offset": 2},
                                      {"kind": "orthographic", "base": "從", "reading": "从", "offset": 9},
                                      {"kind": "orthographic", "base": "宮", "reading": "宫", "offset": 11}]


def test_an_added_edition_of_another_work_is_not_among_a_passages_editions(api_with_wikisource):
    _, data = call(api_with_wikisource, "GET", "/api/passages/ch-000-yushi-case-wealth-severed-sibling-moves")
    assert [(e["file"], e["method"], e["exact"]) for e in data["editions"]] == [
        ("000_611f20e21d588b1f.txt", "quoted", "巳財絕於亥日，兄動奪之，理不應得")]


def test_an_unknown_passage_is_a_404_naming_it(api):
    status, data = call(api, "GET", "/api/passages/no-such-passage")
    assert status == 404 and "no-such-passage" in data["error"]


def test_why_is_the_clis_json_trace(api, capsys):
    from liuyao_kg.cli import main

    status, data = call(api, "GET", "/api/why", urllib.parse.urlencode(JIE | {"rule": "理不應得"}))
    main(["why", "節之中孚", "--month", "寅", "--day", "辛亥", "--topic", "求財", "--rule", "理不應得", "--format", "json"])
    assert status == 200 and data == json.loads(capsys.readouterr().out)


def test_why_refuses_a_line_outside_1_to_6(api):
    status, data = call(api, "GET", "/api/why", urllib.parse.urlencode(JIE | {"line": "9"}))
    assert status == 400 and data["field"] == "line"


def test_openapi_documents_every_route_and_the_cast_fields(api):
    status, doc = call(api, "GET", "/api/openapi.json")
    assert status == 200 and doc == openapi() and doc["openapi"].startswith("3.1")
    assert set(doc["paths"]["/api/cast"]["post"]["requestBody"]["content"]["application/json"]["schema"]["properties"]) \
        == {*CAST_FIELDS, "lang"}
    for path in doc["paths"]:
        concrete = path.replace("{id}", "case-wealth-severed-sibling-moves").replace(
            "/api/passages/case-wealth-severed-sibling-moves", "/api/passages/ch-000-yushi-case-wealth-severed-sibling-moves")
        query = urllib.parse.urlencode(JIE) if path in ("/api/cast", "/api/why") else ""
        r = api.handle("GET", concrete, query, b"")
        assert r.status == 200, (path, r.body[:200])


def test_an_unknown_api_path_is_a_json_404(api):
    status, data = call(api, "GET", "/api/nothing")
    assert status == 404 and "openapi.json" in data["error"]


@pytest.mark.server
def test_the_api_and_reader_are_served_over_http_beside_the_endpoint():
    kg = KnowledgeGraph()
    server = make_server(kg.store, "127.0.0.1", 0, kg=kg)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d" % server.server_address[1]
    try:
        req = urllib.request.Request(base + "/api/cast", data=json.dumps(JIE).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req) as r:
            assert r.headers["Content-Type"] == "application/json" and json.load(r)["primary"]["name"] == "節"
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(urllib.request.Request(base + "/api/cast", data=b"{", method="POST",
                                                          headers={"Content-Type": "application/json"}))
        assert e.value.code == 400 and "not JSON" in json.load(e.value)["error"]
        page = urllib.request.Request(base + "/cast?" + urllib.parse.urlencode(JIE), headers={"Accept": "text/html"})
        with urllib.request.urlopen(page) as r:
            assert r.headers["Content-Type"].startswith("text/html") and b"/web/app.js" in r.read()
        with urllib.request.urlopen(base + "/web/app.js") as r:
            assert r.headers["Content-Type"].startswith("text/javascript")
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(base + "/web/..%2Fapi.py")
        assert e.value.code == 404
        sd = urllib.request.Request(base + "/", headers={"Accept": "text/turtle"})
        with urllib.request.urlopen(sd) as r:  # the endpoint's own answer at / is unchanged for SPARQL clients
            assert b"sd:Service" in r.read()
    finally:
        server.shutdown()
        server.server_close()


def test_why_traces_a_cast_given_without_month_or_day(api):
    status, data = call(api, "GET", "/api/why", urllib.parse.urlencode({"spec": "節", "line": "3"}))
    assert status == 200 and (data["month"], data["day"]) == (None, None)
    assert [s["term"] for s in data["line"]["states"]] == ["退神"]
