"""Export: two witnesses as TEI P5 parallel segmentation; an edition's anchors as W3C Web Annotation JSON-LD.

On the shared corpora and seeds; skips, saying why, when ../shared is not beside the checkout.
"""
from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from liuyao_kg import default_graph
from liuyao_kg.cli import main
from liuyao_kg.corpus.collate import KINDS, collate
from liuyao_kg.corpus.export import ANNO_CONTEXT, TEI, tei
from liuyao_kg.corpus.witness import resolve

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
pytestmark = pytest.mark.skipif(not (SHARED / "corpora" / "buzheng-zhengzong.ctext.txt").is_file()
                                or not (SHARED / "seeds" / "002_27074fab81f0590e.txt").is_file(),
                                reason=f"the seeds and corpora are not at {SHARED} (shared/ beside the repo)")
T = f"{{{TEI}}}"
XML_ID = "{http://www.w3.org/XML/1998/namespace}id"


@pytest.fixture(scope="module")
def huangjince():
    kg = default_graph()
    return collate(resolve("黃金策/wikisource", kg), resolve("黃金策@卜筮正宗/ctext", kg))


@pytest.fixture(scope="module")
def doc(huangjince):
    return ET.fromstring(tei(huangjince))


def _text_with(ab: ET.Element, which: str) -> str:
    """The plain text between the apparatus entries (identical in both witnesses) and each entry's lem or rdg."""
    out = [ab.text or ""]
    for app in ab:
        out.append(app.find(f"{T}{which}").text or "")
        out.append(app.tail or "")
    return "".join(out)


def test_tei_is_a_tei_namespaced_document_with_a_header_listing_both_witnesses(doc, huangjince):
    assert doc.tag == f"{T}TEI"
    wits = doc.findall(f"{T}teiHeader/{T}fileDesc/{T}sourceDesc/{T}listWit/{T}witness")
    assert [w.get(XML_ID) for w in wits] == [huangjince.first.key, huangjince.second.key]
    for w, wit in zip(wits, (huangjince.first, huangjince.second)):
        bibl = w.find(f"{T}bibl")
        assert bibl.find(f"{T}title").text == wit.name
        assert bibl.find(f"{T}idno[@type='sha256']").text == wit.ed.sha256
        assert bibl.find(f"{T}idno[@type='edition']").text == wit.edition
        assert "public domain" in bibl.find(f"{T}note[@type='licence']").text
        assert bibl.find(f"{T}ref").get("target").startswith("https://")
    enc = doc.find(f"{T}teiHeader/{T}encodingDesc/{T}variantEncoding")
    assert enc.get("method") == "parallel-segmentation" and enc.get("location") == "internal"


def test_the_apparatus_entries_are_the_collations_differences(doc, huangjince):
    ab = doc.find(f"{T}text/{T}body/{T}ab")
    apps = list(ab)
    assert all(a.tag == f"{T}app" and a.get("type") in KINDS for a in apps)
    assert len(apps) == len(huangjince.differences)
    ids = {f"#{huangjince.first.key}", f"#{huangjince.second.key}"}
    for app in apps:
        lem, rdg = app.find(f"{T}lem"), app.find(f"{T}rdg")
        assert [c.tag for c in app] == [f"{T}lem", f"{T}rdg"] and {lem.get("wit"), rdg.get("wit")} == ids
    repeat = [a for a in apps if a.get("type") == "unshared" and (a.find(f"{T}rdg").text or "").startswith("求名")]
    assert len(repeat) == 1 and repeat[0].find(f"{T}lem").text is None


def test_the_lemmata_and_the_text_between_give_the_first_witness_back(doc, huangjince):
    assert _text_with(doc.find(f"{T}text/{T}body/{T}ab"), "lem") == huangjince.first.chars


def test_the_readings_and_the_text_between_give_the_second_witness_back(doc, huangjince):
    assert _text_with(doc.find(f"{T}text/{T}body/{T}ab"), "rdg") == huangjince.second.chars


