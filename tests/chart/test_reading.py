"""The reading (rules/reading.ttl, docs/reading.md): condition factors, precedence, the line read, the verdict
and the timing, checked against a direct reading of the chart that imports nothing of the reading, on a seeded
sample and on the 易冒 worked case; each precedence statement and timing rule where it applies and where not;
the JSON shape; the commands."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import liuyao_kg
from liuyao_kg.chart import chart
from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.loaders.cast_input import make_cast_input
from liuyao_kg.loaders.rdf import cast_quads
from samples import sample_casts

from liuyao_kg.ontology import tables as T
from liuyao_kg.load import add_casts

ROOT = Path(__file__).resolve().parents[2]
RULE = "https://w3id.org/liuyao-kg/rule/"


@pytest.fixture(scope="module")
def kg():
    return KnowledgeGraph()


def read(kg, spec, **kw):
    return liuyao_kg.cast(spec, kg=kg, **kw)


@pytest.fixture(scope="module")
def sample(kg):
    """60 seeded casts of every topic, derived together, with their charts."""
    cis = [make_cast_input(v, month=m, day=d, topic=t) for v, m, d, t in sample_casts(60, seed=111)]
    iris = add_casts(kg, [q for ci in cis for q in cast_quads(ci)])
    return [chart(kg, iri) for iri in iris]


# ------------------------------------------------------------------------------------------------
# A direct reading of the chart (docs/reading.md §1–4, written from the docs' tables, not from the rules)
# ------------------------------------------------------------------------------------------------

STATE_FACTORS = {"回頭生": "ReturnGenerate", "回頭克": "ReturnOvercome", "化空": "ChangeToVoid", "化破": "ChangeToBroken",
                 "化墓": "ChangeToTomb", "化絕": "ChangeToSeverance", "旬空": "Void", "空沖則實": "VoidClashed"}
POLARITY_FOR = {"InSeason", "MonthCombine", "DayGenerates", "DayCombine", "DayProsper", "DarkMoved", "MovingGenerates",
                "AttackerBound", "ReturnGenerate", "ChangeAdvance", "VoidStrong", "VoidClashed", "Rescued", "HiddenEmerges",
                "BreakUndone", "VoidUsable", "AttackerRestrained", "GreedyForGeneration", "FrameHelps"}
GROUPS = {"Day": {"DayGenerates", "DayOvercomes", "DayCombine", "DayProsper", "DaySeverance", "DayTomb", "DarkMoved",
                  "DayBroken", "Scattered"},
          "Month": {"InSeason", "OutOfSeason", "MonthCombine"}, "Broken": {"MonthBroken"},
          "BreakUndo": {"BreakUndone"}, "VoidWaits": {"VoidUsable"}, "LineSupport": {"MovingGenerates"},
          "SourceHarm": {"SourceDamaged"}, "Restrained": {"AttackerRestrained"}, "Greedy": {"GreedyForGeneration"},
          "Support": {"DayGenerates", "DayCombine", "MovingGenerates", "ReturnGenerate", "FrameHelps"},
          "Frame": {"FrameHelps", "FrameHarms"},
          "Weakness": {"OutOfSeason"}, "Season": {"InSeason", "OutOfSeason"}, "LineHarm": {"MovingOvercomes"},
          "Rescue": {"Rescued"}, "Severing": {"DayOvercomes", "DaySeverance", "MovingOvercomes", "ReturnOvercome"},
          "VoidUndo": {"VoidStrong", "VoidClashed"}, "Void": {"Void"}, "Bound": {"AttackerBound"}}
PRECEDENCE = {"DayOverMonth": ("Day", "Month"), "SupportOverWeakness": ("Support", "Weakness"),
              "SeasonOverLineHarm": ("Season", "LineHarm"), "RescueOverSevering": ("Rescue", "Severing"),
              "StrongNotVoid": ("VoidUndo", "Void"), "BoundAttacker": ("Bound", "LineHarm"),
              "BreakUndone": ("BreakUndo", "Broken"), "VoidWaits": ("VoidWaits", "Void"),
              "RestrainedAttacker": ("Restrained", "LineHarm"), "GreedyForgets": ("Greedy", "LineHarm"),
              "DamagedSource": ("SourceHarm", "LineSupport")}
GENERATES = {"木": "火", "火": "土", "土": "金", "金": "水", "水": "木"}
OVERCOMES = {"木": "土", "土": "水", "水": "火", "火": "金", "金": "木"}
BRANCH_ELEMENT = dict(zip("子丑寅卯辰巳午未申酉戌亥", "水土木木土火火土金金土水"))
FRAMES = {"申子辰": "水", "巳酉丑": "金", "寅午戌": "火", "亥卯未": "木"}


def rel(c, a, b, r):
    return {"from": a, "to": b, "relation": r} in c["relations"]


def expected_factors(c: dict, pos: int) -> set[tuple[str, int | None]]:
    """(kind, acting line) of a shown use-god line, read off the chart JSON."""
    ln = c["lines"][pos - 1]
    me = f"line:{pos}"
    terms = {s["term"] for s in ln["states"]}
    out = {("InSeason" if ln["strength"] in ("旺", "相") else "OutOfSeason", None)}
    for cond, kind in [(rel(c, "month", me, "沖"), "MonthBroken"), (rel(c, "month", me, "合"), "MonthCombine"),
                       (rel(c, "day", me, "生"), "DayGenerates"), (rel(c, "day", me, "克"), "DayOvercomes"),
                       (rel(c, "day", me, "合"), "DayCombine"), (ln["stage_day"] in ("長生", "帝旺"), "DayProsper"),
                       (ln["stage_day"] == "絕", "DaySeverance"), (ln["stage_day"] == "墓", "DayTomb"),
                       (not ln["moving"] and rel(c, "day", me, "沖") and ln["strength"] in ("旺", "相"), "DarkMoved"),
                       (not ln["moving"] and rel(c, "day", me, "沖") and ln["strength"] not in ("旺", "相"), "DayBroken"),
                       (ln["moving"] and rel(c, "day", me, "沖"), "Scattered"),
                       ("旬空" in terms and ln["strength"] in ("旺", "相"), "VoidStrong")]:
        if cond:
            out.add((kind, None))
    for term, kind in STATE_FACTORS.items():
        if term in terms:
            out.add((kind, None))
    for s in ln["states"]:
        if s["term"] in ("化進", "化退"):
            out.add(("ChangeAdvance" if s["term"] == "化進" else "ChangeRetreat", None))
    for other in c["lines"]:
        a = other["position"]
        if a == pos or not other["moving"] or "月破" in {s["term"] for s in other["states"]}:
            continue
        if rel(c, f"line:{a}", me, "生"):
            out.add(("MovingGenerates", a))
        if rel(c, f"line:{a}", me, "克"):
            out.add(("MovingOvercomes", a))
            if rel(c, "day", f"line:{a}", "合"):
                out.add(("AttackerBound", a))
    if any(s["term"] == "絕處逢生" and pos in s["lines"] for s in c["states"]):
        out.add(("Rescued", None))
    out |= buzheng_factors(c, pos, out)
    return out


def _terms(ln: dict) -> set[str]:
    return {s["term"] for s in ln["states"]}


def buzheng_factors(c: dict, pos: int, found: set) -> set[tuple[str, int | None]]:
    """卜筮正宗's factors (docs/reading.md §1): breaks and voids undone, harmers checked, helpers hurt."""
    ln, out = c["lines"][pos - 1], set()
    el, day = ln["element"], BRANCH_ELEMENT[c["day"]["branch"]]
    month = BRANCH_ELEMENT[c["month"]["branch"]]
    others = [o for o in c["lines"] if o["moving"] and o["position"] != pos]
    generated = (GENERATES[day] == el or rel(c, "day", f"line:{pos}", "合") or "回頭生" in _terms(ln)
                 or any(GENERATES[o["element"]] == el for o in others))
    overcome = OVERCOMES[day] == el or any(OVERCOMES[o["element"]] == el for o in others)
    undone = ln["moving"] or generated or not overcome
    if ("MonthBroken", None) in found and undone:
        out.add(("BreakUndone", None))
    if "旬空" in _terms(ln) and (ln["moving"] or (generated and not overcome)):
        out.add(("VoidUsable", None))
    movers = [o for o in c["lines"] if o["moving"]]
    for kind, a in found:
        other = c["lines"][a - 1] if a else None
        if kind == "MovingOvercomes":
            if ({"回頭克", "日沖"} & _terms(other) or OVERCOMES[day] == other["element"]
                    or OVERCOMES[month] == other["element"] or any(OVERCOMES[m["element"]] == other["element"]
                                                                  for m in movers)):
                out.add(("AttackerRestrained", a))
            if any(k == "MovingGenerates" for k, _ in found):
                out.add(("GreedyForGeneration", a))
        if kind == "MovingGenerates" and ({"回頭克", "化絕", "化墓", "日沖"} & _terms(other)
                                          or any(OVERCOMES[m["element"]] == other["element"] for m in movers)):
            out.add(("SourceDamaged", a))
    source = next(g for g, x in GENERATES.items() if x == el)
    for s in c["states"]:
        if s["term"] == "三合成局":  # 第四問: 原用二神局則吉，忌仇二神局則凶
            fe = FRAMES["".join(sorted({c["lines"][p - 1]["branch"] for p in s["lines"]}, key=FRAMES_ORDER.index))]
            if fe == el or GENERATES[fe] == el:
                out.add(("FrameHelps", None))
            if OVERCOMES[fe] in (el, source):
                out.add(("FrameHarms", None))
        if s["term"] == "反吟" and {"化沖", "回頭克"} & _terms(ln):  # 第五問: 用神化衝克者，凡謀大凶
            out.add(("FanYinTurned", None))
    return out


