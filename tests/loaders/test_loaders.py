"""Loaders: cast specs, pillars, CastInput identity and the asserted quads (docs/vocabulary.md)."""
from __future__ import annotations

import re

import pyoxigraph as ox
import pytest

from liuyao_kg.loaders import (BadDate, BadLineValue, CastInput, CastInputError, ImpossibleStemBranch,
                               InconsistentCast, MissingField, UnknownBranch, UnknownHexagram, UnknownStem,
                               UnknownTopic, cast_quads, make_cast_input, parse_birth, parse_day,
                               parse_lines, parse_month, parse_stem_branch, parse_year)
from liuyao_kg.loaders.errors import BatchError, DuplicateRecordId, UnknownSubject
from liuyao_kg.loaders.lines import hexagram_number, parse_values
from liuyao_kg.namespaces import CAST, LYO, LYR, RDF, XSD

JIE_ZHONGFU = (7, 7, 8, 8, 7, 6)  # 節之中孚: only the top line moves (yin → yang)
JIE = (7, 7, 8, 8, 7, 8)


# ---- errors -------------------------------------------------------------------------------------

def test_every_input_error_is_a_value_error_with_a_field():
    for cls in (UnknownHexagram, BadLineValue, ImpossibleStemBranch, InconsistentCast, BadDate,
                UnknownTopic, UnknownBranch, UnknownStem, MissingField, DuplicateRecordId, BatchError):
        assert issubclass(cls, CastInputError) and issubclass(cls, ValueError)
    err = UnknownBranch("x", field="month", value="Q")
    assert (err.field, err.value, str(err)) == ("month", "Q", "x")


# ---- line specs ---------------------------------------------------------------------------------

def test_values_are_read_bottom_up():
    ls = parse_lines("787986")
    assert ls.values == (7, 8, 7, 9, 8, 6)
    assert (ls.primary, ls.changed) == (55, 22)  # 豐之賁
    assert ls.moving == (4, 6)


@pytest.mark.parametrize("spec", ["7 8 7 9 8 6", "7,8,7,9,8,6", [7, 8, 7, 9, 8, 6], (7, 8, 7, 9, 8, 6)])
def test_values_accept_separators_and_sequences(spec):
    assert parse_lines(spec).values == (7, 8, 7, 9, 8, 6)


def test_coin_notation_dan_chai_zhong_jiao():
    assert parse_lines("單拆重交單單").values == (7, 8, 9, 6, 7, 7)


@pytest.mark.parametrize("spec", ["單拆〇×單單", "單拆○x單單", "单拆重X單單"])
def test_coin_notation_accepts_circle_and_cross_symbols(spec):
    assert parse_lines(spec).values == (7, 8, 9, 6, 7, 7)


def test_name_pair_gives_moving_lines_where_the_hexagrams_differ():
    ls = parse_lines("節之中孚")
    assert ls.values == JIE_ZHONGFU
    assert (ls.primary, ls.changed) == (60, 61)
    assert (ls.primary_name, ls.changed_name) == ("節", "中孚")


def test_yang_to_yin_is_nine_and_yin_to_yang_is_six():
    ls = parse_lines("乾之姤")  # 姤: line 1 yin
    assert ls.values == (9, 7, 7, 7, 7, 7)
    ls = parse_lines("坤之復")  # 復: line 1 yang
    assert ls.values == (6, 8, 8, 8, 8, 8)


@pytest.mark.parametrize("spec", ["節→中孚", "節 之 中孚", "節->中孚", "水澤節之風澤中孚", "节之中孚", "水泽节→中孚"])
def test_name_pair_forms(spec):
    ls = parse_lines(spec)
    assert (ls.values, ls.primary, ls.changed) == (JIE_ZHONGFU, 60, 61)


@pytest.mark.parametrize("spec", ["節", "水澤節", "节", "水泽节", " 節 "])
def test_single_name_has_no_moving_line(spec):
    ls = parse_lines(spec)
    assert (ls.values, ls.primary, ls.changed) == (JIE, 60, None)


