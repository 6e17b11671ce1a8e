"""The corpus layer: editions read with their offsets, passages aligned across editions, parallels across works.

The Wikisource editions are read from ../shared/corpora (never copied into the repository); the tests
that need them skip with the reason when that directory is absent.
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
import yaml

import liuyao_kg
from liuyao_kg import queries
from liuyao_kg.cli import main
from liuyao_kg.corpus import align as al
from liuyao_kg.corpus import parallels as par
from liuyao_kg.corpus.add import add_edition, build, sentence_iri
from liuyao_kg.corpus.variants import fold, supplement
from liuyao_kg.corpus.works import CorpusError
from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.loaders.edition import EditionError, read_edition
from liuyao_kg.build import passages as bp

ROOT = Path(__file__).resolve().parents[2]
CORPORA = ROOT.parent / "shared" / "corpora"
HZL = CORPORA / "huozhulin.wikisource.txt"
HJC = CORPORA / "huangjince.wikisource.txt"
REVIEW = ROOT / "tests" / "data" / "parallel_review.yaml"
LYP = "https://w3id.org/liuyao-kg/passage/"
SEED002 = "https://w3id.org/liuyao-kg/seed/002_27074fab81f0590e.txt"
HZL_WS = "https://w3id.org/liuyao-kg/edition/HuoZhuLin/wikisource"
HJC_WS = "https://w3id.org/liuyao-kg/edition/HuangJinCe/wikisource"

needs_corpora = pytest.mark.skipif(not (HZL.is_file() and HJC.is_file()),
                                   reason=f"the Wikisource editions are not at {CORPORA} (shared/corpora beside the repo)")

WIKITEXT = """{{Header
| title  = 測試
}}
== 1、財官 ==
<poem>
財官異路，可辨五鄉；
</poem>
{{*|注云：值旺相为有气，休囚為無氣。}}
* 春，寅卯木旺。
見《[[卜筮元龜|元龟]]》，{{另|太易|太极}}也{{？}}。