FRAMES_ORDER = "申子辰巳酉丑寅午戌亥卯未"


def expected_outweighed(kinds: set[tuple[str, int | None]]) -> set[tuple[str, int | None]]:
    out = set()
    for k2, a2 in kinds:
        for k1, a1 in kinds:
            if (k1 in POLARITY_FOR) == (k2 in POLARITY_FOR) or (a1 and a2 and a1 != a2):
                continue
            if any(k1 in GROUPS[s] and k2 in GROUPS[w] for s, w in PRECEDENCE.values()):
                out.add((k2, a2))
    return out


def expected_verdict(kinds, outweighed) -> str:
    standing = kinds - outweighed
    pro = any(k in POLARITY_FOR for k, _ in standing)
    con = any(k not in POLARITY_FOR for k, _ in standing)
    if pro and not con:
        return "吉"
    if con and not pro:
        return "凶"
    lean = ("InSeason", None) in standing or ("OutOfSeason", None) in outweighed
    return "吉中有凶" if lean else "凶中有吉"


def factors_of(entry: dict) -> set[tuple[str, int | None]]:
    return {(f["kind"], f["other_line"]) for f in entry["factors"]}


def single_shown(c: dict) -> dict | None:
    lines = c["use_god_condition"]["lines"]
    return lines[0] if len(lines) == 1 and not lines[0]["hidden"] else None