@pytest.mark.parametrize("spec,number", [("坎為水", 29), ("坎为水", 29), ("乾為天", 1), ("坤為地", 2),
                                         ("兌為澤", 58), ("兑为泽", 58), ("巽為風", 57), ("巽为风", 57),
                                         ("風天小畜", 9), ("天雷无妄", 25), ("水火既济", 63), ("雷风恒", 32),
                                         ("天山遁", 33), ("雷泽归妹", 54)])
def test_full_and_simplified_names(spec, number):
    assert hexagram_number(spec) == number


def test_all_64_short_and_full_names_round_trip():
    from liuyao_kg.ontology import tables
    for num, short, upper, lower, *_ in tables.HEXAGRAMS:
        assert parse_lines(short).primary == num
        assert parse_lines(tables.full_name(short, upper, lower)).primary == num


def test_unknown_hexagram_name_is_rejected_naming_it():
    with pytest.raises(UnknownHexagram, match="節節"):
        parse_lines("節節")
    with pytest.raises(UnknownHexagram, match="天天"):
        parse_lines("節之天天")


def test_name_pair_with_missing_side_is_rejected():
    with pytest.raises(UnknownHexagram):
        parse_lines("節之")
    with pytest.raises(UnknownHexagram):
        parse_lines("節之中孚之乾")


def test_name_pair_changing_to_itself_is_rejected():
    with pytest.raises(InconsistentCast, match="no line moves"):
        parse_lines("節之節")


def test_line_value_five_is_rejected_naming_position():
    with pytest.raises(BadLineValue, match=r"line value 5 at position 3: must be 6, 7, 8 or 9") as ei:
        parse_lines("785986")
    assert ei.value.field == "spec"


def test_five_or_seven_lines_are_rejected():
    with pytest.raises(BadLineValue, match="exactly six"):
        parse_lines("78798")
    with pytest.raises(BadLineValue, match="exactly six"):
        parse_lines("7879867")


def test_unknown_notation_symbol_is_rejected_naming_it():
    with pytest.raises(UnknownHexagram):
        parse_lines("單拆重交單Q")  # not values: read as a (bad) name
    with pytest.raises(BadLineValue, match="position 2"):
        parse_values("7?7777")


def test_empty_spec_is_rejected():
    with pytest.raises(BadLineValue, match="no cast given"):
        parse_lines("")


def test_lines_alone_are_enough():
    assert parse_lines(None, lines="778876").values == JIE_ZHONGFU


def test_name_pair_and_values_must_agree():
    assert parse_lines("節之中孚", lines="778876").values == JIE_ZHONGFU
    assert parse_lines("節之中孚", lines=[7, 7, 8, 8, 7, 6]).values == JIE_ZHONGFU
    with pytest.raises(InconsistentCast) as ei:
        parse_lines("節之中孚", lines="778879")
    msg = str(ei.value)
    assert "節之中孚" in msg and "778879" in msg and "778876" in msg
    assert ei.value.field == "lines"


def test_single_name_with_values_takes_the_moving_lines_from_the_values():
    ls = parse_lines("節", lines="778876")
    assert (ls.primary, ls.changed) == (60, 61)
    with pytest.raises(InconsistentCast, match="節.*787986.*豐"):
        parse_lines("節", lines="787986")


def test_values_spec_and_lines_must_agree():
    with pytest.raises(InconsistentCast):
        parse_lines("787986", lines="787987")


def test_bad_value_in_lines_argument_names_the_lines_field():
    with pytest.raises(BadLineValue) as ei:
        parse_lines("節", lines="778875")
    assert ei.value.field == "lines" and "position 6" in str(ei.value)


# ---- pillars ------------------------------------------------------------------------------------

def test_stem_branch_is_split_and_validated():
    assert parse_stem_branch("辛亥") == ("辛", "亥")
    assert parse_stem_branch(" 甲子 ") == ("甲", "子")


