"""Source passages: every quote is anchored in the seed texts, and passages.ttl is up to date."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import rdflib
from rdflib import RDF, RDFS, Literal, Namespace, URIRef

from liuyao_kg.namespaces import LYO, LYP, OA
from liuyao_kg.build import passages as bp

REPO = Path(__file__).resolve().parents[2]
ONTOLOGY = REPO / "ontology"
YAML_PATH = ONTOLOGY / "passages.yaml"
TTL_PATH = ONTOLOGY / "passages.ttl"
SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"

lyo = Namespace(LYO)
oa = Namespace(OA)

needs_seeds = pytest.mark.skipif(
    not SEEDS.is_dir(),
    reason=f"seed texts not found at {SEEDS} (the 'shared/seeds' folder beside the repository)",
)

REQUIRED_IDS = """
Najia EightPalaces SixRelatives SixSpirits FiveElements LifeStages LifeStagesByStem SeasonalStrength
BranchClash BranchCombine BranchPunish BranchHarm TripleCombine Tomb Nayin GuaShen ShiShen
HiddenPalace HiddenMissing Void MonthBroken DayClash DarkMovement ClashScattered MonthCombine
DayCombine DayTomb MovingTomb ChangeToTomb ChangeToSeverance ChangeToVoid ChangeToBroken
ChangeToClash ChangeToCombine ReturnGenerate ReturnOvercome ChangeAdvanceLater ChangeAdvanceTianXuan
JinTuiShen SixClashHexagram SixCombineHexagram ClashToCombine CombineToClash ClashAtCombine
SingleMoving SingleStatic TwoPresent RescueFromSeverance RescueFromSeverance1 RescueFromSeverance2
RescueFromSeverance3 RescueFromSeverance4 RescueFromSeverance5 EnterTombWithGhost TombFate TombShi
TombChangeLine TombGuaShen TombShiShen UseGodOfficialPrivate UseGodIllness UseGodTopics
MovingLines Endpoints
""".split()

WORK_OF_SEED = {
    "000_611f20e21d588b1f.txt": "YiMao",
    "001_ae0d597f985cbbc0.txt": "TianXuanFu",
    "002_27074fab81f0590e.txt": "HuoZhuLin",
    "004_c94ecca433cec648.txt": "TianXuanFu",
}

HANGUL = re.compile(r"[\uac00-\ud7a3]")


@pytest.fixture(scope="module")
def entries():
    return bp.load_entries(YAML_PATH)


@pytest.fixture(scope="module")
def graph():
    g = rdflib.Graph()
    g.parse(TTL_PATH, format="turtle")
    return g


CORPORA = SEEDS.parent / "corpora"  # 黃金策 passages of the reading (`corpus:` entries; issue 10 owns the layer)


@pytest.fixture(scope="module")
def seed_texts():
    texts = {p.name: p.read_bytes().decode("utf-8") for p in SEEDS.glob("*.txt")}
    return texts | {p.name: p.read_bytes().decode("utf-8") for p in CORPORA.glob("*.txt")}


CORPUS_FILES = {p.name for p in CORPORA.glob("*.txt")}


def _paragraphs(text: str) -> list[str]:
    # The seeds separate paragraphs by exactly one blank line; split independently of the generator.
    # The corpus transcriptions (Wikisource) also have runs of blank lines: one paragraph break.
    if "\n\n\n" in text:
        return re.split(r"\n[ \t]*\n(?:[ \t]*\n)*", text)
    assert not re.search(r"\n[ \t]+\n", text)
    return text.split("\n\n")


def _one(g, s, p):
    vals = list(g.objects(s, p))
    assert len(vals) == 1, (s, p, vals)
    return vals[0]


def _one_lang(g, s, lang):
    vals = [o for o in g.objects(s, RDFS.label) if o.language == lang]
    assert len(vals) == 1, (s, lang, vals)
    return vals[0]


# ------------------------------------------------------------------------------------------------
# yaml
# ------------------------------------------------------------------------------------------------

def test_required_ids_exist(entries):
    ids = {e["id"] for e in entries}
    missing = [i for i in REQUIRED_IDS if i not in ids]
    assert not missing, f"passages.yaml lacks required ids: {missing}"


def test_every_entry_quotes_or_is_a_convention(entries):
    for e in entries:
        if e.get("convention"):
            assert not e.get("quote") and not e.get("korean"), e["id"]
            assert e["note"] == "standard convention, not in the seeds", e["id"]
        else:
            assert e.get("quote"), f"{e['id']}: no quote and not marked convention"
            if e.get("corpus"):
                assert (e["work"], e["corpus"]) in (("HuangJinCe", "huangjince.wikisource.txt"),
                                                    ("BuShiZhengZong", "buzheng-zhengzong.ctext.txt")), e["id"]
            else:
                assert e.get("seed") in WORK_OF_SEED, e["id"]
                assert e["work"] == WORK_OF_SEED[e["seed"]], f"{e['id']}: work does not match seed"
            assert e.get("chapter"), e["id"]
            assert not HANGUL.search(e["quote"]), f"{e['id']}: quote should be the Chinese text"
            if e.get("korean"):
                assert HANGUL.search(e["korean"]), f"{e['id']}: korean rendering has no Hangul"


def test_ids_unique(entries):
    ids = [e["id"] for e in entries]
    assert len(ids) == len(set(ids))


# ------------------------------------------------------------------------------------------------
# passages.ttl against the seeds
# ------------------------------------------------------------------------------------------------

def test_ttl_parses_and_matches_yaml(graph, entries):
    passages = {str(s)[len(LYP):] for s in graph.subjects(RDF.type, lyo.Passage)}
    conventions = {str(s)[len(LYP):] for s in graph.subjects(RDF.type, lyo.StandardConvention)}
    assert not passages & conventions
    assert passages == {e["id"] for e in entries if not e.get("convention")}
    assert conventions == {e["id"] for e in entries if e.get("convention")}
    for e in entries:
        s = URIRef(LYP + e["id"])
        assert {str(t) for t in graph.objects(s, lyo.definesTerm)} == set(e["terms"])
        if e.get("convention"):
            assert (s, lyo.quote, None) not in graph
            assert str(_one(graph, s, lyo.provenanceNote)) == "standard convention, not in the seeds"
        else:
            q = _one(graph, s, lyo.quote)
            assert str(q) == e["quote"] and q.language == "zh-Hant"


@needs_seeds
def test_quotes_found_at_recorded_offsets(graph, seed_texts):
    n = 0
    for s in graph.subjects(RDF.type, lyo.Passage):
        seed = str(_one(graph, s, lyo.seedFile))
        text = seed_texts[seed]
        quote = str(_one(graph, s, lyo.quote))
        para = int(_one(graph, s, lyo.paragraphIndex))
        start, end = int(_one(graph, s, lyo.startOffset)), int(_one(graph, s, lyo.endOffset))
        assert _paragraphs(text)[para][start:end] == quote, s
        source = str(_one(graph, s, oa.hasSource))
        if seed in CORPUS_FILES:  # a corpus passage (黃金策) is anchored in its edition (docs/corpus.md)
            assert source.startswith("https://w3id.org/liuyao-kg/edition/") and (URIRef(source), lyo.fileName, None) in graph
        else:
            assert source.endswith("/seed/" + seed)
        pos = URIRef(f"{s}/position")
        qs = URIRef(f"{s}/quote")
        assert {pos, qs} <= set(graph.objects(s, oa.hasSelector))
        assert (pos, RDF.type, oa.TextPositionSelector) in graph
        fstart, fend = int(_one(graph, pos, oa.start)), int(_one(graph, pos, oa.end))
        assert text[fstart:fend] == quote, s
        assert f"paragraph {para}," in str(_one_lang(graph, pos, "en")), s
        assert (qs, RDF.type, oa.TextQuoteSelector) in graph
        assert str(_one(graph, qs, oa.exact)) == quote
        assert text[:fstart].endswith(str(_one(graph, qs, oa.prefix)))
        assert text[fend:].startswith(str(_one(graph, qs, oa.suffix)))
        assert len(str(_one(graph, qs, oa.prefix))) == min(24, fstart)
        n += 1
    assert n > 0


@needs_seeds
def test_korean_renderings_found_at_recorded_offsets(graph, seed_texts):
    n = 0
    for s in graph.subjects(RDF.type, lyo.Passage):
        korean = list(graph.objects(s, lyo.koreanRendering))
        ko_pos = URIRef(f"{s}/ko-position")
        if not korean:
            assert (ko_pos, None, None) not in graph
            continue
        (korean,) = korean
        assert isinstance(korean, Literal) and korean.language == "ko"
        text = seed_texts[str(_one(graph, s, lyo.seedFile))]
        assert ko_pos in set(graph.objects(s, oa.hasSelector))
        kstart, kend = int(_one(graph, ko_pos, oa.start)), int(_one(graph, ko_pos, oa.end))
        assert text[kstart:kend] == str(korean), s
        # the rendering lies in one paragraph, named on the selector's label, shortly after the quote's
        kpara = text[:kstart].count("\n\n")
        assert str(korean) in _paragraphs(text)[kpara]
        assert f"paragraph {kpara}," in str(_one_lang(graph, ko_pos, "en")), s
        zh_para = int(_one(graph, s, lyo.paragraphIndex))
        assert zh_para < kpara <= zh_para + 3, (s, zh_para, kpara)
        ko_q = URIRef(f"{s}/ko-quote")
        assert str(_one(graph, ko_q, oa.exact)) == str(korean)
        assert text[:kstart].endswith(str(_one(graph, ko_q, oa.prefix)))
        assert text[kend:].startswith(str(_one(graph, ko_q, oa.suffix)))
        n += 1
    assert n > 0



def test_installed_package_carries_the_passages():
    from importlib import resources
    files = resources.files("liuyao_kg.ontology")
    assert files.joinpath("passages.ttl").is_file()
    assert files.joinpath("passages.yaml").is_file()


# ------------------------------------------------------------------------------------------------
# generator behaviour
# ------------------------------------------------------------------------------------------------

def test_repeated_quote_needs_occurrence():
    text = "甲乙。\n\n丙丁甲乙。"
    with pytest.raises(bp.PassageError):
        bp.anchor(text, "甲乙")
    a = bp.anchor(text, "甲乙", occurrence=2)
    assert (a.start, a.end, a.paragraph, a.para_start, a.para_end) == (7, 9, 1, 2, 4)
    with pytest.raises(bp.PassageError):
        bp.anchor(text, "甲乙", occurrence=3)
    with pytest.raises(bp.PassageError):
        bp.anchor(text, "戊己")
    with pytest.raises(bp.PassageError):
        bp.anchor(text, "。\n\n丙")


def test_every_individual_is_labelled_in_three_languages(graph):
    query = (REPO / "queries" / "checks" / "individual-label-violation.rq")
    if not query.exists():
        pytest.skip("queries/checks/individual-label-violation.rq not present")
    rows = list(graph.query(query.read_text(encoding="utf-8")))
    assert not rows, rows[:10]