# ------------------------------------------------------------------------------------------------
# Against the direct reading
# ------------------------------------------------------------------------------------------------

def test_the_factors_of_a_shown_use_god_are_what_its_chart_says(sample):
    checked = 0
    for c in sample:
        for e in c["use_god_condition"]["lines"]:
            if e["hidden"]:
                continue
            assert factors_of(e) - {("ChangeAdvance", None), ("ChangeRetreat", None)} == \
                expected_factors(c, e["position"]) - {("ChangeAdvance", None), ("ChangeRetreat", None)}, c["cast"]
            checked += 1
    assert checked >= 40


def test_outweighing_follows_the_precedence_table_and_nothing_else(sample):
    for c in sample:
        for e in c["use_god_condition"]["lines"]:
            got = {(f["kind"], f["other_line"]) for f in e["factors"] if not f["standing"]}
            assert got == expected_outweighed(factors_of(e)), c["cast"]


def test_the_verdict_of_a_single_shown_use_god_is_its_standing_factors(sample):
    seen = set()
    for c in sample:
        e = single_shown(c)
        if e is None:
            continue
        kinds = factors_of(e)
        assert c["verdict"]["polarity"] == expected_verdict(kinds, expected_outweighed(kinds)), c["cast"]
        seen.add(c["verdict"]["polarity"])
    assert {"吉", "凶"} <= seen and seen & {"吉中有凶", "凶中有吉"}