def test_jia_chou_is_impossible():
    with pytest.raises(ImpossibleStemBranch,
                       match="甲丑 is not one of the 60 jiazi: a yang stem pairs only with a yang branch"):
        parse_day("甲丑")


def test_yin_stem_with_yang_branch_is_impossible():
    with pytest.raises(ImpossibleStemBranch, match="乙子 .*yin stem pairs only with a yin branch"):
        parse_year("乙子")


def test_unknown_branch_and_stem_are_named():
    with pytest.raises(UnknownBranch, match="'甲X'"):
        parse_day("甲X")
    with pytest.raises(UnknownStem, match="'X子'"):
        parse_day("X子")
    with pytest.raises(UnknownBranch, match="month 'Q'"):
        parse_month("Q")
    with pytest.raises(ImpossibleStemBranch, match="two characters"):
        parse_day("辛亥日")


def test_month_as_branch_or_stem_branch():
    assert parse_month("寅") == ("寅", None)
    assert parse_month("丙寅") == ("寅", "丙寅")
    with pytest.raises(ImpossibleStemBranch):
        parse_month("丁寅")


def test_day_must_be_a_full_stem_branch():
    assert parse_day("辛亥") == "辛亥"
    with pytest.raises(ImpossibleStemBranch, match="needs its stem"):
        parse_day("亥")


def test_birth_takes_a_branch_or_the_branch_of_a_stem_branch():
    assert parse_birth("午") == "午"
    assert parse_birth("庚午") == "午"
    with pytest.raises(ImpossibleStemBranch):
        parse_birth("庚未")
    with pytest.raises(UnknownBranch):
        parse_birth("馬")


# ---- CastInput ----------------------------------------------------------------------------------

def test_cast_input_holds_the_validated_fields():
    ci = make_cast_input("節之中孚", month="丙寅", day="辛亥", year="甲辰", birth="庚午", topic="求財", id="case-1")
    assert isinstance(ci, CastInput)
    assert ci.values == JIE_ZHONGFU and (ci.primary, ci.changed) == (60, 61)
    assert (ci.month_branch, ci.month_gz, ci.day_gz, ci.year_gz) == ("寅", "丙寅", "辛亥", "甲辰")
    assert (ci.birth_branch, ci.topic, ci.label, ci.cast_at) == ("午", "求財", "case-1", None)
    assert re.fullmatch(r"[0-9a-f]{16}", ci.id)
    assert ci.iri == CAST + ci.id
    with pytest.raises(Exception):
        ci.topic = "婚姻"  # frozen


def test_same_cast_from_name_and_values_has_same_iri():
    forms = [make_cast_input("節之中孚", month="寅", day="辛亥"),
             make_cast_input("778876", month="寅", day="辛亥"),
             make_cast_input("单单拆拆单交", month="寅", day="辛亥"),
             make_cast_input("水泽节→风泽中孚", month=" 寅", day="辛亥"),
             make_cast_input("節", lines=[7, 7, 8, 8, 7, 6], month="寅", day="辛亥"),
             make_cast_input(None, lines="778876", month="寅", day="辛亥", id="label does not count")]
    assert len({f.iri for f in forms}) == 1


def test_different_content_gives_a_different_iri():
    base = make_cast_input("節之中孚", month="寅", day="辛亥")
    others = [make_cast_input("節", month="寅", day="辛亥"),
              make_cast_input("節之中孚", month="卯", day="辛亥"),
              make_cast_input("節之中孚", month="丙寅", day="辛亥"),
              make_cast_input("節之中孚", month="寅", day="癸亥"),
              make_cast_input("節之中孚", month="寅", day="辛亥", year="甲辰"),
              make_cast_input("節之中孚", month="寅", day="辛亥", birth="午"),
              make_cast_input("節之中孚", month="寅", day="辛亥", topic="求財")]
    iris = {o.iri for o in others}
    assert base.iri not in iris and len(iris) == len(others)


def test_topic_in_simplified_id_or_english_is_normalised():
    for t in ("求財", "求财", "Wealth", "seeking wealth", "구재"):
        assert make_cast_input("節", month="寅", day="辛亥", topic=t).topic == "求財"


