"""`liuyao eval`: the reading measured against recorded outcomes, without being told them.

The development set is ../shared/outcomes/buzheng_cases.yaml (卜筮正宗's cases, beside the repository, never
copied in); tests that need it skip, saying so, when it is absent. The flat records below are lines of that file.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import liuyao_kg
from liuyao_kg.cli import main
from liuyao_kg.rulebase.evaluate import EvalCaseError, build_report, evaluate, load_cases, score, summarise
from liuyao_kg.loaders.errors import CastInputError

ROOT = Path(__file__).resolve().parents[2]
DEV_SET = ROOT.parent / "shared" / "outcomes" / "buzheng_cases.yaml"
EVAL_CASES = ROOT / "tests" / "data" / "eval_cases.yaml"
needs_dev_set = pytest.mark.skipif(not DEV_SET.is_file(), reason="needs ../shared/outcomes (the development set)")

#: three records of the development set, as the file has them
FLAT = """\
- {id: BZ012, source: "bigcan/meihua-yishu:references/classics/buzheng-zhengzong/juan3.md#L1362", chapter: 十八問答附占驗 第四問, month: 丑, day: 己卯, primary: 乾, changed: 賁, question: 占父急病, topic: 疾病, about: 父母, verdict: 吉, use_god: 父母, use_god_line: 6, yingqi: [辰, 日], detail: 必待明日辰日合逄衝而愈也．果驗}
- {id: BZ031, source: "bigcan/meihua-yishu:references/classics/buzheng-zhengzong/juan4.md#L210", chapter: 十八問答附占驗 第十問, month: 酉, day: 庚戌, primary: 屯, changed: 節, question: 占何年生子, topic: 產育, verdict: 吉, yingqi: [寅, 年], detail: 後至寅年卯月妻婢生二子}
- {id: BZ050, source: "bigcan/meihua-yishu:references/classics/buzheng-zhengzong/juan4.md#L768", chapter: 十八問答附占驗 第十三問, month: 子, day: 己巳, primary: 坤, changed: null, question: 占賭錢, topic: 求財, verdict: 凶, detail: 果輸不多，因爭錢而散}
"""
#: the same records with every answer changed (verdict, yingqi, the book's use-god)
FLAT_OTHER_ANSWERS = (FLAT.replace("verdict: 吉", "verdict: X").replace("verdict: 凶", "verdict: 吉")
                      .replace("verdict: X", "verdict: 凶").replace("yingqi: [辰, 日]", "yingqi: [戌, 月]")
                      .replace("yingqi: [寅, 年]", "yingqi: [申, 日]").replace("use_god: 父母, use_god_line: 6",
                                                                           "use_god: 官鬼, use_god_line: 2"))
#: the same records with the answers removed
FLAT_NO_ANSWERS = "\n".join(line.split(", verdict:")[0] + "}" for line in FLAT.splitlines()) + "\n"


def _write(tmp_path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


@pytest.fixture
def recorded_casts(monkeypatch):
    """liuyao_kg.cast replaced by a recorder answering a minimal chart; yields the list of (args, kwargs)."""
    calls = []

    def fake_cast(*args, **kwargs):
        calls.append((args, {k: v for k, v in kwargs.items() if k != "kg"}))
        return {"verdict": {"polarity": "吉", "favourable": True}, "timing": [{"branch": "辰", "unit": "日"}],
                "use_god": {"relative": "父母", "lines": [6]}}
    monkeypatch.setattr(liuyao_kg, "cast", fake_cast)
    return calls


# ------------------------------------------------------------------------------------------ the cast's inputs

def test_the_cast_is_given_the_question_only_never_the_answer(tmp_path, recorded_casts):
    cases = load_cases(_write(tmp_path, "flat.yaml", FLAT)) + load_cases(EVAL_CASES)
    evaluate(cases, kg=object())
    assert len(recorded_casts) == 3 + 8
    for args, kwargs in recorded_casts:
        assert len(args) == 1  # the spec
        assert set(kwargs) <= {"month", "day", "year", "topic", "about"}
    assert recorded_casts[0] == (("乾之賁",), {"month": "丑", "day": "己卯", "year": None, "topic": "疾病",
                                               "about": "父母"})
    bo = recorded_casts[-1]  # yimao-rank-bo: recorded unit 年, which the cast must not be told
    assert bo == (("剝之晉",), {"month": "巳", "day": "甲戌", "year": "壬午", "topic": "功名", "about": None})


def test_changing_or_removing_the_answers_leaves_the_casts_identical(tmp_path, recorded_casts):
    eval_other = EVAL_CASES.read_text(encoding="utf-8").replace("horizon: 日", "horizon: 月").replace(
        "polarity: 吉", "polarity: 凶").replace("branch: 子", "branch: 亥")
    runs = [(FLAT, EVAL_CASES.read_text(encoding="utf-8")), (FLAT_OTHER_ANSWERS, eval_other),
            (FLAT_NO_ANSWERS, eval_other)]
    seen = []
    for i, (flat, ev) in enumerate(runs):
        cases = load_cases(_write(tmp_path, f"flat{i}.yaml", flat)) + load_cases(_write(tmp_path, f"ev{i}.yaml", ev))
        recorded_casts.clear()
        evaluate(cases, kg=object())
        seen.append(list(recorded_casts))
    assert cases[0]["outcome_polarity"] is None and load_cases(tmp_path / "flat1.yaml")[0]["outcome_polarity"] == "凶"
    assert seen[0] == seen[1] == seen[2]


def test_every_case_casts_on_the_one_graph_it_is_given(tmp_path, monkeypatch):
    graphs = []
    monkeypatch.setattr(liuyao_kg, "cast", lambda spec, **kw: graphs.append(kw["kg"]) or {"verdict": {}, "timing": []})
    kg = object()
    evaluate(load_cases(EVAL_CASES), kg=kg)
    assert graphs == [kg] * 8


def test_a_cast_that_refuses_its_input_is_a_refusal_not_a_crash(tmp_path):
    flat = FLAT.splitlines()[0].replace("about: 父母", "about: 嫂嫂的表姐")
    report = evaluate(load_cases(_write(tmp_path, "one.yaml", flat + "\n")))
    (row,) = report["rows"]
    assert row["refused"]["stage"] == "cast" and "嫂嫂的表姐" in row["refused"]["reason"]
    assert report["all"]["refusals"]["cases"][0]["id"] == "BZ012"
    assert report["all"]["direction"]["of"] == 0 and report["all"]["direction_incl_refused"] == {
        "n": 0, "of": 1, "rate": 0.0}


# ------------------------------------------------------------------------------------------ the metrics (pure)

def _case(cid, polarity, branch=None, unit=None, topic="求財", use_god=None, line=None):
    return {"id": cid, "set": "s", "spec": "乾", "topic": topic, "about": None, "outcome_polarity": polarity,
            "outcome_branch": branch, "outcome_unit": unit, "book_use_god": use_god, "book_use_god_line": line}


def _chart(verdict, *timing, reason=None, use_god=None):
    """A chart as liuyao_kg.cast gives it: the verdict term with its lean (lyo:favourable), the timing, the use-god."""
    lean = None if verdict is None else verdict in ("吉", "吉中有凶")
    return {"verdict": {"polarity": verdict, "favourable": lean, "reason": reason},
            "timing": [{"branch": t[0], "unit": t[1]} for t in timing], "use_god": use_god}


@pytest.fixture
def rows():
    return [
        # favourable and 吉: right; 午日 first (given twice: counted once)
        score(_case("a", "吉", "午", "日", use_god="父母", line=6),
              _chart("吉", "午日", "午日", "子日", use_god={"relative": "父母", "lines": [3, 6]})),
        # 吉中有凶 leans favourable, the outcome was 凶: wrong; 子 is first as a branch, 子月 third as branch+unit
        score(_case("b", "凶", "子", "月", use_god="官鬼"), _chart("吉中有凶", "子日", "丑日", "子月",
                                                               use_god={"relative": "父母", "lines": [2]})),
        # 不成 leans unfavourable: right; 寅 is not among the candidates
        score(_case("c", "凶", "寅", "日", topic=None), _chart("不成", "卯日")),
        # the cast refused: left out of direction, wrong in direction incl. refused
        score(_case("d", "凶"), error="unknown subject '嫂'"),
        # no verdict (no use-god): a refusal for the verdict, with the chart's reason
        score(_case("e", "吉"), _chart(None, reason="no use-god: the cast has no topic")),
    ]


def test_direction_leaves_refusals_out_and_direction_incl_refused_counts_them_wrong(rows):
    s = summarise(rows)
    assert s["direction"] == {"n": 2, "of": 3, "rate": 0.667, "refused": 2}
    assert s["direction_incl_refused"] == {"n": 2, "of": 5, "rate": 0.4}


def test_balanced_accuracy_is_the_mean_recall_on_ji_and_xiong_with_refusals_wrong(rows):
    b = summarise(rows)["balanced_accuracy"]
    assert b["recall"]["吉"] == {"n": 1, "of": 2, "rate": 0.5} and b["recall"]["凶"] == {"n": 1, "of": 3, "rate": 0.333}
    assert b["rate"] == round((1 / 2 + 1 / 3) / 2, 3)


def test_balanced_accuracy_is_undefined_when_one_polarity_is_absent(rows):
    s = summarise([r for r in rows if r["outcome_polarity"] == "吉"])
    assert s["balanced_accuracy"]["rate"] is None and s["majority_baseline"]["balanced_accuracy"] is None


def test_the_majority_baseline_answers_the_commoner_polarity(rows):
    assert summarise(rows)["majority_baseline"] == {"answer": "凶", "n": 3, "of": 5, "rate": 0.6,
                                                    "balanced_accuracy": 0.5}


def test_timing_hits_on_branch_and_unit_against_one_in_thirty_six(rows):
    t = summarise(rows)["timing"]["branch_unit"]
    assert t["cases"] == 3
    assert t["hit@1"] == {"n": 1, "of": 3, "rate": 0.333} and t["hit@3"] == {"n": 2, "of": 3, "rate": 0.667}
    # distinct (branch, unit) candidates: a 2, b 3, c 1
    assert t["random@1"] == round(1 / 36, 3) and t["random@3"] == round((2 + 3 + 1) / 3 / 36, 3)


def test_timing_hits_on_the_branch_alone_against_one_in_twelve(rows):
    t = summarise(rows)["timing"]["branch"]
    assert t["hit@1"] == {"n": 2, "of": 3, "rate": 0.667} and t["hit@3"] == {"n": 2, "of": 3, "rate": 0.667}
    # distinct branches: a 午子, b 子丑, c 卯
    assert t["random@1"] == round(1 / 12, 3) and t["random@3"] == round((2 + 2 + 1) / 3 / 12, 3)


def test_the_rank_of_the_true_branch_counts_the_candidates_not_found(rows):
    assert summarise(rows)["timing"]["rank"] == {"ranks": [1, 1], "median": 1, "not_found": 1}


def test_refusals_list_each_case_with_its_stage_and_reason(rows):
    r = summarise(rows)["refusals"]
    assert (r["count"], r["cast"], r["verdict"]) == (2, 1, 1)
    assert r["cases"] == [{"id": "d", "set": "s", "stage": "cast", "reason": "unknown subject '嫂'"},
                          {"id": "e", "set": "s", "stage": "verdict", "reason": "no use-god: the cast has no topic"}]


def test_use_god_agreement_compares_the_relative_and_the_line_where_the_book_names_them(rows):
    u = summarise(rows)["use_god_agreement"]
    assert u["relative"] == {"n": 1, "of": 2, "rate": 0.5} and u["line"] == {"n": 1, "of": 1, "rate": 1.0}


def test_the_report_has_a_summary_per_set_all_together_and_a_table_per_topic(rows):
    other = score({**_case("f", "吉"), "set": "t"}, _chart("吉"))
    report = build_report(rows + [other])
    assert list(report["sets"]) == ["s", "t"] and report["all"]["cases"] == 6
    topics = {t["topic"]: t for t in report["topics"]}
    assert topics["求財"]["cases"] == 5 and topics["—"]["cases"] == 1 and topics["求財"]["refused"] == 2
    assert topics["—"]["direction"]["rate"] == 1.0 and topics["—"]["hit@1"] == {"n": 0, "of": 1, "rate": 0.0}


# ------------------------------------------------------------------------------------------ malformed files

BZ = "{id: BZX, month: 丑, day: 己卯, primary: 乾, topic: 疾病"


@pytest.mark.parametrize("text, field, what", [
    (BZ + ", yingqi: [甲, 日]}", "yingqi", "outcome branch '甲'"),
    (BZ + ", yingqi: [辰, 時]}", "yingqi", "outcome unit '時'"),
    (BZ + ", yingqi: 辰}", "yingqi", "yingqi '辰' must be [branch, unit]"),
    (BZ + ", verdict: 好}", "verdict", "outcome polarity '好'"),
    (BZ + ", use_god: 用神}", "use_god", "use_god '用神'"),
    (BZ + ", use_god_line: 7}", "use_god_line", "use_god_line 7"),
    ("{id: BZX, month: 丑, day: 己卯, changed: 賁}", "primary", "primary is missing"),
    ("{id: BZX, day: 己卯, primary: 乾}", "month", "month is missing"),
    ("{id: BZX, month: 丑, primary: 乾}", "day", "day is missing"),
])
def test_a_malformed_development_record_names_the_case_and_the_field(tmp_path, text, field, what):
    with pytest.raises(EvalCaseError) as e:
        load_cases(_write(tmp_path, "bad.yaml", f"- {text}\n"))
    assert f"case BZX: {what}" in str(e.value) and f"(field `{field}`)" in str(e.value)


@pytest.mark.parametrize("change, field, what", [
    ("horizon: 日", "horizon", "outcome unit '時'"),
    ("polarity: 吉", "outcome.polarity", "outcome polarity '好'"),
    ("branch: 巳", "outcome.branch", "outcome branch '甲'"),
])
def test_a_malformed_eval_case_names_the_case_and_the_field(tmp_path, change, field, what):
    bad = {"horizon: 日": "horizon: 時", "polarity: 吉": "polarity: 好", "branch: 巳": "branch: 甲"}[change]
    text = EVAL_CASES.read_text(encoding="utf-8").replace(change, bad, 1)  # the first case: yimao-meet-time
    with pytest.raises(EvalCaseError) as e:
        load_cases(_write(tmp_path, "bad.yaml", text))
    assert f"case yimao-meet-time: {what}" in str(e.value) and f"(field `{field}`)" in str(e.value)


def test_a_case_without_an_id_is_named_by_its_place(tmp_path):
    with pytest.raises(EvalCaseError, match=r"case #2: field `id` is missing"):
        load_cases(_write(tmp_path, "bad.yaml", FLAT.splitlines()[0] + "\n- {month: 丑, day: 己卯, primary: 乾}\n"))


# ------------------------------------------------------------------------------------------ the files

def test_the_eval_cases_file_loads_with_its_horizon_as_the_recorded_unit():
    cases = load_cases(EVAL_CASES)
    assert len(cases) == 8 and {c["set"] for c in cases} == {"eval_cases"}
    bo = next(c for c in cases if c["id"] == "yimao-rank-bo")
    assert (bo["spec"], bo["year"], bo["outcome_polarity"], bo["outcome_branch"], bo["outcome_unit"]) == (
        "剝之晉", "壬午", "吉", "戌", "年")


@needs_dev_set
def test_the_development_set_loads_all_66_records():
    cases = load_cases(DEV_SET)
    assert len(cases) == 66 and len({c["id"] for c in cases}) == 66
    assert {c["set"] for c in cases} == {"buzheng_cases"}
    bz1 = cases[0]
    assert (bz1["id"], bz1["spec"], bz1["month"], bz1["day"], bz1["topic"]) == ("BZ001", "需之乾", "卯", "癸亥", "家宅")
    assert (bz1["outcome_polarity"], bz1["outcome_branch"], bz1["outcome_unit"]) == ("凶", "午", "月")
    assert next(c for c in cases if c["id"] == "BZ019")["spec"] == "同人"  # changed: null
    assert sum(c["book_use_god"] is not None for c in cases) == 15


@needs_dev_set
def test_end_to_end_three_development_cases_give_every_figure():
    cases = [c for c in load_cases(DEV_SET) if c["id"] in ("BZ001", "BZ012", "BZ016")]
    report = evaluate(cases)
    assert [r["id"] for r in report["rows"]] == ["BZ001", "BZ012", "BZ016"]
    assert set(report) == {"rows", "sets", "all", "topics", "without", "school"} and list(report["sets"]) == ["buzheng_cases"]
    s = report["all"]
    assert set(s) == {"cases", "direction", "direction_incl_refused", "balanced_accuracy", "majority_baseline",
                      "timing", "refusals", "use_god_agreement"}
    assert set(s["timing"]) == {"cases", "no_candidates", "branch_unit", "branch", "rank"}
    for part in ("branch_unit", "branch"):
        assert set(s["timing"][part]) == {"cases", "hit@1", "hit@3", "random@1", "random@3"}
    assert set(s["timing"]["rank"]) == {"ranks", "median", "not_found"}
    assert s["timing"]["cases"] == 3 and s["use_god_agreement"]["relative"]["of"] == 2
    for r in report["rows"]:
        assert r["verdict"] is not None or r["refused"]["reason"]
    json.dumps(report, ensure_ascii=False)  # what --format json prints


def test_eval_reads_every_case_by_the_school_it_is_given(tmp_path, recorded_casts):
    report = evaluate(load_cases(EVAL_CASES), kg=object(), school="卜筮正宗")
    assert report["school"] == "卜筮正宗"
    assert {kw.get("school") for _, kw in recorded_casts} == {"卜筮正宗"}


def test_eval_refuses_a_school_that_is_not_a_school_of_the_reading(recorded_casts):
    with pytest.raises(CastInputError, match="school"):
        evaluate(load_cases(EVAL_CASES), kg=object(), school="RulerFifth")
    assert recorded_casts == []


# ------------------------------------------------------------------------------------------ the command

def test_eval_reports_each_file_as_a_set_then_all_together(tmp_path, capsys, recorded_casts):
    flat = _write(tmp_path, "dev.yaml", FLAT)
    code = main(["eval", str(flat), str(EVAL_CASES), "--lang", "en"])
    out, err = capsys.readouterr()
    assert code == 0, err
    for heading in ("== dev: 3 cases ==", "== eval_cases: 8 cases ==", "== summary: dev ==",
                    "== summary: eval_cases ==", "== summary: all ==", "== by topic (all sets) =="):
        assert heading in out
    assert out.index("== summary: dev ==") < out.index("== summary: eval_cases ==") < out.index("== summary: all ==")
    code = main(["eval", str(flat), str(EVAL_CASES), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and list(report["sets"]) == ["dev", "eval_cases"] and report["all"]["cases"] == 11


def test_eval_of_a_malformed_file_exits_2_naming_the_case_and_field(tmp_path, capsys):
    bad = _write(tmp_path, "bad.yaml", f"- {BZ}, verdict: 好}}\n")
    code = main(["eval", str(bad), "--lang", "en"])
    out, err = capsys.readouterr()
    assert code == 2 and "case BZX: outcome polarity '好'" in err and "`verdict`" in err and out == ""


def test_an_ablation_leaves_the_named_rule_out_of_the_rule_base():
    """`liuyao eval --without RULE`: the reading without one of its rules, on a graph of its own."""
    from liuyao_kg.rulebase.evaluate import graph_without

    kg = graph_without(["FactorSourceDamaged"])
    # 乾之賁 丑月己卯日 父母 (卜筮正宗 第四問): the moving 午 helper changes into its tomb 戌 (化墓)
    ch = liuyao_kg.cast("乾之賁", month="丑", day="己卯", topic="疾病", about="父母", kg=kg)
    kinds = {f["kind"] for e in ch["use_god_condition"]["lines"] for f in e["factors"]}
    assert "SourceDamaged" not in kinds and "MovingGenerates" in kinds
    whole = liuyao_kg.cast("乾之賁", month="丑", day="己卯", topic="疾病", about="父母")
    assert "SourceDamaged" in {f["kind"] for e in whole["use_god_condition"]["lines"] for f in e["factors"]}


def test_an_ablation_of_an_unknown_rule_is_refused_by_name(tmp_path, capsys):
    cases = _write(tmp_path, "c.yaml", "- {id: X1, month: 寅, day: 甲子, primary: 乾, topic: 求財, verdict: 吉}\n")
    assert main(["eval", str(cases), "--without", "NoSuchRule", "--lang", "en"]) == 2
    assert "--without NoSuchRule: no such rule" in capsys.readouterr().err