== 2、身命 ==
卦值六沖，半世求謀蹭蹬。
[[分類:術數]]
"""


def _write(tmp_path: Path, text: str, name: str = "ed.txt") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


# ------------------------------------------------------------------------------------------------
# reading an edition
# ------------------------------------------------------------------------------------------------

def test_wikitext_markup_is_stripped_and_every_character_keeps_its_offset_in_the_file(tmp_path):
    ed = read_edition(_write(tmp_path, WIKITEXT))
    assert ed.wikitext
    for word in ("{{", "}}", "[[", "<poem>", "注云", "Header", "分類", "卜筮元龜", "太极", "？", "=="):
        assert (word in ed.text) == (word == "注云"), word
    assert "元龟" in ed.text and "太易" in ed.text and "春，寅卯木旺" in ed.text
    assert all(ed.raw[o] == c for c, o in zip(ed.text, ed.origin))
    (v,) = ed.variants
    assert (v.reading, v.alternative, ed.raw[v.offset:v.offset + 2], ed.raw[v.alt_offset:v.alt_offset + 2]) == \
        ("太易", "太极", "太易", "太极")
    assert ed.text[v.start:v.end] == "太易"
    assert [(c.number, c.title) for c in ed.chapters] == [(1, "財官"), (2, "身命")]


def test_sentences_are_numbered_within_their_chapter_and_exclude_headings(tmp_path):
    ed = read_edition(_write(tmp_path, WIKITEXT))
    sents = ed.sentences()
    assert [(s.chapter, s.index, s.text) for s in sents if s.chapter == 2] == [(2, 1, "卦值六沖，半世求謀蹭蹬。")]
    assert all("財官" != s.text and "身命" != s.text for s in sents)
    assert all(ed.text[s.start:s.end] == s.text for s in sents)


def test_plain_text_is_taken_as_it_is(tmp_path):
    ed = read_edition(_write(tmp_path, "卦值六沖，半世求謀蹭蹬。\n"))
    assert not ed.wikitext and ed.text == ed.raw and ed.chapters == []


@pytest.mark.parametrize("data, problem", [(b"\xef\xbb\xbf\xe5\x8d\xa6", "byte-order mark"),
                                           (b"\xff\xfe\x00", "not UTF-8"), (b"hello", "no Chinese text")])
def test_an_unreadable_edition_is_refused_with_the_reason(tmp_path, data, problem):
    p = tmp_path / "bad.txt"
    p.write_bytes(data)
    with pytest.raises(EditionError, match=problem):
        read_edition(p)


# ------------------------------------------------------------------------------------------------
# the variant fold and the alignment
# ------------------------------------------------------------------------------------------------

def test_the_fold_merges_orthographic_variants_and_nothing_else():
    assert fold("為") == fold("爲") == fold("为")
    assert fold("財") == fold("财") and fold("剋") == fold("克") and fold("沖") == fold("冲") == fold("衝")
    assert fold("刑") != fold("形") and fold("官") != fold("宮")


def test_every_supplementary_variant_names_its_source():
    assert supplement() and all(e["char"] != e["fold"] and e["source"] for e in supplement())


def _p(quote: str, prefix: str = "", suffix: str = "") -> al.PassageText:
    return al.PassageText(LYP + "x", "HuoZhuLin", "c", quote, prefix, suffix)


def test_an_exact_quote_aligns_exactly(tmp_path):
    ed = read_edition(_write(tmp_path, "前文。財官異路，可辨五鄉。後文。"))
    (a,) = al.align([_p("財官異路，可辨五鄉")], ed)
    assert (a.method, a.score, ed.text[a.start:a.end], a.variants) == ("exact", 1.0, "財官異路，可辨五鄉", [])


def test_simplified_characters_and_punctuation_align_folded_with_orthographic_variants(tmp_path):
    ed = read_edition(_write(tmp_path, "前文。财官异路 可辨五乡。後文。"))
    (a,) = al.align([_p("財官異路，可辨五鄉")], ed)
    assert a.method == "folded" and a.score == 1.0
    assert {(v.kind, v.base, v.reading) for v in a.variants} == {("orthographic", "財", "财"),
                                                                 ("orthographic", "異", "异"),
                                                                 ("orthographic", "鄉", "乡")}


def test_a_variant_reading_aligns_tolerantly_and_is_recorded_as_textual(tmp_path):
    ed = read_edition(_write(tmp_path, "其一。旺相得地，財官喜靜，吉。其二。"))
    (a,) = al.align([_p("旺相得地，財官喜動，吉")], ed)
    assert a.method == "tolerant" and a.score == pytest.approx(1 - 1 / 9, abs=0.001)
    assert [(v.kind, v.base, v.reading) for v in a.variants] == [("textual", "動", "靜")]


def test_a_passage_the_edition_lacks_is_listed_with_its_best_candidate_and_score(tmp_path):
    ed = read_edition(_write(tmp_path, "旺相得地，妻財持世。"))
    (a,) = al.align([_p("旺相得地，官鬼發動，克世則凶")], ed)
    assert not a.aligned and "scores" in a.reason and a.score < al.THRESHOLD


def test_a_short_quote_must_match_without_edits(tmp_path):
    ed = read_edition(_write(tmp_path, "其一。發難取。"))
    (a,) = al.align([_p("發易取")], ed)
    assert not a.aligned and "too few" in a.reason


def test_a_repeated_formula_is_placed_where_its_context_matches(tmp_path):
    ed = read_edition(_write(tmp_path, "占財：子孫旺相吉。占病：子孫旺相吉。"))
    (a,) = al.align([_p("子孫旺相吉", prefix="問占病：", suffix="。")], ed)
    assert a.candidates == 2 and ed.text[a.start - 3:a.start] == "占病："


# ------------------------------------------------------------------------------------------------
# an alternative reading the edition itself gives ({{另|A|B}})
# ------------------------------------------------------------------------------------------------

ALT_CONTEXT = "本无乾坤，只有"   # 火珠林 (Wikisource): 「本无乾坤，只有{{另|太易|太极}}，太易者」


def test_the_wikisource_huozhulin_gives_one_alternative_reading_and_keeps_its_offsets():
    if not HZL.is_file():
        pytest.skip(f"no {HZL}")
    ed = read_edition(HZL)
    assert {m.group(0) for m in re.finditer(r"\{\{另\|[^}]*\}\}", ed.raw)} == {"{{另|太易|太极}}"}
    (v,) = ed.variants
    assert (ed.raw[v.offset:v.offset + len(v.reading)], ed.raw[v.alt_offset:v.alt_offset + len(v.alternative)]) == \
        ("太易", "太极")
    assert ed.text[v.start - len(ALT_CONTEXT):v.end + 1] == ALT_CONTEXT + "太易，"
    assert "太极" not in ed.text and all(ed.raw[o] == c for c, o in zip(ed.text, ed.origin))
    alt = ed.alternative()
    assert alt.text[v.start - len(ALT_CONTEXT):v.end + 1] == ALT_CONTEXT + "太极，"
    assert all(ed.raw[o] == c for c, o in zip(alt.text, alt.origin))


@pytest.mark.parametrize("quote, variants", [
    ("本無乾坤，只有太易", []),                                    # the text's reading
    ("本無乾坤，只有太極", [("alternative", "太極", "太易", 6)]),    # the alternative, in traditional glyphs
    ("只有太极，太易者", [("alternative", "太极", "太易", 2)]),      # the alternative, verbatim
])
def test_a_passage_aligns_with_either_reading_of_the_edition(quote, variants):
    if not HZL.is_file():
        pytest.skip(f"no {HZL}")
    ed = read_edition(HZL)
    (a,) = al.align([_p(quote)], ed)
    assert a.aligned and a.score == 1.0
    assert [(x.kind, x.base, x.reading, x.offset) for x in a.variants if x.kind != "orthographic"] == variants
    start, end = a.raw_span(ed)  # from the quote's first character to its last, in the file
    han = "".join(c for c in quote if c not in "，")
    assert (fold(ed.raw[start]), fold(ed.raw[end - 1])) == (fold(han[0]), fold(han[-1]))


@needs_corpora
def test_the_alternative_reading_is_a_variant_reading_of_the_edition_with_its_selector(kg):
    rows = kg.select("""PREFIX lyo: <https://w3id.org/liuyao-kg/ontology#> PREFIX oa: <http://www.w3.org/ns/oa#>
        SELECT ?text ?other ?exact ?start ?end WHERE { ?v a lyo:VariantReading ; lyo:variantKind "alternative" ;
        oa:hasSource <%s> ; lyo:editionReading ?text ; lyo:alternativeReading ?other ; oa:hasSelector ?q , ?p .
        ?q oa:exact ?exact . ?p oa:start ?start ; oa:end ?end }""" % HZL_WS)
    raw = HZL.read_text(encoding="utf-8")
    assert [(r["text"], r["other"], r["exact"], raw[r["start"]:r["end"]]) for r in rows] == [("太易", "太极", "太易", "太易")]
    assert kg.reports["hzl"].alternatives == 1


def test_an_alignment_through_the_alternative_reading_records_it(tmp_path):
    if not HZL.is_file():
        pytest.skip(f"no {HZL}")
    import pyoxigraph as ox

    kg = KnowledgeGraph()
    try:
        p, g = ox.NamedNode(LYP + "test-taiji"), ox.NamedNode("https://w3id.org/liuyao-kg/graph/passages")
        lyo = "https://w3id.org/liuyao-kg/ontology#"
        kg.store.extend([ox.Quad(p, ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), ox.NamedNode(lyo + "Passage"), g),
                         ox.Quad(p, ox.NamedNode(lyo + "quote"), ox.Literal("本無乾坤，只有太極", language="zh-Hant"), g),
                         ox.Quad(p, ox.NamedNode(lyo + "work"), ox.NamedNode("https://w3id.org/liuyao-kg/ref/WorkHuoZhuLin"), g)])
        add_edition(kg, HZL, "火珠林", "wikisource")
        rows = queries.run(kg, "passage-editions", passage=p.value)
        readings = {(r["method"], r["variantKind"], r["baseReading"], r["editionReading"])
                    for r in rows if r["edition"] == HZL_WS}  # one row per variant reading
        assert readings == {("folded", "orthographic", "無", "无"), ("folded", "alternative", "太極", "太易")}
    finally:
        kg.close()


# ------------------------------------------------------------------------------------------------
# the two Wikisource editions
# ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def kg():
    if not (HZL.is_file() and HJC.is_file()):
        pytest.skip(f"the Wikisource editions are not at {CORPORA}")
    graph = KnowledgeGraph()
    graph.reports = {"hzl": add_edition(graph, HZL, "火珠林", "wikisource"),
                     "hjc": add_edition(graph, HJC, "黃金策", "wikisource")}
    yield graph
    graph.close()


@needs_corpora
def test_every_seed_passage_of_huozhulin_is_aligned_to_wikisource_or_listed_with_its_reason(kg):
    rep = kg.reports["hzl"]
    seed_passages = [r for r in kg.select(
        "PREFIX lyo: <https://w3id.org/liuyao-kg/ontology#> SELECT DISTINCT ?p WHERE { GRAPH "
        "<https://w3id.org/liuyao-kg/graph/passages> { ?p lyo:seedFile \"002_27074fab81f0590e.txt\" ; lyo:quote ?q } }")]
    assert rep.passages == len(seed_passages) == 156
    assert sum(rep.aligned.values()) + len(rep.unaligned) == rep.passages
    assert rep.aligned == {"exact": 16, "folded": 140} and rep.unaligned == []   # the counts reported in docs/corpus.md


@needs_corpora
def test_each_alignment_points_into_the_original_file_at_text_that_folds_to_the_quote(kg):
    raw = HZL.read_text(encoding="utf-8")
    rows = kg.select("""PREFIX lyo: <https://w3id.org/liuyao-kg/ontology#> PREFIX oa: <http://www.w3.org/ns/oa#>
        SELECT ?quote ?exact ?start ?end WHERE { ?a lyo:alignedPassage ?p ; oa:hasSource <%s> ;
        oa:hasSelector ?q , ?s . ?q oa:exact ?exact . ?s oa:start ?start ; oa:end ?end . ?p lyo:quote ?quote }""" % HZL_WS)
    assert len(rows) == 156
    han = lambda s: fold("".join(c for c in s if "\u3400" <= c <= "\u9fff"))  # noqa: E731
    for r in rows:
        assert raw[r["start"]:r["end"]] == r["exact"] and han(r["exact"]) == han(r["quote"])


@needs_corpora
def test_the_edition_records_its_checksum_and_its_wikisource_title(kg):
    rows = queries.run(kg, "passage-in-edition", passage=LYP + "EightPalaces", edition=HZL_WS)
    assert [(r["method"], r["exact"]) for r in rows] == [("folded", "定一宫管八卦，七卦皆从一宫出")]
    assert rows[0]["prefix"].endswith("官鬼，") and rows[0]["suffix"].startswith("。旁通者")
    facts = kg.select("""PREFIX lyo: <https://w3id.org/liuyao-kg/ontology#> PREFIX dcterms: <http://purl.org/dc/terms/>
        SELECT ?sha ?title ?work WHERE { <%s> lyo:sha256 ?sha ; lyo:wikisourceTitle ?title ; dcterms:isVersionOf ?work }"""
                      % HZL_WS)
    assert facts == [{"sha": hashlib.sha256(HZL.read_bytes()).hexdigest(), "title": "火珠林",
                      "work": "https://w3id.org/liuyao-kg/ref/WorkHuoZhuLin"}]


def test_a_changed_copy_of_a_known_edition_claims_no_wikisource_title(tmp_path):
    if not HZL.is_file():
        pytest.skip(f"no {HZL}")
    copy = _write(tmp_path, HZL.read_text(encoding="utf-8") + "\n", "huozhulin.wikisource.txt")
    quads, rep = build(liuyao_kg.default_graph(), copy, "火珠林", "mine")
    assert not any(q.predicate.value.endswith("#wikisourceTitle") for q in quads)
    assert rep.aligned == {"exact": 16, "folded": 140}


@needs_corpora
def test_variant_readings_between_the_seed_and_wikisource_are_listed_place_by_place(kg):
    rows = queries.run(kg, "edition-variants", first=SEED002, second=HZL_WS)
    eight = [(r["offset"], r["base"], r["firstReading"], r["secondReading"], r["kind"])
             for r in rows if r["passage"] == LYP + "EightPalaces"]
    assert eight == [(2, "宮", "宮", "宫", "orthographic"), (9, "從", "從", "从", "orthographic"),
                     (11, "宮", "宮", "宫", "orthographic")]
    assert len({r["passage"] for r in rows}) == 140  # 156 aligned: the 16 exact ones read the same in both
    assert not any(r["passage"] == LYP + "SeasonalStrength" for r in rows)  # exact, its 。 included


@needs_corpora
def test_editions_of_two_works_have_no_variant_readings_between_them(kg):
    assert queries.run(kg, "edition-variants", first=HZL_WS, second=HJC_WS) == []


WS_EIGHT = "定一宫管八卦，七卦皆从一宫出"   # EightPalaces in the Wikisource edition


def test_two_added_editions_of_a_work_are_compared_where_their_characters_differ(tmp_path):
    if not HZL.is_file():
        pytest.skip(f"no {HZL}")
    raw = HZL.read_text(encoding="utf-8")
    assert raw.count(WS_EIGHT) == 1
    # a second edition: the same file with one glyph restored (从→從) and one character misread (宫→官)
    second = _write(tmp_path, raw.replace(WS_EIGHT, "定一宫管八卦，七卦皆從一官出"), "huozhulin.second.txt")
    kg = KnowledgeGraph()
    try:
        add_edition(kg, HZL, "火珠林", "wikisource")
        add_edition(kg, second, "火珠林", "second")
        rows = queries.run(kg, "edition-variants", first=HZL_WS, second=HZL_WS.replace("wikisource", "second"))
        assert [(r["passage"], r["offset"], r["base"], r["firstReading"], r["secondReading"], r["kind"]) for r in rows] == [
            (LYP + "EightPalaces", 9, "從", "从", "從", "orthographic"),
            (LYP + "EightPalaces", 11, "宮", "宫", "官", "textual")]
        assert (rows[0]["firstText"], rows[0]["secondText"], rows[0]["work"]) == (WS_EIGHT, "定一宫管八卦，七卦皆從一官出", "火珠林")
    finally:
        kg.close()


@needs_corpora
def test_adding_the_same_edition_again_adds_nothing(kg):
    before = len(kg.store)
    rep = add_edition(kg, HJC, "黃金策", "wikisource")
    assert (rep.status, rep.quads, len(kg.store)) == ("unchanged", 0, before)


def test_a_failed_add_leaves_the_store_as_it_was_and_a_new_file_replaces_the_old_graph(tmp_path):
    kg = KnowledgeGraph(tmp_path / "kg")
    try:
        first = add_edition(kg, _write(tmp_path, "財官異路，可辨五鄉。旺相得地。"), "火珠林", "mine")
        size = len(kg.store)
        with pytest.raises(CorpusError, match="YYYY-MM-DD"):
            add_edition(kg, _write(tmp_path, "用財伏兄，口舌相侵。", "b.txt"), "火珠林", "mine", retrieved="yesterday")
        with pytest.raises(EditionError):
            add_edition(kg, tmp_path / "missing.txt", "火珠林", "mine")
        assert len(kg.store) == size and first.status == "added"
        second = add_edition(kg, _write(tmp_path, "用財伏兄，口舌相侵。", "b.txt"), "火珠林", "mine")
        assert second.status == "replaced"
        rows = queries.run(kg, "work-passages-cited", work="火珠林")
        texts = {r["quote"] for r in rows if "/mine/" in r["passage"]}
        assert texts == {"用財伏兄，口舌相侵。"}
    finally:
        kg.close()


def test_sentence_iris_are_the_same_when_the_same_file_is_added_again(tmp_path):
    p = _write(tmp_path, WIKITEXT)
    subjects = [{q.subject.value for q in build(liuyao_kg.default_graph(), p, "黃金策", "t")[0]} for _ in range(2)]
    assert subjects[0] == subjects[1] and sentence_iri("HuangJinCe", "t", 2, 1) in subjects[0]


# ------------------------------------------------------------------------------------------------
# parallels across works
# ------------------------------------------------------------------------------------------------

@needs_corpora
def test_the_issues_example_is_linked_tianxuan_six_clash_to_huangjin_shenming(kg):
    rows = queries.run(kg, "parallels", passage=LYP + "SixClashHexagram")
    hjc = [r for r in rows if r["work"] == "黃金策"]
    assert [(r["chapter"], r["quote"]) for r in hjc] == [("身命", "若問成家，嫌六沖之為卦；")]
    assert hjc[0]["method"] == par.METHOD and hjc[0]["terms"] == "SixClashHexagram" and hjc[0]["status"] == "unreviewed"


@needs_corpora
@pytest.mark.parametrize("chapter", ["天時章", "身命章", "婚姻章", "征戰章", "疾病章"])
def test_rule_sentences_of_each_tianxuan_chapter_are_linked_to_huangjince(kg, chapter):
    rows = kg.select("""PREFIX lyo: <https://w3id.org/liuyao-kg/ontology#>
        SELECT (COUNT(DISTINCT ?from) AS ?n) WHERE { ?l lyo:parallelFrom ?from ; lyo:parallelTo ?to .
        ?from lyo:chapter "%s"@zh-Hant ; ^lyo:citesSource ?rule . ?to lyo:work <https://w3id.org/liuyao-kg/ref/WorkHuangJinCe> }"""
                     % chapter)
    assert rows[0]["n"] > 0