def test_unknown_topic_lists_the_known_topics():
    with pytest.raises(UnknownTopic) as ei:
        make_cast_input("節", month="寅", day="辛亥", topic="算命")
    assert "算命" in str(ei.value) and "求財" in str(ei.value) and "自身" in str(ei.value)
    assert ei.value.field == "topic"


def test_whom_the_question_concerns_is_normalised_and_enters_the_id():
    base = make_cast_input("節", month="寅", day="辛亥", topic="疾病")
    for who in ("妻", "wife", "Wife", "아내"):
        ci = make_cast_input("節", month="寅", day="辛亥", topic="疾病", about=who)
        assert ci.about == "妻" and ci.iri != base.iri
    assert base.about is None and "about" not in base.content()


def test_an_unknown_subject_is_refused_by_name():
    with pytest.raises(UnknownSubject, match="unknown subject '鄰居'") as ei:
        make_cast_input("節", month="寅", day="辛亥", topic="疾病", about="鄰居")
    assert ei.value.field == "about"


def test_a_subject_s_other_names_are_read_as_that_subject():
    for name, zh in (("師", "父母"), ("嫂", "妻"), ("侄", "子"), ("姊妹", "兄弟"), ("婢", "奴僕"), ("仇人", "他人")):
        assert make_cast_input("節", month="寅", day="辛亥", topic="疾病", about=name).about == zh, name


def test_month_and_day_may_be_absent_and_then_no_pillar_is_asserted():
    """Worked cases of the classics give no date (火珠林 占葬地 姤之鼎): the cast is the time-independent chart."""
    for kwargs, kinds in (({}, set()), ({"month": "寅"}, {"MonthPillar"}), ({"day": "辛亥"}, {"DayPillar"})):
        ci = make_cast_input("姤之鼎", topic="葬地", **kwargs)
        classes = {q.object.value for q in cast_quads(ci) if q.predicate.value == RDF + "type"}
        assert classes - {LYO + "Cast", LYO + "Line"} == {LYO + k for k in kinds}
    assert make_cast_input("姤之鼎").id != make_cast_input("姤之鼎", month="寅").id


def test_date_alone_gives_all_pillars():
    ci = make_cast_input("節", date="2024-02-04T16:28:00+08:00")
    assert (ci.month_branch, ci.month_gz, ci.day_gz, ci.year_gz) == ("寅", "丙寅", "戊戌", "甲辰")
    assert ci.cast_at == "2024-02-04T16:28:00+08:00"


def test_date_and_pillars_that_agree_are_accepted_with_the_same_iri():
    a = make_cast_input("節", date="2024-02-04T16:28:00+08:00")
    b = make_cast_input("節", date="2024-02-04T16:28:00+08:00", month="寅", day="戊戌", year="甲辰")
    assert a.iri == b.iri


def test_the_moment_of_casting_is_part_of_the_cast_identity():
    dated = make_cast_input("節", date="2024-02-04T16:28:00+08:00")
    undated = make_cast_input("節", month="丙寅", day="戊戌", year="甲辰")
    later = make_cast_input("節", date="2024-02-04T17:28:00+08:00")
    assert (dated.month_gz, dated.day_gz, dated.year_gz) == (undated.month_gz, undated.day_gz, undated.year_gz)
    assert len({dated.iri, undated.iri, later.iri}) == 3


@pytest.mark.parametrize("kw,field", [({"month": "丑"}, "month"), ({"month": "戊寅"}, "month"),
                                      ({"day": "己亥"}, "day"), ({"year": "癸卯"}, "year")])
def test_date_and_pillars_must_agree(kw, field):
    with pytest.raises(InconsistentCast) as ei:
        make_cast_input("節", date="2024-02-04T16:28:00+08:00", **kw)
    assert ei.value.field == field and "2024-02-04T16:28:00+08:00" in str(ei.value)


