"""`liuyao mcp`: the SDK's own client lists the tools, casts, asks why, lists the questions and runs a named query;
bad input is a tool error naming the problem (the API's and the CLI's message), and the server keeps serving."""
from __future__ import annotations

import re
import sys

import anyio
import pytest
from mcp import Client, StdioServerParameters

import liuyao_kg
from liuyao_kg import queries
from liuyao_kg.serve.api import CAST_FIELDS
from liuyao_kg.serve.mcp import QUERY_PREFIX, server

JIE = {"spec": "節之中孚", "month": "寅", "day": "辛亥", "topic": "求財"}


@pytest.fixture(scope="module")
def app():
    return server(liuyao_kg.default_graph())


def session(app, *calls):
    """The answers of the calls [(tool, arguments)] (or "list" for tools/list) over one in-memory client session."""
    async def go():
        out = []
        async with Client(app) as client:
            for call in calls:
                out.append(await (client.list_tools() if call == "list" else client.call_tool(*call)))
        return out
    return anyio.run(go)


def test_the_tools_are_cast_why_topics_and_every_named_query(app):
    (listed,) = session(app, "list")
    tools = {t.name: t for t in listed.tools}
    assert {"cast", "why", "topics"} | {QUERY_PREFIX + name for name in queries.catalogue()} == set(tools)
    assert set(tools["cast"].input_schema["properties"]) == {*CAST_FIELDS, "lang"}
    assert tools["cast"].output_schema["$defs"]["Chart"] and tools["cast"].output_schema["type"] == "object"
    assert tools[QUERY_PREFIX + "line-states"].input_schema["required"] == ["cast", "position"]


def test_cast_reads_in_plain_words_and_gives_the_chart_as_structured_content(app):
    zh, en = session(app, ("cast", JIE), ("cast", {**JIE, "lang": "en"}))
    assert not zh.is_error and not en.is_error
    chart = zh.structured_content  # the client checked it against the tool's output schema (the API's Chart)
    assert chart["verdict"]["polarity"] == "凶中有吉" and chart["primary"]["name"] == "節"
    assert zh.content[0].text.splitlines()[0] == "斷：凶中有吉" and "用神" in zh.content[0].text
    assert en.content[0].text.splitlines()[0] == "Verdict: inauspicious, with a hope" and "Use-god: " in en.content[0].text
    assert chart["reading"]["lang"] == "zh-Hant" and en.structured_content["reading"]["lang"] == "en"


@pytest.mark.parametrize("arguments, field, message", [
    ({"spec": "787985", "month": "寅", "day": "辛亥"}, "spec", "line value 5 at position 6: must be 6, 7, 8 or 9"),
    ({"spec": "節", "month": "寅", "day": "甲丑"}, "day", "甲丑 is not one of the 60 jiazi"),
    ({"spec": 787986, "month": "寅", "day": "辛亥"}, "spec", "field spec must be a string"),
    ({"spec": "節", "colour": "red"}, "colour", "unknown field(s) colour"),
    ({**JIE, "lang": "fr"}, "lang", "language 'fr'"),
])
def test_bad_cast_input_is_a_tool_error_naming_the_field(app, capsys, arguments, field, message):
    bad, good = session(app, ("cast", {"lang": "en", **arguments}), ("cast", JIE))
    assert bad.is_error and message in bad.content[0].text and bad.structured_content["field"] == field
    assert not good.is_error  # the server keeps serving
    if field in ("spec", "day") and isinstance(arguments["spec"], str):  # the CLI says the same
        from liuyao_kg.cli import main

        assert main(["cast", arguments["spec"], "--month", "寅", "--day", arguments["day"], "--lang", "en"]) == 2
        assert message in capsys.readouterr().err


def test_why_traces_a_line_and_refuses_a_position_outside_1_to_6(app):
    line, bad = session(app, ("why", {**JIE, "line": 1}), ("why", {**JIE, "line": 9, "lang": "en"}))
    assert not line.is_error and line.structured_content["line"]["facts"]["relative"] == "妻財"
    assert bad.is_error and "line 9: a line position is 1 (bottom) … 6 (top)" in bad.content[0].text
    assert bad.structured_content["field"] == "line"


def test_topics_lists_the_questions_with_their_use_gods(app):
    (answer,) = session(app, ("topics", {}))
    wealth = next(t for t in answer.structured_content["topics"] if t["zh"] == "求財")
    assert wealth["en"] == "seeking wealth" and wealth["use_god"] and "求財" in answer.content[0].text


def test_topics_speak_the_language_asked_and_refuse_other_arguments(app):
    en, other = session(app, ("topics", {"lang": "en"}), ("topics", {"topic": "求財"}))
    assert "seeking wealth" in en.content[0].text and not re.search(r"[\uac00-\ud7a3]", en.content[0].text)
    assert other.is_error and "topics takes only lang" in other.content[0].text


def test_a_named_query_binds_its_parameters_and_refuses_unknown_ones_by_name(app):
    ok, unknown, missing = session(app, (QUERY_PREFIX + "nayin", {"gz": "甲子"}),
                                   (QUERY_PREFIX + "nayin", {"gz": "甲子", "x": "1"}),
                                   (QUERY_PREFIX + "line-states", {"cast": "https://w3id.org/liuyao-kg/cast/x"}))
    assert ok.structured_content["rows"] == [{"gz": "甲子", "nayin": "海中金", "element": "金"}]
    assert unknown.is_error and unknown.content[0].text == "query 'nayin' has no parameter 'x' (parameters: gz)"
    assert missing.is_error and "needs parameter(s): position" in missing.content[0].text


def test_an_iri_parameter_cannot_inject_sparql(app):
    (answer,) = session(app, (QUERY_PREFIX + "cast-judgments", {"cast": "urn:x> } ; DROP ALL ; #"}))
    assert answer.is_error and "must be an absolute IRI" in answer.content[0].text


def test_liuyao_mcp_serves_the_sdks_stdio_client():
    params = StdioServerParameters(command=sys.executable, args=["-m", "liuyao_kg.cli", "mcp"])

    async def go():
        async with Client(params) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            cast = await client.call_tool("cast", {**JIE, "lang": "en"})
            bad = await client.call_tool("cast", {"spec": "節", "month": "寅", "day": "甲丑", "lang": "en"})
            return names, cast, bad

    names, cast, bad = anyio.run(go)
    assert {"cast", "why", "topics", QUERY_PREFIX + "nayin"} <= names
    assert cast.structured_content["verdict"]["polarity"] == "凶中有吉"
    assert cast.content[0].text.startswith("Verdict: inauspicious, with a hope")
    assert bad.is_error and "甲丑 is not one of the 60 jiazi" in bad.content[0].text