@pytest.fixture(scope="module")
def review():
    return yaml.safe_load(REVIEW.read_text(encoding="utf-8"))


def _pairs(rows) -> list[tuple[str, str]]:
    return [(r["from"], r["to"]) for r in rows]


@needs_corpora
def test_the_reviewed_sample_is_the_seeded_draw_from_the_links_the_method_proposes(kg, review):
    from liuyao_kg.corpus.review import draw_sample, population

    assert review["method"] == par.METHOD
    rows = population(kg, review["method"])
    assert len(rows) == review["links_in_population"]
    assert _pairs(draw_sample(rows, len(review["sample"]), review["seed"])) == _pairs(review["sample"])


def test_the_hand_reviewed_sample_gives_the_recorded_precision(review):
    sample = review["sample"]
    assert len(sample) == 40 and all(s["why"] and isinstance(s["parallel"], bool) for s in sample)
    assert round(sum(s["parallel"] for s in sample) / len(sample), 3) == review["precision"]


@needs_corpora
def test_the_links_judged_parallel_in_the_previous_review_are_still_proposed_at_the_recorded_recall(kg, review):
    from liuyao_kg.corpus.review import population

    proposed = set(_pairs(population(kg, review["method"])))
    known = _pairs(review["previous_positives"])
    assert round(sum(k in proposed for k in known) / len(known), 3) == review["recall_on_previous_positives"]


