"""The pinyin of English output is computed at build time (liuyao_kg.build.pinyin → ontology/compiled/pinyin.json):
every term the graph can print has one, the art's own readings are kept, and nothing at run time loads pypinyin."""
from __future__ import annotations

import subprocess
import sys

import pytest

from liuyao_kg import default_graph, queries
from liuyao_kg.chart.i18n import HAN_RUN, MissingPinyin, pinyin


def test_every_term_of_the_graph_has_its_pinyin():
    """Read apart from the build step: every zh-Hant label of labels.rq (what the text chart translates), and each
    run of characters left in an English label, has its reading in the table."""
    missing = set()
    for row in queries.run(default_graph(), "labels"):
        wanted = [row["zh"]] if HAN_RUN.fullmatch(row["zh"]) else HAN_RUN.findall(row["zh"])
        wanted += HAN_RUN.findall(row["en"] or "")
        for zh in wanted:
            try:
                pinyin(zh)
            except MissingPinyin:
                missing.add(zh)
    assert not missing, f"{len(missing)} terms without pinyin, e.g. {sorted(missing)[:10]}"


@pytest.mark.parametrize("zh, said", [("咸池", "Xianchi"), ("辛亥", "Xinhai"), ("長生", "Changsheng"),
                                      ("月建", "Yuejian"), ("四時旺衰", "Sishi Wangshuai")])
def test_the_readings_are_the_arts_own(zh, said):
    assert pinyin(zh) == said


def test_a_string_without_characters_has_no_pinyin():
    assert pinyin("any") == "" and pinyin("") == ""


def test_a_term_the_build_has_not_read_is_an_error_naming_the_step():
    with pytest.raises(MissingPinyin, match=r"'鑫鑫鑫'.*python -m liuyao_kg\.build pinyin"):
        pinyin("鑫鑫鑫")


def test_an_english_chart_does_not_load_pypinyin():
    code = ("import contextlib, io, sys\nfrom liuyao_kg.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
            "    main(['cast', '節之中孚', '--month', '寅', '--day', '辛亥', '--topic', '求財', '--lang', 'en'])\n"
            "assert 'Xianchi (salty pool, peach blossom)' in out.getvalue()\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pypinyin'))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_compiled_labels_are_the_graphs_own(monkeypatch):
    """A packaged store's labels come from ontology/compiled/labels.json; they say what queries/labels.rq says."""
    from liuyao_kg.chart import i18n

    compiled = i18n.Labels(default_graph())
    compiled.as_dict()  # read now, from the file
    monkeypatch.setattr(i18n, "_packaged", lambda kg: False)
    queried = i18n.Labels(default_graph())
    for zh in ("咸池", "妻財", "沖", "海中金", "暗動", "卜筮正宗"):
        for lang in ("en", "ko"):
            assert compiled.term(zh, lang) == queried.term(zh, lang) != zh
    assert compiled.as_dict()["schools"] == queried.as_dict()["schools"]
    terms = queried.as_dict()["terms"]
    assert compiled.as_dict()["terms"] == {zh: e for zh, e in terms.items() if not i18n.re.search("[A-Za-z0-9]", zh)}
