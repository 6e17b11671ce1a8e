"""The citation form of a passage (liuyao_kg/corpus/urn.py, docs/citation.md): the grammar, the seeds'
segmentation, the URNs the passages layer and `corpus add` write, and that each cites the characters it names.

The seeds and corpora are read from ../shared (never copied into the repository); the tests that need them
skip with the reason when that directory is absent.
"""
from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest
import rdflib

from liuyao_kg.build import passages as bp
from liuyao_kg.cli import main
from liuyao_kg.corpus import urn
from liuyao_kg.corpus.add import build as build_edition
from liuyao_kg.corpus.works import CorpusError, known_by_file
from liuyao_kg.loaders.edition import read_edition
from liuyao_kg.store.embedded import KnowledgeGraph

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
SEEDS = SHARED / "seeds"
CORPORA = SHARED / "corpora"
HJC = CORPORA / "huangjince.wikisource.txt"
BSZZ = CORPORA / "buzheng-zhengzong.ctext.txt"
PASSAGE_FILES = (ROOT / "ontology" / "passages.ttl", ROOT / "ontology" / "chapter-passages.ttl")
LYP = "https://w3id.org/liuyao-kg/passage/"
IDENTIFIER = rdflib.URIRef("http://purl.org/dc/terms/identifier")
LYO = rdflib.Namespace("https://w3id.org/liuyao-kg/ontology#")
OA = rdflib.Namespace("http://www.w3.org/ns/oa#")

needs_seeds = pytest.mark.skipif(not SEEDS.is_dir(), reason=f"the seed texts are not at {SEEDS} (shared/ beside the repo)")
needs_hjc = pytest.mark.skipif(not HJC.is_file(), reason=f"Wikisource's 黃金策 is not at {HJC} (shared/corpora)")


# ------------------------------------------------------------------------------------------------
# the grammar
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, work, edition, first, last, chars", [
    ("urn:liuyao:HuoZhuLin:wikisource:12.3", "HuoZhuLin", "wikisource", (12, 3), (12, 3), None),
    ("urn:liuyao:HuangJinCe:wikisource:0.2", "HuangJinCe", "wikisource", (0, 2), (0, 2), None),
    ("urn:liuyao:HuoZhuLin:seed002:12.3-5", "HuoZhuLin", "seed002", (12, 3), (12, 5), None),
    ("urn:liuyao:YiMao:seed000:12.3-13.1", "YiMao", "seed000", (12, 3), (13, 1), None),
    ("urn:liuyao:YiMao:seed000:71.1@1-5", "YiMao", "seed000", (71, 1), (71, 1), (1, 5)),
    ("urn:liuyao:TianXuanFu:my.copy_2:3.4-4.1@6-30", "TianXuanFu", "my.copy_2", (3, 4), (4, 1), (6, 30)),
])
def test_a_urn_parses_into_work_edition_sentences_and_characters_and_prints_back_the_same(text, work, edition, first,
                                                                                          last, chars):
    u = urn.parse(text)
    assert (u.work, u.edition, (u.first.chapter, u.first.sentence), (u.last.chapter, u.last.sentence), u.chars) == (
        work, edition, first, last, chars)
    assert str(u) == text


def test_the_prefix_is_case_insensitive_as_rfc_8141_says_and_is_printed_in_lower_case():
    assert str(urn.parse("URN:LIUYAO:HuoZhuLin:wikisource:1.1")) == "urn:liuyao:HuoZhuLin:wikisource:1.1"