@needs_corpora
def test_the_question_a_chapter_is_about_is_no_evidence_of_a_parallel():
    # 「財鬼空亡，雖病不死」 and 「空及第三，此病須知腰軟」 share 空 and 病; 病 is what 疾病 is about
    assert par.subjects("疾病") >= {"Illness"}
    assert not par.evidence({"Void", "Illness"}, "疾病", {"Void": 9.0, "Illness": 9.0})
    assert par.evidence({"Void", "Wealth"}, "疾病", {"Void": 2.0, "Wealth": 2.0})
    assert par.evidence({"SixClashHexagram"}, "身命", {"SixClashHexagram": 3.5})
    assert not par.evidence({"Shi", "Ying"}, "婚姻", {"Shi": 1.0, "Ying": 1.0})  # common in the chapter: too little


def test_a_hexagram_name_is_not_a_mention_of_its_trigrams_images():
    assert par.mentions("如風地觀二爻乙巳，鬼身亦在二爻") == ["Hexagram20", "Officer"]
    assert "Wind" in par.mentions("頭風有准")


@needs_corpora
def test_a_parallel_link_is_a_proposal_and_never_merges_two_rules(kg):
    rows = kg.select("""PREFIX owl: <http://www.w3.org/2002/07/owl#> PREFIX lyo: <https://w3id.org/liuyao-kg/ontology#>
        SELECT ?x WHERE { { ?x owl:sameAs ?y } UNION { ?x lyo:parallelFrom ?a ; lyo:parallelTo ?a } }""")
    assert rows == []