def test_every_cast_of_every_topic_has_a_verdict_and_timing(sample):
    assert len({c["topic"] for c in sample}) == len(T.QUESTIONS)  # every question of the scheme
    for c in sample:
        if c["verdict"]["polarity"] is None:  # the question's use-god is not in the cast (六爻無水: no water line)
            assert c["verdict"]["reason"].startswith("no use-god line:") and c["use_god"]["lines"] == [], c["cast"]
            assert c["timing"] == [] and c["timing_note"] == c["verdict"]["reason"]
            continue
        assert c["verdict"]["polarity"] in ("吉", "凶", "吉中有凶", "凶中有吉", "不成")
        assert c["timing"] and [t["rank"] for t in c["timing"]] == list(range(1, len(c["timing"]) + 1))


@pytest.fixture(scope="module")
def wide_sample(kg):
    """Five seeded casts of every question (one-topic batches, as `liuyao load` derives them): their verdict terms."""
    from liuyao_kg import queries

    by_topic: dict[str, list] = {}
    for v, m, d, t in sample_casts(5 * len(T.QUESTIONS), seed=38):
        by_topic.setdefault(t, []).append(make_cast_input(v, month=m, day=d, topic=t))
    iris = [iri for cis in by_topic.values() for iri in add_casts(kg, [q for ci in cis for q in cast_quads(ci)])]
    return {iri: {r["term"] for r in queries.run(kg, "reading-verdict", cast=iri)} for iri in iris}


def test_one_verdict_per_cast_over_every_question(wide_sample):
    """Lines read together that lean differently (天玄賦's water and fire lines) still give one verdict."""
    assert all(len(terms) <= 1 for terms in wide_sample.values()), \
        {iri: terms for iri, terms in wide_sample.items() if len(terms) > 1}
    assert sum(1 for terms in wide_sample.values() if terms) > 0.8 * len(wide_sample)


@pytest.mark.parametrize("question", [q[0] for q in T.QUESTIONS])
def test_the_timing_unit_follows_the_question(kg, question):
    """卜筮正宗 月破論第九 「遠應年月，近應日時」: a far matter in months, a near one in days (ConventionHorizonByQuestion);
    a narrower question takes its broader one's."""
    from liuyao_kg.ontology import questions as Q

    far = any(q in T.FAR_QUESTIONS for q in Q.broader_chain(question))
    c = read(kg, "乾之姤", month="寅", day="甲子", topic=question)
    assert (c["horizon"], c["horizon_by"]) == ("月" if far else "日", "question")
    assert all(t["unit"] == c["horizon"] for t in c["timing"] if not t["immediate"])


def test_the_user_s_horizon_overrides_the_question_s(kg):
    c = read(kg, "乾之姤", month="寅", day="甲子", topic="求財", horizon="年")
    assert (c["horizon"], c["horizon_by"]) == ("年", "user")
    assert {t["unit"] for t in c["timing"] if not t["immediate"]} == {"年"}