@pytest.mark.parametrize("text, message", [
    ("urn:liuyao:Nope:x:1.1", "unknown work 'Nope'"),
    ("urn:liuyao:HuoZhuLin:wikisource:1.x", "the sentence 'x' is not a number"),
    ("urn:liuyao:HuoZhuLin:wikisource:x.1", "the chapter 'x' is not a number"),
    ("urn:liuyao:HuoZhuLin:wikisource:12", "'12' is not CHAPTER.SENTENCE"),
    ("urn:liuyao:HuoZhuLin:wikisource:06.6", "the chapter '06' has a leading zero"),
    ("urn:liuyao:HuoZhuLin:wikisource:6.0", "the sentence is 0; it counts from 1"),
    ("urn:liuyao:HuoZhuLin:wikisource:6.5-3", "must end after it starts"),
    ("urn:liuyao:HuoZhuLin:wikisource:6.5-5", "for one sentence write 6.5"),
    ("urn:liuyao:HuoZhuLin:wikisource:6.3-6.5", "within one chapter write 6.3-5"),
    ("urn:liuyao:HuoZhuLin:wikisource:6.3@5", "must be FIRST-LAST"),
    ("urn:liuyao:HuoZhuLin:wikisource:6.3@5-2", "end before they start"),
    ("urn:liuyao:HuoZhuLin:wiki source:6.3", "edition name 'wiki source'"),
    ("urn:liuyao:HuoZhuLin:6.3", "no edition-independent numbering"),
    ("urn:liuyao:HuoZhuLin:wikisource:6.3:x", "got 4"),
    ("urn:ctext:HuoZhuLin:wikisource:6.3", "must start with 'urn:liuyao:'"),
])
def test_a_malformed_urn_is_refused_with_a_message_naming_the_fault(text, message):
    with pytest.raises(urn.UrnError, match=re.escape(message)):
        urn.parse(text)
    assert issubclass(urn.UrnError, CorpusError)  # the CLI's exit status 2


# ------------------------------------------------------------------------------------------------
# the seeds' segmentation: classical paragraphs, the Korean not counted
# ------------------------------------------------------------------------------------------------

SEED_LIKE = """화주림(火珠林) 제목

四營成易，八卦為體；三才變化，六爻為義。

「사영(四營)」은 네 가지 절차이다。

注云：書有三而異用。又云：一曰治天下！
二曰論長生？

——
"""


def test_a_seeds_classical_paragraphs_are_numbered_from_one_with_the_korean_and_bare_punctuation_not_counted():
    got = [(s.chapter, s.index, s.text) for s in urn.seed_sentences(SEED_LIKE)]
    assert got == [(1, 1, "四營成易，八卦為體；"), (1, 2, "三才變化，六爻為義。"),
                   (2, 1, "注云：書有三而異用。"), (2, 2, "又云：一曰治天下！"), (2, 3, "二曰論長生？")]
    for s in urn.seed_sentences(SEED_LIKE):
        assert SEED_LIKE[s.start:s.end] == s.text


@needs_seeds
@pytest.mark.parametrize("seed", sorted(p.name for p in SEEDS.glob("*.txt")) if SEEDS.is_dir() else [])
def test_no_seed_sentence_holds_korean_and_each_is_the_file_at_its_offsets(seed):
    text = (SEEDS / seed).read_text(encoding="utf-8")
    sentences = urn.seed_sentences(text)
    assert len(sentences) > 100
    assert not [s for s in sentences if re.search("[\uac00-\ud7a3]", s.text)]
    assert all(text[s.start:s.end] == s.text for s in sentences)
    keys = [(s.chapter, s.index) for s in sentences]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)


@needs_seeds
def test_the_first_classical_sentence_of_seed_002_is_1_1_after_its_korean_title():
    text = (SEEDS / "002_27074fab81f0590e.txt").read_text(encoding="utf-8")
    first = urn.seed_sentences(text)[0]
    assert (first.chapter, first.index, first.text) == (1, 1, "四營成易，八卦為體；")
    u = urn.cite("HuoZhuLin", "seed002", urn.seed_sentences(text), text, first.start, first.end - 1)
    assert str(u) == "urn:liuyao:HuoZhuLin:seed002:1.1"  # the quote leaves out the sentence's ；: still the sentence


# ------------------------------------------------------------------------------------------------
# citing a span and the span a URN cites
# ------------------------------------------------------------------------------------------------