@needs_corpora
def test_everything_every_classic_says_about_six_clash_spans_the_works(kg):
    rows = queries.run(kg, "term-across-works", term="SixClashHexagram")
    assert {(r["how"], r["work"]) for r in rows} >= {("defines", "天玄賦"), ("defines", "易冒"), ("mentions", "黃金策")}
    assert all("六沖" in r["quote"] for r in rows if r["how"] == "mentions")


@needs_corpora
def test_cited_and_never_cited_passages_of_a_work_are_told_apart(kg):
    rows = queries.run(kg, "work-passages-cited", work="火珠林")
    cited = {r["passage"] for r in rows if r["cited"]}
    assert LYP + "EightPalaces" in cited
    assert not any(r["cited"] for r in rows if "/wikisource/" in r["passage"])
    assert len(rows) == 156 + kg.reports["hzl"].sentences


# ------------------------------------------------------------------------------------------------
# a judgment's passage in every loaded edition
# ------------------------------------------------------------------------------------------------

@needs_corpora
def test_a_judgment_shows_its_passage_in_every_loaded_edition(kg):
    chart = liuyao_kg.cast("節之中孚", month="寅", day="辛亥", topic="求財", kg=kg)
    j = next(j for j in chart["judgments"] if j["source"]["chapter"] == "財伏父母，旺相得半")
    where = [(e["edition"], e["method"], e["score"]) for e in j["source"]["editions"]]
    assert where == [(SEED002, "quoted", 1.0), (HZL_WS, "folded", 1.0)]
    assert j["source"]["editions"][1]["exact"] == "若子孙旺相，父母爻持世应，亦不能克子孙，求财亦有"