def test_a_cast_without_a_question_has_the_default_unit(kg):
    c = read(kg, "乾之姤", month="寅", day="甲子")
    assert (c["horizon"], c["horizon_by"]) == ("日", "default")


def test_a_cast_without_a_topic_says_why_it_has_no_verdict(kg):
    c = read(kg, "節之中孚", month="寅", day="辛亥")
    assert c["verdict"]["polarity"] is None and "no use-god" in c["verdict"]["reason"]
    assert c["timing"] == [] and "no use-god" in c["timing_note"]


# ------------------------------------------------------------------------------------------------
# The worked case of 易冒 遇時章: 寅建辛亥日占丁巳搖會，得節之中孚
# ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def meet_time(kg):
    return read(kg, "節之中孚", month="寅", day="辛亥", topic="求財")


def test_month_season_loses_to_the_day_that_severs_the_wealth_line(meet_time):
    (e,) = meet_time["use_god_condition"]["lines"]
    assert (e["position"], e["branch"], e["read"]) == (1, "巳", True)
    f = {x["kind"]: x for x in e["factors"]}
    assert set(f) == {"InSeason", "DayOvercomes", "DaySeverance", "DarkMoved", "MovingOvercomes"}
    assert sorted(o["precedence"].rsplit("_", 1)[1] for o in f["InSeason"]["outweighed_by"]) == ["DayOverMonth"] * 2
    assert [o["precedence"].rsplit("_", 1)[1] for o in f["MovingOvercomes"]["outweighed_by"]] == ["SeasonOverLineHarm"]
    assert f["MovingOvercomes"]["other_line"] == 6


def test_the_worked_case_leans_inauspicious_with_a_hope(meet_time):
    v = meet_time["verdict"]
    assert v["polarity"] == "凶中有吉" and v["rule"] == RULE + "VerdictXiongWithJi"
    pro = [b["factor"] for b in v["because"] if b["role"] == "for" and "factor" in b]
    con = [b["factor"] for b in v["because"] if b["role"] == "against" and "factor" in b]
    assert set(pro) == {"DayOvercomes", "DaySeverance", "MovingOvercomes"} and set(con) == {"InSeason", "DarkMoved"}
    moving = next(b for b in v["because"] if b.get("factor") == "MovingOvercomes")
    assert moving["loses_to"][0]["factor"] == "InSeason"
    assert any(b.get("judgment", {}).get("zh") == "理不應得" and b["role"] == "for" for b in v["because"])


def test_the_worked_case_is_timed_by_its_single_moving_line_first(meet_time):
    t = meet_time["timing"]
    assert [(c["branch"], c["rule"].rsplit("/", 1)[1]) for c in t[:2]] == [
        ("子", "TimingSingleMovingMeet"), ("丑", "TimingSingleMovingCombine")]
    si = next(c for c in t if c["branch"] == "巳")
    assert si["rule"] == RULE + "TimingUseGodMeet" and si["source"]["quote"] == "然丁巳財當以丁巳日求之"
    assert all(c["dates"] == [] for c in t) and "give --date" in meet_time["timing_note"]


def test_timing_dates_follow_the_cast_date(kg):
    c = read(kg, "節之中孚", date="2026-12-01T12:00:00+08:00", topic="求財", horizon="月")
    first = c["timing"][0]
    assert first["unit"] == "月" and len(first["dates"]) == 3 and c["timing_note"] is None
    assert all(d > "2026-12-01" for d in first["dates"])


# ------------------------------------------------------------------------------------------------
# Each precedence statement and timing rule: a cast where it applies, one where it does not
# ------------------------------------------------------------------------------------------------

WITNESSES = json.loads((ROOT / "tests" / "data" / "reading_witnesses.json").read_text(encoding="utf-8"))


