"""The hand-labelled development gold set of parallel passages (tests/data/parallel_gold.yaml, issue #42).

The file is a specification the detector is measured against, so its own shape is checked here: the
fields, the five labels and the five works, each file belonging to its work, each quote copied exactly
from its file, and enough pairs of each label. The texts are read from ../shared (never copied into the
repository); the checks that need them skip with the reason when that directory is absent.
"""
from __future__ import annotations

import re
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
import yaml

from liuyao_kg.corpus.variants import fold, han_only

ROOT = Path(__file__).resolve().parents[2]
GOLD = ROOT / "tests" / "data" / "parallel_gold.yaml"
SHARED = ROOT.parent / "shared"
FOLDERS = (SHARED / "seeds", SHARED / "corpora")

LABELS = {"verbatim", "near", "paraphrase", "negative", "edition"}
FIELDS = ["id", "label", "work_a", "file_a", "quote_a", "work_b", "file_b", "quote_b", "why"]
# Each file and the work it holds (seeds: see ../shared/DOMAIN.md; corpora: see ../shared/corpora/README.md).
WORK_OF = {
    "000_611f20e21d588b1f.txt": "易冒",
    "001_ae0d597f985cbbc0.txt": "天玄賦",
    "004_c94ecca433cec648.txt": "天玄賦",
    "002_27074fab81f0590e.txt": "火珠林",
    "huozhulin.wikisource.txt": "火珠林",
    "huangjince.wikisource.txt": "黃金策",
    "buzheng-zhengzong.ctext.txt": "卜筮正宗",
}
WORKS = set(WORK_OF.values())
# 卜筮正宗 carries 黃金策's text (its 千金賦): there it is a witness of 黃金策, for edition pairs only.
CARRIES = {("buzheng-zhengzong.ctext.txt", "黃金策")}
# The counts the task asks for, "at least roughly": about 35 / 20 / 25 / 30 (20 hard) / 15.
AT_LEAST = {"verbatim": 30, "near": 17, "paraphrase": 21, "negative": 25, "edition": 12}
HARD_NEGATIVES = 20
MARKUP = re.compile(r"[{}\[\]<>|=]|''")
HANGUL = re.compile("[\uac00-\ud7af]")

needs_shared = pytest.mark.skipif(not all(d.is_dir() for d in FOLDERS),
                                  reason=f"the classics are not at {SHARED} (seeds/ and corpora/ beside the repo)")


@cache
def pairs() -> list[dict]:
    return yaml.safe_load(GOLD.read_text(encoding="utf-8"))["pairs"]


@cache
def read(name: str) -> str:
    for d in FOLDERS:
        if (d / name).is_file():
            return (d / name).read_text(encoding="utf-8")
    raise FileNotFoundError(name)


def sides(p: dict):
    yield p["work_a"], p["file_a"], p["quote_a"]
    yield p["work_b"], p["file_b"], p["quote_b"]


def folded(s: str) -> str:
    return fold(han_only(s)[0])


def test_every_pair_has_exactly_the_fields_of_the_shared_shape():
    bad = [(p.get("id"), sorted(p)) for p in pairs() if sorted(p) != sorted(FIELDS)]
    assert not bad, bad
    assert all(isinstance(p[k], str) and p[k].strip() for p in pairs() for k in FIELDS)


def test_ids_are_unique():
    dup = [i for i, n in Counter(p["id"] for p in pairs()).items() if n > 1]
    assert not dup, dup


def test_labels_are_the_five():
    assert {p["label"] for p in pairs()} <= LABELS


def test_works_are_the_five_known_works_and_each_file_holds_its_work():
    wrong = [(p["id"], work, name) for p in pairs() for work, name, _ in sides(p)
             if not (WORK_OF.get(name) == work or ((name, work) in CARRIES and p["label"] == "edition"))]
    assert {w for p in pairs() for w, _, _ in sides(p)} <= WORKS
    assert not wrong, wrong


def test_edition_pairs_join_two_witnesses_of_one_work_and_every_other_pair_two_works():
    wrong = [p["id"] for p in pairs()
             if (p["work_a"] == p["work_b"]) != (p["label"] == "edition")
             or (p["label"] == "edition" and p["file_a"] == p["file_b"])]
    assert not wrong, wrong


def test_quotes_are_a_clause_or_a_sentence_without_wiki_markup():
    long_or_short = [(p["id"], q) for p in pairs() for _, _, q in sides(p) if not 4 <= len(q) <= 120]
    markup = [(p["id"], q) for p in pairs() for _, _, q in sides(p) if MARKUP.search(q) or "\n" in q]
    assert not long_or_short, long_or_short
    assert not markup, markup


def test_quotes_are_classical_chinese_not_the_korean_commentary():
    korean = [(p["id"], q) for p in pairs() for _, _, q in sides(p) if HANGUL.search(q)]
    assert not korean, korean


@needs_shared
def test_each_quote_is_an_exact_substring_of_its_file():
    missing = [(p["id"], name, q) for p in pairs() for _, name, q in sides(p) if q not in read(name)]
    assert not missing, missing


@needs_shared
def test_each_quote_occurs_once_in_its_file_so_its_location_is_unambiguous():
    repeated = [(p["id"], name, q, read(name).count(q)) for p in pairs() for _, name, q in sides(p)
                if read(name).count(q) > 1]
    assert not repeated, repeated


def test_no_pair_is_listed_twice_in_either_order():
    keys = Counter(frozenset([(p["file_a"], p["quote_a"]), (p["file_b"], p["quote_b"])]) for p in pairs())
    dup = [sorted(k) for k, n in keys.items() if n > 1]
    assert not dup, dup


def test_verbatim_pairs_differ_only_in_punctuation_and_orthographic_variants():
    differ = [(p["id"], p["quote_a"], p["quote_b"]) for p in pairs()
              if p["label"] == "verbatim" and folded(p["quote_a"]) != folded(p["quote_b"])]
    assert not differ, differ


def test_near_and_paraphrase_pairs_are_not_verbatim_once_variants_are_folded():
    same = [p["id"] for p in pairs()
            if p["label"] in ("near", "paraphrase") and folded(p["quote_a"]) == folded(p["quote_b"])]
    assert not same, same


def test_there_are_at_least_100_pairs_with_every_label_in_about_the_asked_proportion():
    counts = Counter(p["label"] for p in pairs())
    assert len(pairs()) >= 100
    assert {k: counts[k] for k in AT_LEAST if counts[k] < AT_LEAST[k]} == {}


def test_most_negatives_are_hard_ones_and_each_negative_says_which():
    negatives = [p for p in pairs() if p["label"] == "negative"]
    kinds = Counter(p["why"].split(":", 1)[0] for p in negatives)
    assert set(kinds) <= {"hard", "easy"}, kinds
    assert kinds["hard"] >= HARD_NEGATIVES and kinds["hard"] > kinds["easy"]


def test_the_pairs_span_many_pairs_of_works():
    joined = Counter(frozenset([p["work_a"], p["work_b"]]) for p in pairs() if p["label"] != "edition")
    for a, b in [("卜筮正宗", "黃金策"), ("天玄賦", "黃金策"), ("火珠林", "黃金策"), ("易冒", "卜筮正宗"),
                 ("火珠林", "卜筮正宗"), ("天玄賦", "火珠林")]:
        assert joined[frozenset([a, b])] >= 2, (a, b)
    assert len(joined) >= 8