def test_without_added_editions_a_judgment_lists_the_edition_it_was_quoted_from():
    chart = liuyao_kg.cast("節之中孚", month="寅", day="辛亥", topic="求財")
    assert all([e["method"] for e in j["source"]["editions"]] == ["quoted"] for j in chart["judgments"])


@needs_corpora
def test_why_prints_the_reading_of_each_added_edition(tmp_path, capsys):
    store = str(tmp_path / "kg")
    assert main(["corpus", "add", str(HZL), "--work", "火珠林", "--edition", "wikisource", "--store", store]) == 0
    assert "aligned 156 (exact 16, folded 140); not found 0" in capsys.readouterr().out
    assert main(["why", "節之中孚", "--month", "寅", "--day", "辛亥", "--topic", "求財", "--store", store]) == 0
    assert "huozhulin.wikisource.txt [3488–3512] 異體相通 1.00：「若子孙旺相，父母爻持世应，亦不能克子孙，求财亦有」" \
        in capsys.readouterr().out
    assert main(["why", "節之中孚", "--month", "寅", "--day", "辛亥", "--topic", "求財", "--store", store, "--lang", "en"]) == 0
    assert "in huozhulin.wikisource.txt [3488–3512] folded 1.00: 「若子孙旺相，父母爻持世应，亦不能克子孙，求财亦有」" \
        in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["corpus", "add", "x.txt", "--work", "水滸傳", "--edition", "a"], "unknown work '水滸傳'"),
    (["corpus", "add", "x.txt", "--work", "火珠林", "--edition", "維基"], "edition name '維基'"),
    (["corpus", "add", "--work", "火珠林"], "corpus add needs FILE, --edition"),
    (["corpus", "add", "no-such-file.txt", "--work", "火珠林", "--edition", "a"], "edition file not found"),
    (["corpus", "add", "x.txt", "--work", "火珠林", "--edition", "a", "--source", "https://a b"], "not a valid IRI"),
    (["corpus", "add", "x.txt", "--work", "火珠林", "--edition", "a", "--source", "ftp://example.org/x"], "give a URL"),
    (["corpus", "review"], "corpus review needs FILE"),
])
def test_bad_corpus_input_is_refused_by_name_without_a_traceback(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


# ------------------------------------------------------------------------------------------------
# passages citing a non-seed classic (the contract with the reading branch)
# ------------------------------------------------------------------------------------------------

def test_a_passage_citing_huangjince_is_anchored_in_its_wikisource_edition(tmp_path):
    if not HJC.is_file():
        pytest.skip(f"no {HJC}")
    entry = {"id": "HJC-ShenMing-SixClash", "terms": ["SixClashHexagram"], "work": "HuangJinCe", "chapter": "身命",
             "corpus": "huangjince.wikisource.txt", "quote": "若問成家，嫌六沖之為卦", "korean": None,
             "gloss_en": "asking about founding a household, a six-clash hexagram is disliked"}
    y = tmp_path / "p.yaml"
    y.write_text(yaml.safe_dump({"passages": [entry]}, allow_unicode=True), encoding="utf-8")
    ttl = bp.generate(bp.DEFAULT_SEEDS, y, CORPORA)
    import pyoxigraph as ox
    store = ox.Store()
    store.load(ttl.encode(), format=ox.RdfFormat.TURTLE)
    rows = list(store.query("""PREFIX oa: <http://www.w3.org/ns/oa#> PREFIX lyo: <https://w3id.org/liuyao-kg/ontology#>
        SELECT ?src ?start ?end ?title WHERE { <%sHJC-ShenMing-SixClash> oa:hasSource ?src ; oa:hasSelector ?s ;
        lyo:seedFile "huangjince.wikisource.txt" .
        ?s oa:start ?start ; oa:end ?end . ?src lyo:wikisourceTitle ?title }""" % LYP))
    assert len(rows) == 1
    src, start, end, title = (rows[0][v] for v in ("src", "start", "end", "title"))
    assert src.value == HJC_WS and title.value == "黃金策"
    assert HJC.read_text(encoding="utf-8")[int(start.value):int(end.value)] == "若問成家，嫌六沖之為卦"
    # adding that edition later aligns the passage there: exactly, at the offsets build_passages computed
    kg = KnowledgeGraph()
    kg.store.load(ttl.encode(), format=ox.RdfFormat.TURTLE,
                  to_graph=ox.NamedNode("https://w3id.org/liuyao-kg/graph/passages"))
    rep = add_edition(kg, HJC, "黃金策", "wikisource")
    # the package's own 黃金策 passages (the reading's) align exactly too
    package = sum(1 for e in yaml.safe_load((ROOT / "ontology" / "passages.yaml").read_text("utf-8"))["passages"]
                  if e.get("corpus") == "huangjince.wikisource.txt")
    assert rep.aligned == {"exact": 1 + package}
    rows = queries.run(kg, "passage-in-edition", passage=LYP + "HJC-ShenMing-SixClash", edition=HJC_WS)
    assert sorted((r["method"], r["start"], r["end"]) for r in rows) == [
        ("exact", int(start.value), int(end.value)), ("quoted", int(start.value), int(end.value))]


def test_a_passage_with_both_seed_and_corpus_is_refused(tmp_path):
    y = tmp_path / "p.yaml"
    y.write_text(yaml.safe_dump({"passages": [{"id": "X", "terms": ["T"], "work": "HuangJinCe", "chapter": "c",
                                               "seed": "s.txt", "corpus": "c.txt", "quote": "q", "gloss_en": "g"}]}),
                 encoding="utf-8")
    with pytest.raises(bp.PassageError, match="exactly one of seed"):
        bp.load_entries(y)


def test_an_edition_is_aligned_again_when_the_passages_it_was_aligned_against_change(tmp_path):
    import pyoxigraph as ox

    from liuyao_kg.store import versioning

    kg = KnowledgeGraph()
    p = _write(tmp_path, "財官異路，可辨五鄉。")
    assert add_edition(kg, p, "火珠林", "mine").status == "added"
    assert add_edition(kg, p, "火珠林", "mine").status == "unchanged"
    meta, passages = ox.NamedNode(versioning.GRAPH_META), ox.NamedNode("https://w3id.org/liuyao-kg/graph/passages")
    has_version = ox.NamedNode("http://purl.org/dc/terms/hasVersion")
    for q in list(kg.store.quads_for_pattern(passages, has_version, None, meta)):
        kg.store.remove(q)
    kg.store.add(ox.Quad(passages, has_version, ox.Literal("sha256:another-rule-base"), meta))
    assert add_edition(kg, p, "火珠林", "mine").status == "replaced"


@needs_corpora
def test_reviews_set_the_status_of_the_links_and_survive_re_adding_the_edition(tmp_path, capsys):
    store = str(tmp_path / "kg")
    assert main(["corpus", "add", str(HJC), "--work", "黃金策", "--edition", "wikisource", "--store", store]) == 0
    assert main(["corpus", "review", str(REVIEW), "--store", store]) == 0
    assert "reviewed 40: applied 40 (accepted 21, rejected 19); not in the store 0" in capsys.readouterr().out
    kg = KnowledgeGraph(store)
    try:
        from liuyao_kg.corpus.review import statuses

        before = statuses(kg)
        assert len(before) == 40 and sum(v == "accepted" for v in before.values()) == 21
        judged = next(s for s in yaml.safe_load(REVIEW.read_text(encoding="utf-8"))["sample"] if s["parallel"])
        rows = queries.run(kg, "parallels", passage=judged["from"])
        assert {r["other"]: r["status"] for r in rows}[judged["to"]] == "accepted"
        # the same file under the same name with a changed passages layer: the graph is rebuilt, reviews kept
        import pyoxigraph as ox

        from liuyao_kg.store import versioning
        meta, passages = ox.NamedNode(versioning.GRAPH_META), ox.NamedNode("https://w3id.org/liuyao-kg/graph/passages")
        has_version = ox.NamedNode("http://purl.org/dc/terms/hasVersion")
        for q in list(kg.store.quads_for_pattern(passages, has_version, None, meta)):
            kg.store.remove(q)
        kg.store.add(ox.Quad(passages, has_version, ox.Literal("sha256:another-rule-base"), meta))
        assert add_edition(kg, HJC, "黃金策", "wikisource").status == "replaced"
        assert statuses(kg) == before
    finally:
        kg.close()


def test_a_malformed_review_file_is_refused_by_name(tmp_path, capsys):
    bad = _write(tmp_path, "sample:\n  - {from: a}\n", "r.yaml")
    assert main(["corpus", "review", str(bad)]) == 2
    assert "entry 1 needs from (IRI), to (IRI) and parallel" in capsys.readouterr().err


@needs_corpora
@pytest.mark.exhaustive
def test_the_corpus_benchmark_runs_end_to_end():
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "corpus.py"), "--casts", "2"],
                         capture_output=True, text=True, check=True).stdout
    result = json.loads(out)
    assert set(result["median_ms_per_cast"]) == {"judgment-editions", "cast-judgments", "chart"}
    assert result["quads"]["huangjince.wikisource.txt"] > 0