def _cast(kg, w):
    return read(kg, w["spec"], month=w["month"], day=w["day"], topic=w["topic"])


def _precedences(c):
    return {o["precedence"].rsplit("_", 1)[1] for e in c["use_god_condition"]["lines"] for f in e["factors"]
            for o in f["outweighed_by"]}


def _timing_rules(c):
    return {r.rsplit("/", 1)[1] for t in c["timing"] for r in [t["rule"]] + t["also"]}


@pytest.mark.parametrize("name", sorted(PRECEDENCE))
def test_each_precedence_statement_outweighs_where_it_applies_and_not_elsewhere(kg, name):
    w = WITNESSES["precedence"][name]
    assert name in _precedences(_cast(kg, w["fires"]))
    assert name not in _precedences(_cast(kg, w["silent"]))


TIMING_RULES = sorted(WITNESSES["timing"])


@pytest.mark.parametrize("name", TIMING_RULES)
def test_each_timing_rule_gives_candidates_where_it_applies_and_not_elsewhere(kg, name):
    w = WITNESSES["timing"][name]
    assert name in _timing_rules(_cast(kg, w["fires"]))
    assert name not in _timing_rules(_cast(kg, w["silent"]))


def test_every_timing_rule_of_the_rule_base_has_witnesses():
    ttl = (ROOT / "ontology" / "rules" / "reading.ttl").read_text(encoding="utf-8")
    rules = {line.split()[0].split(":")[1] for line in ttl.splitlines() if " a lyo:TimingRule" in line}
    assert rules - set(TIMING_RULES) <= set(WITNESSES.get("unwitnessed", {})), "regenerate reading_witnesses.json"


# ------------------------------------------------------------------------------------------------
# The doubled and the hidden use-god
# ------------------------------------------------------------------------------------------------

def test_a_doubled_use_god_reads_the_unharmed_line(kg):
    w = WITNESSES["read"]["ReadUnharmed"]
    c = _cast(kg, w)
    read_ = [e for e in c["use_god_condition"]["lines"] if e["read"]]
    dropped = [e for e in c["use_god_condition"]["lines"] if not e["read"]]
    assert read_ and dropped and all(e["read_rule"] == RULE + "ReadUnharmed" for e in read_)
    harm = {"MonthBroken", "DayOvercomes", "DaySeverance", "DayTomb", "DayBroken", "Scattered", "MovingOvercomes",
            "ReturnOvercome", "ChangeToVoid", "ChangeToBroken", "ChangeToTomb", "ChangeToSeverance", "Void",
            "FrameHarms", "FanYinTurned"}
    assert all(not any(f["kind"] in harm and f["standing"] for f in e["factors"]) for e in read_)
    assert all(any(f["kind"] in harm and f["standing"] for f in e["factors"]) for e in dropped)


# ------------------------------------------------------------------------------------------------
# The schools of the reading (docs/reading.md §8): 易冒 (the default) and 卜筮正宗, where they disagree
# ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def by_school(kg):
    """The same 120 seeded casts read by each school: {school: [chart]}."""
    drawn = sample_casts(120, seed=17)
    out = {}
    for school in ("易冒", "卜筮正宗"):
        cis = [make_cast_input(v, month=m, day=d, topic=t, school=school) for v, m, d, t in drawn]
        out[school] = [chart(kg, iri) for iri in add_casts(kg, [q for ci in cis for q in cast_quads(ci)])]
    return out


def _doubled(c):
    """The lines of a doubled use-god (用神兩現), else []."""
    twice = any(s["term"] == "用神兩現" for s in c["states"])
    return [e for e in c["use_god_condition"]["lines"] if not e["hidden"]] if twice else []


