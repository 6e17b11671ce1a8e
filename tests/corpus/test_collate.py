"""Collation of two witnesses of one work (liuyao corpus collate), on the shared corpora and seeds.

Skips, saying why, when ../shared is not beside the checkout.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from liuyao_kg import default_graph, queries
from liuyao_kg.cli import main
from liuyao_kg.corpus.collate import collate
from liuyao_kg.corpus.variants import fold
from liuyao_kg.corpus.witness import resolve
from liuyao_kg.corpus.works import CorpusError
from liuyao_kg.store.embedded import KnowledgeGraph

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
needs_shared = pytest.mark.skipif(not (SHARED / "corpora" / "buzheng-zhengzong.ctext.txt").is_file()
                                  or not (SHARED / "seeds" / "002_27074fab81f0590e.txt").is_file(),
                                  reason=f"the seeds and corpora are not at {SHARED} (shared/ beside the repo)")
pytestmark = needs_shared


@pytest.fixture(scope="module")
def kg():
    return default_graph()


@pytest.fixture(scope="module")
def huozhulin(kg):
    return collate(resolve("火珠林/seed", kg), resolve("火珠林/wikisource", kg))


@pytest.fixture(scope="module")
def huangjince(kg):
    return collate(resolve("黃金策/wikisource", kg), resolve("黃金策@卜筮正宗/ctext", kg))


def test_the_seed_witness_holds_the_classical_text_and_sets_the_korean_commentary_aside(kg):
    seed = resolve("火珠林/seed", kg)
    assert "四營成易八卦為體三才變化六爻為義" in seed.chars
    assert not any("\uac00" <= c <= "\ud7a3" for c in seed.chars)
    assert seed.set_aside and all(s["reason"].startswith("commentary in Korean") for s in seed.set_aside)
    assert all(any("\uac00" <= c <= "\ud7a3" for c in seed.ed.raw[s["start"]:s["end"]]) for s in seed.set_aside)
    assert all(seed.ed.raw[o] == c for o, c in zip(seed.origin, seed.chars))


def test_a_carried_work_is_read_within_its_extent_only(kg):
    carried = resolve("黃金策@卜筮正宗/ctext", kg)
    lo, hi = carried.extent
    assert carried.ed.raw[lo - len("黃金策總斷千金賦直解\n"):lo].startswith("黃金策總斷千金賦直解")
    assert carried.ed.raw[hi:].startswith("十八問答附占驗")
    assert all(lo <= o < hi for o in carried.origin)
    assert carried.chars.startswith("動靜陰陽反複遷變")
    assert [s["reason"] for s in carried.set_aside] == ["a heading of the carrier (its volume)"]


def test_every_seed_character_of_huozhulin_is_aligned_and_the_seed_is_a_selection(huozhulin):
    d = huozhulin.as_dict()
    assert d["aligned"] == d["first"]["chars"] == 2474
    assert d["second"]["chars"] == 17005 and d["second"]["aligned_share"] == pytest.approx(0.1455, abs=1e-4)
    c = d["counts"]
    assert c["variant"]["intervals"] == c["omission"]["intervals"] == 0
    assert c["orthographic"]["first_chars"] == d["orthographic_chars"] == 523
    # what the seed does not quote is whole paragraphs of the Wikisource text, not omissions of the work
    assert c["unshared"]["second_chars"] > 14000 and c["unshared"]["first_chars"] == 0


def test_orthographic_differences_fold_alike_and_point_into_both_files(huozhulin):
    a, b = huozhulin.first, huozhulin.second
    ortho = [i for i in huozhulin.as_dict()["intervals"] if i["kind"] == "orthographic"]
    assert ortho
    for i in ortho:
        assert i["first"]["reading"] != i["second"]["reading"]
        assert fold(i["first"]["reading"]) == fold(i["second"]["reading"])
        assert a.ed.raw[i["first"]["start"]:i["first"]["end"]].endswith(i["first"]["reading"][-1])
        assert b.ed.raw[i["second"]["start"]] == i["second"]["reading"][0]


def test_huangjince_in_wikisource_and_in_bushi_zhengzong(huangjince):
    d = huangjince.as_dict()
    assert d["first"]["chars"] == 17867 and d["second"]["chars"] == 21386
    assert d["aligned"] == 17599 and d["first"]["aligned_share"] > 0.98
    variants = {(i["first"]["reading"], i["second"]["reading"]) for i in d["intervals"] if i["kind"] == "variant"}
    assert ("覆", "複") in variants and ("逢", "逄") in variants     # 逄 (a surname) for 逢: the ctext copy's slip
    unshared = [i for i in d["intervals"] if i["kind"] == "unshared" and i["in"] == "second"]
    # the ctext copy prints 求名 … 失脫 twice (卷三): the repeat is unshared whole paragraphs, not a variant
    assert len(unshared) == 1 and unshared[0]["second"]["reading"].startswith("求名書讀五車")
    assert unshared[0]["length"] == 3740


def test_every_interval_reads_what_the_witnesses_hold_and_the_agreements_cover_the_rest(huangjince):
    a, b = huangjince.first, huangjince.second
    for d in huangjince.differences:
        assert d.kind != "orthographic" or fold(a.chars[d.a[0]:d.a[1]]) == fold(b.chars[d.b[0]:d.b[1]])
    covered = sum(n for _, _, n in huangjince.agreements) + sum(
        d.a[1] - d.a[0] for d in huangjince.differences if d.kind != "orthographic")
    assert covered == len(a.chars)


def test_a_collation_runs_in_seconds(kg):
    t = time.perf_counter()
    collate(resolve("黃金策/wikisource", kg), resolve("黃金策@卜筮正宗/ctext", kg))
    assert time.perf_counter() - t < 5


def test_bad_witness_names_are_refused_naming_the_problem(kg, capsys):
    with pytest.raises(CorpusError, match="no edition 'nope' of 火珠林"):
        resolve("火珠林/nope", kg)
    with pytest.raises(CorpusError, match="<work>/<edition>"):
        resolve("火珠林", kg)
    with pytest.raises(CorpusError, match="give the work"):
        resolve(str(SHARED / "corpora" / "huozhulin.wikisource.txt"), kg)
    assert main(["corpus", "collate", "火珠林/seed", "黃金策/wikisource"]) == 2
    assert "witnesses of different works" in capsys.readouterr().err


def test_collate_stores_the_collation_once_and_the_query_lists_its_differences(tmp_path, capsys):
    store = str(tmp_path / "kg")
    args = ["corpus", "collate", "火珠林/seed", "火珠林/wikisource", "--store", store, "--format", "json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["stored"]["status"] == "added" and first["stored"]["quads"] > 0
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["stored"] == {**first["stored"], "status": "unchanged", "quads": 0}
    kg = KnowledgeGraph(store)
    try:
        rows = queries.run(kg, "collation-differences", collation=first["stored"]["collation"])
        assert len(rows) == len(first["intervals"])
        assert [r["kind"] for r in rows] == [i["kind"] for i in first["intervals"]]
        raw = Path(first["second"]["file"]).read_text(encoding="utf-8")
        for r in rows:
            if r["secondReading"]:
                assert raw[int(r["secondStart"])] == r["secondReading"][0]
    finally:
        kg.close()
