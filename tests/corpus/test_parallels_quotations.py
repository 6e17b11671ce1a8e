"""Quotations across works (quotation/ngram-align/v1) and the plain-text reader 卜筮正宗 is read with.

Pure functions on constructed texts, and the real ctext file from ../shared/corpora (skipped, saying why,
when that directory is absent).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from liuyao_kg.corpus import quotations as quo
from liuyao_kg.corpus.parallels import Text
from liuyao_kg.loaders.edition import read_edition

ROOT = Path(__file__).resolve().parents[2]
BZZZ = ROOT.parent / "shared" / "corpora" / "buzheng-zhengzong.ctext.txt"


def _links(a: str, b: str, *, work_b: str = "卜筮正宗", chapter_a: str = "身命", chapter_b: str = "天時"):
    return quo.link([Text("urn:a", "黃金策", chapter_a, a)], [Text("urn:b", work_b, chapter_b, b)])


def test_a_line_quoted_inside_a_longer_sentence_of_another_work_is_a_quotation_scoring_one():
    [link] = _links("若問成家，嫌六沖之為卦；", "由此卦觀之，黃金策云：若問成家嫌六衝之為，卦要知創業喜六合之成．")
    assert (link.source, link.target, link.score, link.kind, link.method) == ("urn:a", "urn:b", 1.0, "quotation",
                                                                             quo.METHOD)


def test_a_quotation_is_found_whatever_the_two_chapters_are_about():
    assert _links("世應俱空，人無准實", "世應俱空，人無准實?", chapter_a="身命", chapter_b="求財")


def test_a_near_quotation_with_one_character_changed_is_proposed_below_one():
    [link] = _links("鬼化鬼其病進退或有變症或旧病發", "鬼化鬼其病進退或有變病或旧病再發")
    assert quo.MIN_SCORE <= link.score < 1.0


def test_a_shared_four_character_formula_is_not_a_quotation():
    assert _links("陽鬼，夜輕日重", "上實下空，夜輕日重") == []
    assert _links("世應俱空，宜見昇平之樂", "世應俱空，難遂百年之連理") == []


def test_two_passages_of_one_work_are_never_linked():
    assert _links("若問成家，嫌六沖之為卦", "若問成家，嫌六沖之為卦", work_b="黃金策") == []


def test_the_score_is_the_aligned_share_of_the_shorter_text():
    # 「用神發動」 of the seven characters are aligned to a seven-character window of the longer text
    m = quo.score(quo.folded("用神發動生世爻"), quo.folded("卦中若是用神發動，則吉凶可知"))
    assert m.aligned == 4 and m.score == pytest.approx(2 * 4 / (7 + 7), abs=0.001)


# ------------------------------------------------------------------------------------------------
# the plain-text reader: title lines, ．and ? as sentence ends
# ------------------------------------------------------------------------------------------------

def test_a_plain_text_has_its_title_lines_as_chapters_and_ends_sentences_at_the_ctext_full_stop(tmp_path):
    p = tmp_path / "ed.txt"
    p.write_text("卷一\n\n月破論第九\n\n月破者，無用．或曰有用?\n\n甲子乙丑\t海中金\n\n天時\t地利\n\n"
                 "黃金策總斷千金賦直解　劉誠意撰\n\n世為己，應為人\n", encoding="utf-8")
    ed = read_edition(p)
    assert [c.title for c in ed.chapters] == ["卷一", "月破論第九"]
    assert [(s.chapter, s.text) for s in ed.sentences()] == [
        (2, "月破者，無用．"), (2, "或曰有用?"), (2, "甲子乙丑\t海中金"), (2, "天時\t地利"),
        (2, "黃金策總斷千金賦直解　劉誠意撰"), (2, "世為己，應為人")]


@pytest.mark.skipif(not BZZZ.is_file(), reason=f"卜筮正宗 is not at {BZZZ} (shared/corpora beside the repo)")
def test_buzheng_zhengzong_is_read_into_its_juan_treatises_and_huangjince_chapters():
    ed = read_edition(BZZZ)
    titles = [c.title for c in ed.chapters]
    assert len(titles) == 122 and len(ed.sentences()) == 3452     # the figures docs/corpus.md gives
    for t in ("卷一", "卜筮正宗凡例", "月破論第九", "黃金策總斷千金賦直解", "天時", "何知章", "十八論", "卷四"):
        assert t in titles
    assert titles.index("黃金策總斷千金賦直解") < titles.index("天時") < titles.index("何知章")
    assert all(ed.raw[s.start:s.end] == s.text for s in ed.sentences())   # plain text: offsets are the file's
    first = next(s for s in ed.sentences() if ed.chapters[s.chapter - 1].title == "黃金策總斷千金賦直解")
    assert first.text == "動靜陰陽，反複遷變?"