def test_day_boundary_applies_to_the_date():
    assert make_cast_input("節", date="2024-02-04T23:30:00+08:00").day_gz == "戊戌"
    assert make_cast_input("節", date="2024-02-04T23:30:00+08:00", day_boundary="23:00").day_gz == "己亥"


def test_bad_day_boundary_is_rejected():
    with pytest.raises(BadDate, match="day_boundary"):
        make_cast_input("節", month="寅", day="辛亥", day_boundary="12:00")


def test_month_stem_must_fit_the_year_stem():
    make_cast_input("節", month="丙寅", day="辛亥", year="甲辰")  # 甲己之年丙作首
    make_cast_input("節", month="乙丑", day="辛亥", year="癸卯")
    with pytest.raises(InconsistentCast, match="丙寅"):
        make_cast_input("節", month="戊寅", day="辛亥", year="甲辰")


def test_naive_date_is_rejected_in_a_cast():
    with pytest.raises(BadDate, match="needs a time zone offset"):
        make_cast_input("節", date="2024-02-04T16:28:00")


# ---- RDF ----------------------------------------------------------------------------------------

def _n(iri):
    return ox.NamedNode(iri)


def _triples(ci):
    return {(q.subject, q.predicate, q.object) for q in cast_quads(ci)}


def test_quads_are_exactly_the_asserted_contract_for_a_full_cast():
    ci = make_cast_input("節之中孚", date="2024-02-04T16:28:00+08:00", birth="午", topic="求財")
    c = ci.iri
    lyo = lambda x: _n(LYO + x)  # noqa: E731
    a = _n(RDF + "type")
    integer = _n(XSD + "integer")
    expected = {
        (_n(c), a, lyo("Cast")), (_n(c), lyo("castId"), ox.Literal(ci.id)),
        (_n(c), lyo("primaryHexagram"), _n(LYR + "Hexagram60")),
        (_n(c), lyo("changedHexagram"), _n(LYR + "Hexagram61")),
        (_n(c), lyo("topic"), ox.Literal("求財")), (_n(c), lyo("question"), _n(LYR + "TopicWealth")),
        (_n(c), lyo("hasMonth"), _n(c + "/month")), (_n(c), lyo("hasDay"), _n(c + "/day")),
        (_n(c), lyo("hasYear"), _n(c + "/year")), (_n(c), lyo("birthBranch"), _n(LYR + "BranchWu")),
        (_n(c), lyo("castAt"), ox.Literal("2024-02-04T16:28:00+08:00", datatype=_n(XSD + "dateTime"))),
        (_n(c + "/month"), a, lyo("MonthPillar")), (_n(c + "/month"), lyo("inCast"), _n(c)),
        (_n(c + "/month"), lyo("branch"), _n(LYR + "BranchYin")),
        (_n(c + "/month"), lyo("stemBranch"), _n(LYR + "GZ_BingYin")),
        (_n(c + "/day"), a, lyo("DayPillar")), (_n(c + "/day"), lyo("inCast"), _n(c)),
        (_n(c + "/day"), lyo("stemBranch"), _n(LYR + "GZ_WuXu")),
        (_n(c + "/year"), a, lyo("YearPillar")), (_n(c + "/year"), lyo("inCast"), _n(c)),
        (_n(c + "/year"), lyo("stemBranch"), _n(LYR + "GZ_JiaChen")),
        # 16:28 is the 申 hour; a 戊 day's hours start at 壬子 (五鼠遁: 戊癸何方發，壬子是真途), so 庚申
        (_n(c), lyo("hasHour"), _n(c + "/hour")), (_n(c + "/hour"), a, lyo("HourPillar")),
        (_n(c + "/hour"), lyo("inCast"), _n(c)), (_n(c + "/hour"), lyo("stemBranch"), _n(LYR + "GZ_GengShen")),
    }
    for pos, v in enumerate(JIE_ZHONGFU, 1):
        line = _n(f"{c}/line/{pos}")
        expected |= {(_n(c), lyo("hasLine"), line), (line, a, lyo("Line")), (line, lyo("inCast"), _n(c)),
                     (line, lyo("position"), ox.Literal(str(pos), datatype=integer)),
                     (line, lyo("lineValue"), ox.Literal(str(v), datatype=integer))}
    quads = cast_quads(ci)
    assert len(quads) == len(expected)
    assert _triples(ci) == expected


