"""The `liuyao` command, run as a user would, in-process (argument parsing through output)."""
from __future__ import annotations

import json

import pytest

from liuyao_kg.cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cast_prints_the_chart_top_line_first_with_spirits_relatives_and_changes(capsys):
    code, out, _ = run(capsys, "cast", "節之中孚", "--month", "寅", "--day", "辛亥", "--topic", "求財")
    assert code == 0
    rows = out.splitlines()
    assert rows[0].startswith("節（坎宮水 一世") and "之 中孚（艮宮土 遊魂）" in rows[0]
    assert "旬空 寅卯" in rows[1]
    assert "螣蛇" in rows[3] and "兄弟戊子水" in rows[3] and "×" in rows[3] and "子孫辛卯木" in rows[3]
    assert "白虎" in rows[8] and "妻財丁巳火" in rows[8] and "世" in rows[8]
    assert "卦: 獨發 爻6" in out


def test_cast_json_has_the_stable_shape(capsys):
    code, out, _ = run(capsys, "cast", "大畜之小畜", "--month", "午", "--day", "己巳", "--format", "json")
    chart = json.loads(out)
    assert code == 0
    assert set(chart) >= {"primary", "changed", "month", "day", "void", "lines", "relations", "states"}
    line5 = chart["lines"][4]
    assert set(line5) >= {"position", "stem", "branch", "element", "nayin", "relative", "spirit", "moving", "roles",
                          "stage_day", "stage_month", "strength", "hidden", "hidden_palace", "change", "states"}
    assert {"月破", "化絕"} <= {s["term"] for s in line5["states"]}


@pytest.mark.parametrize("fmt, marker", [("turtle", "@prefix lyo:"), ("json-ld", '"@graph"')])
def test_cast_rdf_formats_include_the_inferred_graph(capsys, fmt, marker):
    code, out, _ = run(capsys, "cast", "否之臨", "--month", "寅", "--day", "己亥", "--format", fmt)
    assert code == 0 and marker in out
    assert "/inferred" in out and "MonthBroken" in out


