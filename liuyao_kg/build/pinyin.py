"""ontology/compiled/pinyin.json and labels.json: the pinyin of every Chinese term the English text can print, and
the terms' en and ko labels, computed here.

English output writes a term's pinyin beside its gloss (Xianchi (salty pool, peach blossom), Xinhai (辛亥) day).
pypinyin's phrase dictionaries, loaded at run time, and the query of ~12,000 labels (which parses the store's deferred
layers) made a `--lang en` chart cost 2.4× the CPU of a Chinese one and 32 MiB more memory; so the readings and the
labels are computed once, at build time: the readings of every string the graph can hand to
liuyao_kg.chart.i18n.pinyin: each zh-Hant rdfs:label (whole, and each run of characters in it: a chapter's name is
glossed run by run), each run of characters standing in an English or untagged Latin text (a conclusion's
"the 應 overcoming the 世") or in a named query's English description, and the stems, branches and sixty
stem-branches. pypinyin is a build dependency only
(pyproject's `build` extra); at run time a string missing from the table is an error, which
tests/build/test_pinyin.py guards against.
"""
from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from liuyao_kg.build.paths import ONTOLOGY

OUT = ONTOLOGY / "compiled" / "pinyin.json"
#: the terms' en and ko labels as liuyao_kg.chart.i18n.Labels reads them (queries/labels.rq's rows)
LABELS = ONTOLOGY / "compiled" / "labels.json"

_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
HAN_RUN = re.compile(f"[{_HAN}]+")
_LATIN = re.compile(r"[A-Za-z]")
_ASCII_WORD = re.compile(r"[A-Za-z0-9]")
#: a query cell that is a term (liuyao_kg.chart.cells._TERM)
_CELL_TERM = re.compile(f"[{_HAN}]{{1,8}}")

#: readings pypinyin's general phrase table gets wrong in this art (長生 is cháng shēng, the life stage)
READINGS = {"長生": [["cháng"], ["shēng"]], "长生": [["cháng"], ["shēng"]], "月建": [["yuè"], ["jiàn"]]}

_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


def terms(kg) -> set[str]:
    """Every string of characters the English text may ask the pinyin of, read from every quad of `kg`: zh-Hant
    labels (whole, unless they hold Latin letters or digits: a selector's label, never printed; and run by run),
    the runs of characters in English texts (and in untagged ones with Latin in them), and the short terms a
    `liuyao query` cell may hold (liuyao_kg.chart.cells: space-separated runs of one to eight characters)."""
    from liuyao_kg.ontology.tables import BRANCHES, STEMS, jiazi

    from liuyao_kg import queries

    kg.complete_layers()
    found = set(STEMS) | set(BRANCHES) | set(jiazi())
    for q in queries.catalogue().values():  # `liuyao query --list --lang en`: the English descriptions, glossed
        found.update(HAN_RUN.findall(q.answers))
    for quad in kg.oxigraph.quads_for_pattern(None, None, None, None):
        lit = quad.object
        if not hasattr(lit, "language"):
            continue
        lang, text = (lit.language or "").lower(), lit.value
        if not HAN_RUN.search(text):
            continue
        if lang == "zh-hant" and quad.predicate.value == _LABEL:
            found.update(HAN_RUN.findall(text))
            if not _ASCII_WORD.search(text):
                found.add(text)
        elif lang == "en" or (not lang and _LATIN.search(text)):
            found.update(HAN_RUN.findall(text))
        tokens = text.split(" ")
        if all(_CELL_TERM.fullmatch(t) for t in tokens):
            found.update(tokens)
    return found


@cache
def _pypinyin():
    import pypinyin  # build time only: the readings are written to OUT

    pypinyin.load_phrases_dict(READINGS)  # retrains its segmenter: once
    return pypinyin


def reading(zh: str) -> str:
    """The pinyin of a term, toneless and joined, first letter capitalised: 咸池 → Xianchi, 辛亥 → Xinhai; four
    characters read as two words (四時旺衰 → Sishi Wangshuai)."""
    pypinyin = _pypinyin()
    syllables = pypinyin.lazy_pinyin(zh, style=pypinyin.Style.NORMAL, errors="ignore")
    if len(syllables) == 4:
        return f"{''.join(syllables[:2]).capitalize()} {''.join(syllables[2:]).capitalize()}"
    return "".join(syllables).capitalize()


def labels_table(kg) -> dict:
    """zh-Hant label → {en, ko} (the first term's, by IRI), and school id → {zh, en, ko}: queries/labels.rq's rows,
    as liuyao_kg.chart.i18n.Labels keeps them, but for labels with Latin letters or digits (not terms). Read here once: querying ~12,000 labels (and parsing the layers they
    sit in) cost an English or Korean chart half its run time."""
    from liuyao_kg import queries

    terms: dict[str, dict[str, str]] = {}
    schools: dict[str, dict[str, str]] = {}
    for r in queries.run(kg, "labels"):
        if _ASCII_WORD.search(r["zh"]):  # a selector's or a rule's label (BranchClash：原文位置選擇器…): no term
            continue
        entry = {"zh": r["zh"], "en": r["en"] or r["zh"], "ko": r["ko"] or r["zh"]}
        terms.setdefault(r["zh"], {"en": entry["en"], "ko": entry["ko"]})
        if "/ref/School" in r["term"]:
            schools[r["term"].rsplit("/ref/School", 1)[1]] = entry
    return {"terms": terms, "schools": schools, "zh-Hans": simplified_names(kg, terms)}


def simplified_names(kg, terms) -> dict[str, str]:
    """zh-Hant → zh-Hans (OpenCC, liuyao_kg.chart.i18n.simplified) of every term, every chapter's name (lyo:chapter)
    and every rule's conclusion that differs: the web reader's 简体 page words its rules and passage views with it."""
    from liuyao_kg.chart.i18n import simplified
    from liuyao_kg.namespaces import LYO

    import pyoxigraph as ox

    names = set(terms) | {q.object.value for q in kg.oxigraph.quads_for_pattern(None, ox.NamedNode(LYO + "chapter"),
                                                                                 None, None)}
    # the rules' conclusions (the project's words, unlike the classics' quotes, which stay as written)
    names |= {q.object.value for q in kg.oxigraph.quads_for_pattern(None, ox.NamedNode(LYO + "conclusion"), None, None)
              if (q.object.language or "").lower() == "zh-hant"}
    return {zh: hans for zh in sorted(names) if (hans := simplified(zh)) != zh}


def _json(value) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=0, sort_keys=True) + "\n").encode("utf-8")


def outputs() -> dict[Path, bytes]:
    """{file: bytes} this step writes (liuyao_kg.build): the readings and the labels, sorted, one entry a line."""
    from liuyao_kg import default_graph

    kg = default_graph()
    table = {zh: reading(zh) for zh in sorted(terms(kg))}
    return {OUT: _json(table), LABELS: _json(labels_table(kg))}