def _cite(quote: str, occurrence: int = 1) -> str:
    start = [m.start() for m in re.finditer(re.escape(quote), SEED_LIKE)][occurrence - 1]
    return str(urn.cite("HuoZhuLin", "seed002", urn.seed_sentences(SEED_LIKE), SEED_LIKE, start, start + len(quote)))


@pytest.mark.parametrize("quote, cited", [
    ("四營成易，八卦為體；", "urn:liuyao:HuoZhuLin:seed002:1.1"),
    ("四營成易，八卦為體", "urn:liuyao:HuoZhuLin:seed002:1.1"),
    ("八卦為體", "urn:liuyao:HuoZhuLin:seed002:1.1@6-9"),
    ("四營成易，八卦為體；三才變化，六爻為義", "urn:liuyao:HuoZhuLin:seed002:1.1-2"),
    ("八卦為體；三才變化", "urn:liuyao:HuoZhuLin:seed002:1.1-2@6-14"),
    ("一曰治天下！\n二曰論長生", "urn:liuyao:HuoZhuLin:seed002:2.2-3@4-15"),
])
def test_a_quote_is_cited_by_its_sentences_and_by_its_characters_only_when_it_is_part_of_them(quote, cited):
    assert _cite(quote) == cited
    start, end = urn.span(urn.parse(cited), urn.seed_sentences(SEED_LIKE), SEED_LIKE)
    assert SEED_LIKE[start:end] == quote.strip("；")


def test_a_quote_in_the_korean_commentary_cannot_be_cited():
    with pytest.raises(urn.UrnError, match="does not start in a sentence"):
        _cite("네 가지 절차")


@pytest.mark.parametrize("cited, message", [
    ("urn:liuyao:HuoZhuLin:seed002:3.1", "has no sentence 3.1"),
    ("urn:liuyao:HuoZhuLin:seed002:1.1@6-40", "do not start in sentence 1.1 and end in 1.1"),
    ("urn:liuyao:HuoZhuLin:seed002:1.1@1-9", "characters 1-9 are cited as urn:liuyao:HuoZhuLin:seed002:1.1"),
    ("urn:liuyao:HuoZhuLin:seed002:1.1@1-10", "characters 1-10 are cited as urn:liuyao:HuoZhuLin:seed002:1.1"),
    ("urn:liuyao:HuoZhuLin:seed002:1.1@5-9", "characters 5-9 are cited as urn:liuyao:HuoZhuLin:seed002:1.1@6-9"),
])
def test_a_well_formed_urn_that_cites_no_place_of_the_text_is_refused(cited, message):
    with pytest.raises(urn.UrnError, match=re.escape(message)):
        urn.span(urn.parse(cited), urn.seed_sentences(SEED_LIKE), SEED_LIKE)


# ------------------------------------------------------------------------------------------------
# the passages layer: one URN a passage, citing exactly the characters its selectors point at
# ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def layer() -> rdflib.Graph:
    g = rdflib.Graph()
    for f in PASSAGE_FILES:
        g.parse(f, format="turtle")
    return g


def _position(g: rdflib.Graph, p) -> tuple[int, int]:
    sel = rdflib.URIRef(str(p) + "/position")
    return int(g.value(sel, OA.start)), int(g.value(sel, OA.end))


def test_every_passage_of_the_package_has_exactly_one_urn_of_its_work_and_edition(layer):
    passages = set(layer.subjects(rdflib.RDF.type, LYO.Passage))
    assert len(passages) > 1000   # passages.yaml's and the chapter rules' (1,766 at this writing)
    for p in passages:
        ids = list(layer.objects(p, IDENTIFIER))
        assert len(ids) == 1, p
        u = urn.parse(str(ids[0]))
        assert str(u) == str(ids[0])   # canonical
        assert str(layer.value(p, LYO.work)).endswith("Work" + u.work)
        seed = str(layer.value(p, LYO.seedFile))
        assert u.edition == (urn.seed_name(seed) if seed[:3].isdigit() else known_by_file(seed)["name"])