@pytest.mark.parametrize("argv, message", [
    (["cast", "節x", "--month", "寅", "--day", "辛亥"], "unknown hexagram"),
    (["cast", "787985", "--month", "寅", "--day", "辛亥"], "line value 5 at position 6"),
    (["cast", "節", "--month", "寅", "--day", "甲丑"], "甲丑 is not one of the 60 jiazi"),
    (["cast", "節之坤", "--lines", "787986", "--month", "寅", "--day", "辛亥"], "disagree"),
    (["cast", "節", "--date", "2024-02-30T10:00+08:00"], "not an ISO 8601 date-time"),
    (["query", "no-such-query"], "no query named"),
    (["query", "line-states", "--param", "cast=not an iri", "--param", "position=1"], "absolute IRI"),
])
def test_bad_input_exits_2_with_a_message_naming_the_problem(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err


def test_query_runs_a_named_query_with_bound_parameters(capsys, tmp_path):
    store = str(tmp_path / "kg")
    run(capsys, "cast", "大畜之小畜", "--month", "午", "--day", "己巳", "--topic", "求財", "--store", store)
    run(capsys, "cast", "大畜之小畜", "--month", "子", "--day", "己巳", "--topic", "求財", "--store", store)
    code, out, _ = run(capsys, "query", "casts-where-use-god", "--param", "first=月破",
                       "--param", "second=化絕", "--format", "json", "--store", store)
    rows = json.loads(out)
    # Only the 午-month cast breaks the 子 wealth line (line 5); the 子-month one does not.
    assert code == 0 and [(r["topic"], r["position"]) for r in rows] == [("求財", 5)]


def test_a_parameter_value_cannot_change_the_query(capsys):
    sneaky = '甲子" } UNION { ?p ?q ?r } #'
    code, out, err = run(capsys, "query", "nayin", "--param", f"gz={sneaky}", "--format", "json")
    assert code == 0 and json.loads(out) == []


def test_load_reports_loaded_skipped_and_rejected_casts(capsys, tmp_path):
    batch = tmp_path / "casts.jsonl"
    batch.write_text("\n".join([
        json.dumps({"id": "a", "spec": "節之中孚", "month": "寅", "day": "辛亥"}, ensure_ascii=False),
        json.dumps({"id": "b", "spec": "787985", "month": "寅", "day": "辛亥"}),
        json.dumps({"id": "c", "spec": "否之臨", "month": "寅", "day": "己亥"}, ensure_ascii=False),
    ]), encoding="utf-8")
    store = tmp_path / "store"
    code, out, _ = run(capsys, "load", str(batch), "--store", str(store))
    report = json.loads(out)
    assert code == 0 and report["loaded"] == ["a", "c"] and [r["id"] for r in report["rejected"]] == ["b"]
    code, out, _ = run(capsys, "load", str(batch), "--store", str(store))
    assert json.loads(out)["skipped"] == ["a", "c"]


def test_load_with_abort_loads_nothing_when_one_cast_is_bad(capsys, tmp_path):
    batch = tmp_path / "casts.jsonl"
    batch.write_text('{"id": "a", "spec": "787986", "month": "寅", "day": "辛亥"}\n'
                     '{"id": "b", "spec": "787986", "month": "寅", "day": "甲丑"}\n', encoding="utf-8")
    code, out, err = run(capsys, "load", str(batch), "--store", str(tmp_path / "s"), "--on-error", "abort")
    assert code == 2 and "甲丑" in err
    code, out, _ = run(capsys, "query", "casts-where-use-god", "--param", "first=月破", "--param", "second=月破",
                       "--store", str(tmp_path / "s"), "--format", "json")
    assert json.loads(out) == []


def test_rules_coverage_reports_per_chapter_and_totals(capsys):
    code, out, _ = run(capsys, "rules", "coverage", "--format", "json")
    report = json.loads(out)
    assert code == 0
    assert report["total"]["rules"] == sum(c["rules"] for c in report["chapters"])
    assert report["total"]["rules"] == report["total"]["executable"] + report["total"]["not_executable"]


def test_why_traces_a_line_state_to_its_rule_and_quote(capsys):
    code, out, _ = run(capsys, "why", "大畜之小畜", "--month", "午", "--day", "己巳", "--line", "5")
    assert code == 0
    assert "月破 ← rule https://w3id.org/liuyao-kg/rule/MonthBroken" in out
    assert "000_611f20e21d588b1f.txt" in out or "001_ae0d597f985cbbc0.txt" in out


@pytest.mark.parametrize("fmt, marker", [("graphml", "<graphml"), ("dot", "digraph rules")])
def test_the_rule_dependency_graph_exports(capsys, fmt, marker):
    code, out, _ = run(capsys, "rules", "graph", "--format", fmt)
    assert code == 0 and marker in out and "rule/MonthBroken" in out


def test_store_and_endpoint_are_exclusive(capsys):
    with pytest.raises(SystemExit) as e:
        main(["query", "nayin", "--param", "gz=甲子", "--store", "x", "--endpoint", "http://127.0.0.1:9/sparql"])
    assert e.value.code == 2 and "not allowed with" in capsys.readouterr().err


def test_an_unreachable_endpoint_exits_1_without_showing_the_credentials(capsys, monkeypatch):
    monkeypatch.setenv("LIUYAO_ENDPOINT_PASSWORD", "hunter2-env")
    code, out, err = run(capsys, "query", "nayin", "--param", "gz=甲子",
                         "--endpoint", "http://alice:hunter2-url@127.0.0.1:9/sparql")
    assert code == 1 and out == "" and "liuyao: error: SPARQL query on http://127.0.0.1:9/sparql failed" in err
    assert "hunter2" not in err and "alice" not in err


def test_topics_lists_the_question_scheme_with_use_gods_and_sources(capsys):
    code, out, _ = run(capsys, "topics")
    assert code == 0
    assert "天時  weather / 천시" in out and "\n  晴  fair weather" in out and "\n    武試" in out
    assert "用神: 占婚姻（女）以官鬼為用神 「男占婦以財為主，女占夫以鬼為主」" in out
    assert "standard convention, not in the seeds" in out  # 黃金策's weather reading is named as such


def test_cast_without_a_date_prints_what_was_not_computed(capsys):
    code, out, _ = run(capsys, "cast", "姤之鼎", "--topic", "葬地")
    assert code == 0 and "無月日" in out and "no day given: 旬空" in out
    assert "占 葬地  用神 爻1 — 占葬地以世為用神" in out
    code, out, _ = run(capsys, "cast", "姤之鼎", "--topic", "葬地", "--format", "json")
    chart = json.loads(out)
    assert chart["time"] is None and chart["use_god"]["lines"] == [1]


def test_unknown_question_is_an_error_listing_the_scheme(capsys):
    code, _, err = run(capsys, "cast", "乾", "--topic", "算命")
    assert code == 2 and "unknown question '算命'" in err and "⊃晴" in err and "Traceback" not in err


def test_use_god_chosen_by_the_user_is_said_so(capsys):
    code, out, _ = run(capsys, "cast", "乾", "--month", "寅", "--day", "甲子", "--topic", "晴雨", "--use-god", "3")
    assert code == 0 and "占 天時  用神 爻3 — chosen by the user" in out