def test_all_quads_are_in_the_cast_graph():
    ci = make_cast_input("節之中孚", month="寅", day="辛亥")
    assert {q.graph_name for q in cast_quads(ci)} == {_n(ci.iri)}


def test_minimal_cast_omits_optional_triples():
    ci = make_cast_input("節", month="寅", day="辛亥")
    preds = {q.predicate.value for q in cast_quads(ci)}
    for absent in ("changedHexagram", "topic", "hasYear", "birthBranch", "castAt"):
        assert LYO + absent not in preds
    month = _n(ci.iri + "/month")
    assert not [t for t in _triples(ci) if t[0] == month and t[1] == _n(LYO + "stemBranch")]
    # 6 lines × 5, cast (type, castId, primary), month (hasMonth, type, inCast, branch), day (same, stemBranch)
    assert len(cast_quads(ci)) == 30 + 3 + 4 + 4


def test_no_derived_facts_are_asserted():
    ci = make_cast_input("節之中孚", date="2024-02-04T16:28:00+08:00", birth="午", topic="求財")
    allowed = {LYO + p for p in ("castId", "primaryHexagram", "changedHexagram", "topic", "question", "hasLine", "hasMonth",
                                 "hasDay", "hasYear", "hasHour", "birthBranch", "castAt", "inCast", "position",
                                 "lineValue", "branch", "stemBranch")} | {RDF + "type"}
    assert {q.predicate.value for q in cast_quads(ci)} <= allowed
    classes = {q.object.value for q in cast_quads(ci) if q.predicate.value == RDF + "type"}
    assert classes == {LYO + c for c in ("Cast", "Line", "MonthPillar", "DayPillar", "YearPillar", "HourPillar")}


def test_hexagram_iris_are_zero_padded():
    ci = make_cast_input("乾之姤", month="寅", day="辛亥")
    objs = {q.object.value for q in cast_quads(ci)}
    assert LYR + "Hexagram01" in objs and LYR + "Hexagram44" in objs


def test_quads_load_into_a_store_and_are_idempotent():
    ci = make_cast_input("節之中孚", month="寅", day="辛亥", topic="求財")
    store = ox.Store()
    store.extend(cast_quads(ci))
    store.extend(cast_quads(make_cast_input("778876", month="寅", day="辛亥", topic="求财")))
    assert len(store) == len(cast_quads(ci))
    rows = list(store.query(
        f"SELECT ?v WHERE {{ GRAPH <{ci.iri}> {{ <{ci.iri}/line/6> <{LYO}lineValue> ?v }} }}"))
    assert [r["v"].value for r in rows] == ["6"]


# --- the asker's sex (男占 / 女占) ---

@pytest.mark.parametrize("given, stored", [("男", "男"), ("女", "女"), ("m", "男"), ("Female", "女"), (" 여 ", "女")])
def test_the_askers_sex_is_normalised_to_nan_or_nu(given, stored):
    ci = make_cast_input("787986", month="巳", day="癸未", sex=given)
    assert ci.sex == stored


def test_an_unknown_sex_is_refused_naming_the_field():
    from liuyao_kg.loaders.errors import BadSex
    with pytest.raises(BadSex) as e:
        make_cast_input("787986", month="巳", day="癸未", sex="x")
    assert e.value.field == "sex"


def test_the_sex_enters_the_cast_id_only_when_given():
    plain = make_cast_input("787986", month="巳", day="癸未")
    assert "sex" not in plain.content()  # casts without it keep the ids they had
    assert make_cast_input("787986", month="巳", day="癸未", sex="男").id != plain.id
    assert make_cast_input("787986", month="巳", day="癸未", sex="女").id != make_cast_input(
        "787986", month="巳", day="癸未", sex="男").id