def bushi_grounds(c, pos) -> list[int]:
    """卜筮正宗 第十七問's grounds a line of a doubled use-god has, ranked as the passage names them: 持世 1,
    臨月日 2, 月破 3, 旬空 4 (read off the chart JSON)."""
    ln = c["lines"][pos - 1]
    terms = {s["term"] for s in ln["states"]}
    return [r for r, holds in ((1, "世" in ln["roles"]), (2, ln["branch"] in (c["month"]["branch"], c["day"]["branch"])),
                               (3, "月破" in terms), (4, "旬空" in terms)) if holds]


def test_the_book_s_school_reads_a_doubled_use_god_where_the_sickness_is(by_school):
    checked = 0
    for c in by_school["卜筮正宗"]:
        lines = _doubled(c)
        if not lines:
            continue
        first = {e["position"]: min(bushi_grounds(c, e["position"]), default=None) for e in lines}
        best = min((r for r in first.values() if r is not None), default=None)
        expected = {p for p, r in first.items() if best is None or r == best}
        assert {e["position"] for e in lines if e["read"]} == expected, c["cast"]
        checked += 1
    assert checked >= 20


def test_the_two_schools_read_some_doubled_use_gods_differently_and_say_which_they_follow(by_school):
    pairs = list(zip(by_school["易冒"], by_school["卜筮正宗"]))
    assert {c["reading_school"] for c, _ in pairs} == {"YiMaoReading"}
    assert {c["reading_school"] for _, c in pairs} == {"BuShiZhengZong"}
    differ = [a["cast"] for a, b in pairs
              if {e["position"] for e in _doubled(a) if e["read"]} != {e["position"] for e in _doubled(b) if e["read"]}]
    assert differ
    rules = {e["read_rule"].rsplit("/", 1)[1] for _, b in pairs for e in _doubled(b) if e["read"]}
    assert rules <= {"ReadAfflicted", "ReadDoubledNoGround"} and "ReadAfflicted" in rules


def _single_meet(c):
    return {t["branch"] for t in c["timing"] if t["rule"].endswith("/TimingSingleMovingMeet")}


def test_the_book_s_single_moving_line_counts_a_line_the_day_clashes_into_motion(by_school):
    """第十五問: one line moving and another clashed by the day is not 獨發; six still lines, one clashed, is."""
    seen = set()
    for c in by_school["卜筮正宗"]:
        movers = [ln for ln in c["lines"] if ln["moving"]]
        dark = [ln for ln in c["lines"] if any(s["term"] == "暗動" and s["school"] is None for s in ln["states"])]
        single = movers[0] if len(movers) == 1 and not dark else dark[0] if not movers and len(dark) == 1 else None
        if c["use_god"]["lines"]:
            assert _single_meet(c) == ({single["branch"]} if single else set()), c["cast"]
            seen.add("moving" if single and single["moving"] else "still" if single else "none")
    assert seen == {"moving", "still", "none"}


def test_the_default_school_s_single_moving_line_is_the_only_line_that_moves(by_school):
    for c in by_school["易冒"]:
        movers = [ln for ln in c["lines"] if ln["moving"]]
        if c["use_god"]["lines"]:
            assert _single_meet(c) == ({movers[0]["branch"]} if len(movers) == 1 else set()), c["cast"]


def test_a_hidden_use_god_that_nothing_draws_out_cannot_come_about(kg):
    c = _cast(kg, WITNESSES["verdict"]["NotAccomplished"])
    (e,) = [x for x in c["use_god_condition"]["lines"] if x["read"]]
    assert e["hidden"] and "HiddenStuck" in {f["kind"] for f in e["factors"] if f["standing"]}
    assert c["verdict"]["polarity"] == "不成"


# ------------------------------------------------------------------------------------------------
# JSON shape, groups, text, commands
# ------------------------------------------------------------------------------------------------