@needs_seeds
def test_each_seed_passages_urn_cites_the_characters_of_its_quote_in_the_seed(layer):
    texts = {f.name: f.read_text(encoding="utf-8") for f in SEEDS.glob("*.txt")}
    sentences = {name: urn.seed_sentences(t) for name, t in texts.items()}
    checked = 0
    for p, ident in layer.subject_objects(IDENTIFIER):
        seed = str(layer.value(p, LYO.seedFile))
        if seed not in texts:
            continue
        start, end = urn.span(urn.parse(str(ident)), sentences[seed], texts[seed])
        quote = str(layer.value(p, LYO.quote))
        assert (start, end) == urn.core(texts[seed], *_position(layer, p)), (p, ident)
        assert texts[seed][start:end] in quote
        checked += 1
    from_corpora = sum(1 for p in layer.subjects(rdflib.RDF.type, LYO.Passage)
                       if not str(layer.value(p, LYO.seedFile))[:3].isdigit())
    assert checked == len(set(layer.subjects(rdflib.RDF.type, LYO.Passage))) - from_corpora


@pytest.mark.parametrize("path, edition", [(HJC, "HuangJinCe:wikisource"), (BSZZ, "BuShiZhengZong:ctext")])
def test_a_passage_quoted_from_a_corpus_file_is_cited_by_the_sentences_corpus_add_counts(layer, path, edition):
    if not path.is_file():
        pytest.skip(f"{path.name} is not in {CORPORA}")
    ed = read_edition(path)
    sentences = ed.sentences()
    cited = [(p, str(i)) for p, i in layer.subject_objects(IDENTIFIER) if f":{edition}:" in str(i)]
    quoting = {p for p in layer.subjects(rdflib.RDF.type, LYO.Passage) if str(layer.value(p, LYO.seedFile)) == path.name}
    assert quoting and {p for p, _ in cited} == quoting
    for p, ident in cited:
        start, end = urn.span(urn.parse(ident), sentences, ed.text)
        assert (start, end) == urn.core(ed.text, *urn.edition_offsets(ed, *_position(layer, p)))


@needs_hjc
def test_a_huangjince_passage_quoting_a_whole_sentence_is_cited_as_that_sentence():
    sentence = next(s for s in read_edition(HJC).sentences() if (s.chapter, s.index) == (1, 5))
    assert sentence.text == "生扶拱合，時雨滋苗。"
    g = rdflib.Graph().parse(PASSAGE_FILES[0], format="turtle")
    support = rdflib.URIRef(LYP + "ReadingSupport")
    assert str(g.value(support, LYO.quote)) == "生扶拱合，時雨滋苗"
    assert str(g.value(support, IDENTIFIER)) == "urn:liuyao:HuangJinCe:wikisource:1.5"


@needs_seeds
def test_a_urn_depends_on_the_file_not_on_the_order_of_the_entries():
    entries = [e for e in bp.load_entries() if e.get("seed")][:60]
    forward = re.findall(r'lyp:(\S+)\n(?:.*\n)*?    dcterms:identifier "([^"]+)"', bp.build(entries, SEEDS))
    backward = re.findall(r'lyp:(\S+)\n(?:.*\n)*?    dcterms:identifier "([^"]+)"', bp.build(entries[::-1], SEEDS))
    assert len(forward) == 60 and dict(forward) == dict(backward)


# ------------------------------------------------------------------------------------------------
# an added edition: every sentence its own URN; a URN is shared only by passages quoting the same characters
# ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def huangjince():
    """The quads `corpus add` computes for Wikisource's 黃金策 (nothing is written)."""
    if not HJC.is_file():
        pytest.skip(f"Wikisource's 黃金策 is not at {HJC}")
    kg = KnowledgeGraph()
    quads, _ = build_edition(kg, HJC, "黃金策", "wikisource")
    kg.close()
    return quads


