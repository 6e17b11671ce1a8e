"""A named query's rows in one language, for `liuyao query`'s table: the cells holding zh-Hant terms said in it.

The columns are the query's variable names (identifiers, kept); IRIs, numbers and the classics' quotes
(i18n.QUOTED columns) are kept as they are. In en and ko a cell that is a term of the graph (沖, 海中金, 妻財), or
a list of them, is given by its label (i18n.Words.term: in English the pinyin with the gloss), stems and branches in
English as Zi (子); zh-Hans converts the rest by OpenCC (i18n.to_lang).
"""
from __future__ import annotations

import re

from liuyao_kg.chart import i18n

#: a cell short enough to be a term, not a sentence: characters only, a few of them
_TERM = re.compile(f"[{i18n._HAN}]{{1,8}}")


def rows_in(rows: list[dict], lang: str, labels=None) -> list[dict]:
    """`rows` (queries.run's) with their zh-Hant cells in `lang`; the same rows for zh."""
    w = i18n.Words(lang, labels)
    if w.lang == "zh":
        return rows
    return [{k: v if k in i18n.QUOTED else _cell(v, w) for k, v in row.items()} for row in rows]


def _cell(value, w: i18n.Words):
    if not isinstance(value, str) or value.startswith(("http://", "https://", "urn:")):
        return value
    if w.base == "zh":
        return i18n.to_lang(value, w.lang)
    tokens = value.split(" ")
    if not all(_TERM.fullmatch(t) for t in tokens):  # a sentence, or Latin text: as the graph has it
        return value
    return " ".join(w.gz(t) if i18n.is_stem_branch(t) else w.term(t) for t in tokens)
