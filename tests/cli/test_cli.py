"""The `liuyao` command, run as a user would, in-process (argument parsing through output)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from liuyao_kg.cli import main
from liuyao_kg.load import engine_for, settings


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cast_prints_the_chart_top_line_first_with_spirits_relatives_and_changes(capsys):
    code, out, _ = run(capsys, "cast", "節之中孚", "--month", "寅", "--day", "辛亥", "--topic", "求財")
    assert code == 0
    assert out.startswith("斷：凶中有吉")  # the reading opens the chart (docs/reading.md)
    rows = out.splitlines()
    rows = rows[next(i for i, r in enumerate(rows) if r.startswith("節（")):]
    assert rows[0].startswith("節（坎宮水 一世") and "之 中孚（艮宮土 遊魂；互頤 錯小過 綜中孚）" in rows[0]
    assert "旬空 寅卯" in rows[1]
    assert "螣蛇" in rows[3] and "兄弟戊子水" in rows[3] and "×" in rows[3] and "子孫辛卯木" in rows[3]
    assert "白虎" in rows[8] and "妻財丁巳火" in rows[8] and "世" in rows[8]
    assert "卦：獨發 上爻" in out


def test_cast_json_has_the_stable_shape(capsys):
    code, out, _ = run(capsys, "cast", "大畜之小畜", "--month", "午", "--day", "己巳", "--format", "json")
    chart = json.loads(out)
    assert code == 0
    assert set(chart) >= {"primary", "changed", "month", "day", "void", "lines", "relations", "states"}
    line5 = chart["lines"][4]
    assert set(line5) >= {"position", "stem", "branch", "element", "nayin", "relative", "spirit", "moving", "roles",
                          "stage_day", "stage_month", "strength", "hidden", "hidden_palace", "change", "states"}
    assert {"月破", "化絕"} <= {s["term"] for s in line5["states"]}


@pytest.mark.parametrize("fmt, marker", [("trig", "@prefix lyo:"), ("nquads", "> <"), ("json-ld", '"@graph"')])
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
    code, out, err = run(capsys, *argv, "--lang", "en")  # the English message, the most detailed
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
    code, out, err = run(capsys, "load", str(batch), "--store", str(tmp_path / "s"), "--on-error", "abort",
                           "--lang", "en")
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
    assert "月破 ← 規則 https://w3id.org/liuyao-kg/rule/MonthBroken" in out
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
                         "--endpoint", "http://alice:hunter2-url@127.0.0.1:9/sparql", "--lang", "en")
    assert code == 1 and out == "" and "liuyao: error: SPARQL query on http://127.0.0.1:9/sparql failed" in err
    assert "hunter2" not in err and "alice" not in err


def test_turtle_is_one_graph_without_graph_names(capsys):
    code, out, _ = run(capsys, "cast", "否之臨", "--month", "寅", "--day", "己亥", "--format", "turtle")
    assert code == 0 and "@prefix lyo:" in out and "MonthBroken" in out
    assert "/inferred" not in out and "{" not in out


def test_version_names_the_package(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.startswith("liuyao-kg 0.")


def test_judgments_on_the_chart_end_with_the_rule_id_that_why_accepts(capsys):
    argv = ["節之中孚", "--month", "寅", "--day", "辛亥", "--topic", "求財"]
    _, out, _ = run(capsys, "cast", *argv)
    row = next(r for r in out.splitlines() if "理不應得" in r)
    rule_id = row.rsplit("(", 1)[1].rstrip(")")
    assert rule_id == "case-wealth-severed-sibling-moves"
    code, by_id, _ = run(capsys, "why", *argv, "--rule", rule_id)
    code2, by_text, _ = run(capsys, "why", *argv, "--rule", "理不應得")
    assert code == code2 == 0 and by_id == by_text and "did not fire" not in by_id
    assert "巳財絕於亥日，兄動奪之，理不應得" in by_id


def test_why_json_traces_the_judgment_to_its_lines_and_passage(capsys):
    code, out, _ = run(capsys, "why", "節之中孚", "--month", "寅", "--day", "辛亥", "--topic", "求財",
                       "--rule", "理不應得", "--format", "json")
    data = json.loads(out)
    (j,) = data["judgments"]
    assert code == 0 and j["id"] == "case-wealth-severed-sibling-moves" and j["polarity"] == "凶"
    assert j["source"]["quote"] == "巳財絕於亥日，兄動奪之，理不應得" and j["source"]["korean"]
    assert [ln["facts"]["position"] for ln in j["lines"]] == [1, 6]


def test_why_of_a_rule_that_did_not_fire_says_so(capsys):
    code, out, _ = run(capsys, "why", "節之中孚", "--month", "寅", "--day", "辛亥", "--topic", "求財",
                       "--rule", "no-such-rule", "--lang", "en")
    assert code == 0 and "rule no-such-rule did not fire on this cast" in out


@pytest.mark.parametrize("lang, heading, polarity, term", [
    ("en", "Judgments", "[inauspicious]", "month-broken"), ("ko", "판단", "[흉]", "월파"), ("zh", "斷", "[凶]", "月破")])
def test_the_text_chart_speaks_the_chosen_language(capsys, lang, heading, polarity, term):
    code, out, _ = run(capsys, "cast", "否之臨", "--month", "寅", "--day", "己亥", "--topic", "求財", "--lang", lang)
    headings = [l for l in out.splitlines() if l.startswith(heading) and not l.startswith(heading + ":")]  # not the verdict
    assert code == 0 and headings and polarity in out and term in out
    if lang != "zh":
        assert "neutral" not in out or lang == "en"


@pytest.mark.parametrize("lang, verdict, because, timing", [
    ("en", "Verdict: inauspicious, with a hope", "  because overcome by the day (line 1) — 黃金策「日傷爻",
     "Timing: Zi (子) day, Chou (丑) day"),
    ("ko", "판단: 흉중유길", "  근거 일극 (초효) — 黃金策「日傷爻", "응기: 子일, 丑일"),
    ("zh", "斷：凶中有吉", "  因 日克（初爻） — 黃金策「日傷爻", "應期：子日、丑日")])
def test_the_reading_that_opens_the_chart_speaks_the_chosen_language(capsys, lang, verdict, because, timing):
    _, out, _ = run(capsys, "cast", "節之中孚", "--month", "寅", "--day", "辛亥", "--topic", "求財", "--lang", lang)
    head = out.splitlines()[:6]
    assert head[0].startswith(verdict) and head[1].startswith(because) and head[5].startswith(timing)


def test_zh_chart_has_no_english_school_ids_or_polarity(capsys):
    _, out, _ = run(capsys, "cast", "節之中孚", "--month", "寅", "--day", "辛亥", "--topic", "求財")
    assert "HuoZhuLinSeasons" not in out and "[neutral]" not in out and "火珠林四時旺衰" in out


def test_chart_columns_align_by_east_asian_width(capsys):
    from liuyao_kg.chart.table import display_width as _width

    _, out, _ = run(capsys, "cast", "節之中孚", "--month", "寅", "--day", "辛亥", "--lang", "en")
    rows = [r for r in out.splitlines() if "▅" in r]  # the six lines, wherever the reading header ends
    assert len(rows) == 6
    bars = {_width(r[:r.index("▅")]) for r in rows}
    assert len(bars) == 1


def test_coins_give_the_line_values_by_the_three_coin_convention(capsys):
    # H = 字 (2), T = 背 (3): HHT 7, HTT 8, TTT 9, HHH 6
    _, by_coins, _ = run(capsys, "cast", "--coins", "HHT,HTT,TTT,HHH,字字背,背背字", "--month", "寅", "--day", "辛亥",
                         "--format", "json")
    _, by_values, _ = run(capsys, "cast", "789678", "--month", "寅", "--day", "辛亥", "--format", "json")
    assert json.loads(by_coins) == json.loads(by_values)


def test_a_seeded_random_cast_is_the_same_cast_each_time(capsys):
    argv = ["cast", "--random", "--seed", "7", "--month", "寅", "--day", "辛亥", "--format", "json", "--lang", "en"]
    _, first, err = run(capsys, *argv)
    _, second, _ = run(capsys, *argv)
    assert json.loads(first)["cast"] == json.loads(second)["cast"] and "coins " in err


@pytest.mark.parametrize("argv, message", [
    (["cast", "--coins", "HHT,HTT", "--month", "寅", "--day", "辛亥"], "six tosses"),
    (["cast", "--coins", "HHX,HTT,TTT,HHH,HHT,HHT", "--month", "寅", "--day", "辛亥"], "at line 1"),
    (["cast", "節", "--coins", "HHT,HTT,TTT,HHH,HHT,HHT", "--month", "寅", "--day", "辛亥"], "exactly one of"),
    (["cast", "節", "--seed", "3", "--month", "寅", "--day", "辛亥"], "--seed goes with --random"),
    (["why", "節", "--month", "寅", "--day", "辛亥", "--line", "7"], "1 (bottom) … 6 (top)"),
])
def test_bad_people_input_exits_2_naming_the_problem(capsys, argv, message):
    code, out, err = run(capsys, *argv, "--lang", "en")  # the English message, the most detailed
    assert code == 2 and out == "" and message in err


def test_a_dated_cast_shows_its_hour_pillar(capsys):
    _, out, _ = run(capsys, "cast", "節之中孚", "--date", "2024-02-04T16:28:00+08:00")
    lines = out.splitlines()
    title = next(i for i, l in enumerate(lines) if l.startswith("節（"))  # after the reading's header
    assert lines[title + 1].startswith("甲辰年 丙寅月 戊戌日 庚申時")
    _, out, _ = run(capsys, "cast", "節之中孚", "--date", "2024-02-04T16:28:00+08:00", "--format", "json")
    assert json.loads(out)["hour"] == {"stem": "庚", "branch": "申", "element": "金", "relative": "父母"}


def test_topics_lists_the_question_scheme_with_use_gods_and_sources(capsys):
    code, out, _ = run(capsys, "topics")
    assert code == 0
    assert "\n天時  （天文、天时、天氣）\n" in out and "\n  晴  （占晴、晴天、開晴）\n" in out and "\n    武試  （武舉、武试）\n" in out
    assert "\n    占婚姻（女）以官鬼為用神 「男占婦以財為主，女占夫以鬼為主」" in out
    assert "（通行之法，非出種子典籍）" in out  # 黃金策's weather reading is named as such
    code, en, _ = run(capsys, "topics", "--lang", "en")
    assert "\nweather  (" in en and "\n  fair weather" in en and "standard convention, not in the seeds" in en


def test_cast_without_a_date_prints_what_was_not_computed(capsys):
    code, out, _ = run(capsys, "cast", "姤之鼎", "--topic", "葬地")
    assert code == 0 and "無月日" in out and "未給日：旬空" in out
    assert "占 葬地  用神 初爻 — 占葬地以世為用神" in out
    code, out, _ = run(capsys, "cast", "姤之鼎", "--topic", "葬地", "--format", "json")
    chart = json.loads(out)
    assert chart["time"] is None and chart["use_god"]["lines"] == [1]


def test_unknown_question_is_an_error_listing_the_scheme(capsys):
    code, _, err = run(capsys, "cast", "乾", "--topic", "算命", "--lang", "en")
    assert code == 2 and "unknown question '算命'" in err and "⊃晴" in err and "Traceback" not in err


def test_use_god_chosen_by_the_user_is_said_so(capsys):
    code, out, _ = run(capsys, "cast", "乾", "--month", "寅", "--day", "甲子", "--topic", "天氣", "--use-god", "3")
    assert code == 0 and "占 天時  用神 三爻 — 自定" in out


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_cast_derived_on_the_reference_prints_what_the_default_engine_prints(capsys, fmt):
    argv = ("cast", "大畜之小畜", "--month", "午", "--day", "己巳", "--topic", "婚姻", "--format", fmt)
    code, default, _ = run(capsys, *argv)
    code_reference, reference, _ = run(capsys, *argv, "--backend", "oxigraph")
    assert code == code_reference == 0
    if fmt == "json":  # each run mints its own cast IRI
        default, reference = json.loads(default), json.loads(reference)
        default.pop("cast"), reference.pop("cast")
    assert reference == default


def test_serve_and_load_open_their_store_with_the_backend_named(tmp_path):
    from liuyao_kg.cli import _graph, build_parser
    from liuyao_kg.reasoner.engine import Engine

    for argv in (["serve", "--backend", "oxigraph"], ["load", "x.jsonl", "--store", str(tmp_path / "kg"), "--backend", "oxigraph"]):
        args = build_parser().parse_args(argv)
        kg = _graph(args)
        try:
            assert settings(kg)[1] == "oxigraph" and isinstance(engine_for(kg), Engine)
        finally:
            kg.close()


def test_a_parquet_load_by_the_reference_engine_writes_the_rows_the_native_engine_writes(capsys, tmp_path):
    import pyarrow.parquet as pq

    def rows(directory, name):
        return sorted(repr(sorted(r.items())) for f in directory.glob(f"{name}-*.parquet")
                      for r in pq.read_table(f).to_pylist())

    batch = Path(__file__).resolve().parents[1] / "data" / "batches" / "casts.jsonl"
    for backend in ("oxigraph", "native"):
        code, out, err = run(capsys, "load", str(batch), "--parquet", str(tmp_path / backend), "--backend", backend)
        assert code == 0, err
    for name in ("states", "judgments", "casts"):
        assert rows(tmp_path / "oxigraph", name) == rows(tmp_path / "native", name) != []


def test_a_parquet_load_takes_jobs_or_a_cluster_not_both(capsys, tmp_path):
    batch = Path(__file__).resolve().parents[1] / "data" / "batches" / "casts.jsonl"
    code, out, err = run(capsys, "load", str(batch), "--parquet", str(tmp_path / "p"), "--cluster", "local:2", "--jobs", "2",
                         "--lang", "en")
    assert code == 2 and "--jobs with --cluster" in err and not (tmp_path / "p").exists()
    code, out, err = run(capsys, "load", str(batch), "--parquet", str(tmp_path / "p"), "--jobs", "0", "--lang", "en")
    assert code == 2 and "--jobs 0: a number of jobs ≥ 1" in err and not (tmp_path / "p").exists()


def test_a_partition_size_needs_at_least_one_cast(capsys, tmp_path):
    batch = Path(__file__).resolve().parents[1] / "data" / "batches" / "casts.jsonl"
    code, out, err = run(capsys, "load", str(batch), "--parquet", str(tmp_path / "p"), "--partition", "0",
                         "--lang", "en")
    assert code == 2 and "--partition 0: a number of casts ≥ 1" in err and not (tmp_path / "p").exists()