def test_every_sentence_of_an_added_edition_has_its_own_urn_by_chapter_and_sentence(huangjince):
    ids = {q.subject.value: q.object.value for q in huangjince if q.predicate.value == str(IDENTIFIER)}
    sentences = read_edition(HJC).sentences()
    assert len(ids) == len(set(ids.values())) == len(sentences) == 1628
    assert ids[LYP + "HuangJinCe/wikisource/06/006"] == "urn:liuyao:HuangJinCe:wikisource:6.6"  # chapter 6 身命
    for s in sentences:
        assert ids[f"{LYP}HuangJinCe/wikisource/{s.chapter:02d}/{s.index:03d}"] == \
            f"urn:liuyao:HuangJinCe:wikisource:{s.chapter}.{s.index}"


@needs_seeds
def test_two_passages_share_a_urn_exactly_when_they_quote_the_same_characters_of_one_edition(layer, huangjince):
    """Over passages.ttl, chapter-passages.ttl and an added edition: a URN names one place, and one place one URN.
    (The chapter rules quote many a sentence once per reading of it; a 黃金策 passage quoting a whole sentence
    is cited as that sentence of the added edition.)"""
    texts = {f.name: f.read_text(encoding="utf-8") for f in [*SEEDS.glob("*.txt"), *CORPORA.glob("*.txt")]}
    hjc = texts[HJC.name]
    places: dict[str, set] = defaultdict(set)
    for p, ident in layer.subject_objects(IDENTIFIER):
        seed = str(layer.value(p, LYO.seedFile))
        places[str(ident)].add((seed, urn.core(texts[seed], *_position(layer, p))))
    sentence_at = {}
    for q in huangjince:
        if q.predicate.value == str(OA.start) and q.subject.value.endswith("/position"):
            sentence_at.setdefault(q.subject.value[:-len("/position")], [None, None])[0] = int(q.object.value)
        if q.predicate.value == str(OA.end) and q.subject.value.endswith("/position"):
            sentence_at.setdefault(q.subject.value[:-len("/position")], [None, None])[1] = int(q.object.value)
    for q in huangjince:
        if q.predicate.value == str(IDENTIFIER):
            places[q.object.value].add(("huangjince.wikisource.txt", urn.core(hjc, *sentence_at[q.subject.value])))
    assert all(len(at) == 1 for at in places.values()), [u for u, at in places.items() if len(at) > 1][:5]
    assert len({next(iter(at)) for at in places.values()}) == len(places)


# ------------------------------------------------------------------------------------------------
# `liuyao corpus cite URN`
# ------------------------------------------------------------------------------------------------

def test_corpus_cite_prints_the_passage_a_urn_names(capsys):
    assert main(["corpus", "cite", "urn:liuyao:HuoZhuLin:seed002:9.5@17-30"]) == 0
    out = capsys.readouterr().out
    assert out == ("urn:liuyao:HuoZhuLin:seed002:9.5@17-30\thttps://w3id.org/liuyao-kg/passage/EightPalaces\t"
                   "火珠林·卦定根源，六親為主「定一宮管八卦，七卦皆從一宮出」\t[002_27074fab81f0590e.txt 4374–4388]\n")


def test_corpus_cite_says_why_a_well_formed_urn_names_nothing_and_exits_1(capsys):
    assert main(["corpus", "cite", "urn:liuyao:HuoZhuLin:seed002:9.5"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "no passage in this store is cited as urn:liuyao:HuoZhuLin:seed002:9.5" in captured.err


@pytest.mark.parametrize("argv, message", [
    (["corpus", "cite", "urn:liuyao:Nope:x:1.1"], "unknown work 'Nope'"),
    (["corpus", "cite"], "corpus cite needs a URN"),
])
def test_corpus_cite_refuses_a_malformed_urn_with_exit_status_2(capsys, argv, message):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_an_added_edition_may_not_take_a_seeds_name(tmp_path):
    path = tmp_path / "ed.txt"
    path.write_text("卦值六沖，半世求謀蹭蹬。\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="'seed002' is reserved"):
        build_edition(KnowledgeGraph(), path, "火珠林", "seed002")