def test_export_writes_the_tei_file(tmp_path):
    out = tmp_path / "huozhulin.xml"
    assert main(["corpus", "export", "火珠林/seed", "火珠林/wikisource", "--to", "tei", "--output", str(out)]) == 0
    root = ET.parse(out).getroot()
    assert root.tag == f"{T}TEI"
    assert _text_with(root.find(f"{T}text/{T}body/{T}ab"), "lem") == resolve("火珠林/seed", default_graph()).chars


@pytest.fixture(scope="module")
def annotations(tmp_path_factory):
    store = str(tmp_path_factory.mktemp("anno") / "kg")
    hzl = SHARED / "corpora" / "huozhulin.wikisource.txt"
    assert main(["corpus", "add", str(hzl), "--work", "火珠林", "--edition", "wikisource", "--store", store]) == 0
    assert main(["corpus", "collate", "火珠林/seed", "火珠林/wikisource", "--store", store]) == 0
    out = tmp_path_factory.mktemp("anno") / "hzl.jsonld"
    assert main(["corpus", "export", "火珠林/wikisource", "--to", "annotations", "--store", store,
                 "--output", str(out)]) == 0
    return json.loads(out.read_text(encoding="utf-8")), hzl.read_text(encoding="utf-8")


def test_annotations_follow_the_web_annotation_data_model(annotations):
    doc, _ = annotations
    assert doc["@context"] == ANNO_CONTEXT and doc["type"] == "AnnotationCollection"
    items = doc["first"]["items"]
    assert doc["total"] == len(items) and items and doc["first"]["type"] == "AnnotationPage"
    for a in items:
        assert a["type"] == "Annotation" and a["id"].startswith("https://") and a["body"]
        assert a["target"]["source"] == "https://w3id.org/liuyao-kg/edition/HuoZhuLin/wikisource"
        assert {s["type"] for s in a["target"]["selector"]} == {"TextQuoteSelector", "TextPositionSelector"}
        for b in a["body"]:
            assert b["type"] in ("TextualBody", "SpecificResource")
            assert ("value" in b) if b["type"] == "TextualBody" else b["source"].startswith("https://")


def test_annotations_select_what_they_say_in_the_file(annotations):
    doc, raw = annotations
    for a in doc["first"]["items"]:
        quote, pos = sorted(a["target"]["selector"], key=lambda s: s["type"])[::-1]
        assert raw[pos["start"]:pos["end"]] == quote["exact"]
        assert raw[:pos["start"]].endswith(quote["prefix"]) and raw[pos["end"]:].startswith(quote["suffix"])


def test_annotations_hold_alignments_parallels_and_collation_readings(annotations):
    doc, _ = annotations
    text = [b["value"] for a in doc["first"]["items"] for b in a["body"] if b["type"] == "TextualBody"]
    assert sum(t.startswith("aligned: ") for t in text) == 156          # every seed passage of 火珠林
    assert any(t.startswith("orthographic variant: ") for t in text)
    assert any(t.startswith("the edition reads 太易; another copy reads 太极") for t in text)
    assert any(t.startswith("parallel (") for t in text)
    assert any(t.startswith("collation, orthographic: ") for t in text)


def test_tei_is_valid_against_the_relax_ng_of_the_tei_subset_it_uses(huangjince):
    etree = pytest.importorskip("lxml.etree", reason="lxml (the test extra) validates RELAX NG")
    rng = etree.RelaxNG(etree.parse(str(Path(__file__).resolve().parents[1] / "data" / "tei-collation.rng")))
    doc = etree.fromstring(tei(huangjince))
    assert rng.validate(doc), rng.error_log
    # and the schema is not vacuous: an apparatus entry without its reading is refused
    app = doc.find(f".//{T}app")
    app.remove(app.find(f"{T}rdg"))
    assert not rng.validate(doc)