def test_the_json_keeps_the_issue_field_names(meet_time):
    v = meet_time["verdict"]
    assert set(v["summary"]) == {"zh", "en", "ko"} and v["summary"]["zh"].startswith("凶中有吉")
    for b in v["because"]:
        assert {"rule", "source", "lines", "role"} <= set(b) and b["role"] in ("for", "against")
    for t in meet_time["timing"]:
        assert {"rank", "branch", "unit", "dates", "rule", "source"} <= set(t) and t["unit"] in ("日", "月", "年")
    assert meet_time["use_god_condition"]["relative"] == "妻財"
    json.dumps(meet_time, ensure_ascii=False)


def test_judgments_are_grouped_by_whom_they_concern(meet_time):
    groups = {j["group"] for j in meet_time["judgments"]}
    assert groups <= {"用神", "世", "應", "他爻", "卦"} and {"用神", "卦"} <= groups
    for j in meet_time["judgments"]:
        assert (j["group"] == "卦") == (not j["lines"])
        if j["group"] == "用神":
            assert 1 in j["lines"]


def test_the_text_chart_opens_with_the_reading_and_merges_repeated_sentences(meet_time):
    from liuyao_kg.chart.render import chart_text

    text = chart_text(meet_time)
    assert text.startswith("斷：凶中有吉")
    assert text.index("應期：子日、丑日") < text.index("節（坎宮水")
    grouped = text[text.index("斷（依所關之人）"):]
    # two rules concluding one sentence for one group: one row, with the lines and the ids of both
    rows = [row.strip() for row in grouped.splitlines() if "克破為凶" in row]
    assert len(rows) == 1 and rows[0].startswith("[凶] 克破為凶（初爻、上爻） — ")
    assert rows[0].endswith("(usegod-overcome-by-day, usegod-overcome-by-moving-line)")


@pytest.fixture
def run_cli(capsys, monkeypatch):
    from liuyao_kg.cli import main

    monkeypatch.chdir(ROOT)

    def run(*args):
        code = main(list(args))
        out = capsys.readouterr()
        return code, out.out, out.err
    return run


def test_why_verdict_and_timing_trace_to_rules_and_passages(run_cli):
    code, out, err = run_cli("why", "節之中孚", "--month", "寅", "--day", "辛亥", "--topic", "求財", "--verdict", "--timing", "1")
    assert code == 0, err
    assert "規則 https://w3id.org/liuyao-kg/rule/VerdictXiongWithJi" in out
    assert "負於 日克 依「日辰重於月建」" in out
    assert "「蓋用爻生絕於日辰之上者特重，生絕於月建之上者有分」 [000_611f20e21d588b1f.txt" in out
    assert "應期 #1：子日" in out and "「靜而獨發，以值以合，動而獨靜，以值以沖」" in out


def test_why_verdict_and_timing_in_english(run_cli):
    code, out, err = run_cli("why", "節之中孚", "--month", "寅", "--day", "辛亥", "--topic", "求財", "--verdict",
                             "--timing", "1", "--lang", "en")
    assert code == 0, err
    assert "\nverdict inauspicious, with a hope\n  rule https://w3id.org/liuyao-kg/rule/VerdictXiongWithJi — " in out
    assert "loses to overcome by the day under 「日辰重於月建」" in out
    assert "timing #1: Zi (子) day — dates no calendar dates: the cast has no date (give --date)" in out


def test_why_timing_out_of_range_is_a_clear_error(run_cli):
    code, out, err = run_cli("why", "節之中孚", "--month", "寅", "--day", "辛亥", "--topic", "求財", "--timing", "99",
                             "--lang", "en")
    assert code == 2 and "timing candidate" in err and out == ""


def test_eval_of_a_malformed_file_names_the_problem(run_cli, tmp_path):
    bad = tmp_path / "cases.yaml"
    bad.write_text("- id: x\n  cast: {hexagram: 節}\n  outcome: {polarity: 好}\n", encoding="utf-8")
    code, out, err = run_cli("eval", str(bad), "--lang", "en")
    assert code == 2 and "case x: outcome polarity '好'" in err and out == ""
