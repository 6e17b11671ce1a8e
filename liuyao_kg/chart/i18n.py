"""zh-Hant / zh-Hans / en / ko words for what people read (text chart, `why`, web reader), from the graph's own labels.

Terms (states, relatives, branches, schools …) are translated by their rdfs:label in the chosen language,
read once per store by queries/labels.rq; only the few words of the layout itself (headings, polarity)
are written here. A term with no label in a language keeps its zh-Hant form. zh-Hans is the zh-Hant text
converted by OpenCC's phrase and character tables (`to_lang`), not a table of this project's.
"""
from __future__ import annotations

from functools import cache

#: "zh" is zh-Hant, the graph's own; "zh-Hant" is taken for it too
LANGS = ("zh", "zh-Hans", "en", "ko")
_TAGS = {"zh": "zh-Hant", "zh-Hans": "zh-Hans", "en": "en", "ko": "ko"}

#: the layout's own words
WORDS = {
    "states": {"zh": "狀態", "en": "States", "ko": "상태"},
    "judgments": {"zh": "斷", "en": "Judgments", "ko": "판단"},
    "hexagram": {"zh": "卦", "en": "Hexagram", "ko": "괘"},
    "line": {"zh": "爻", "en": "line", "ko": "효"},
    "lines": {"zh": "爻", "en": "lines ", "ko": "효 "},
    "void": {"zh": "旬空", "en": "void", "ko": "공망"},
    "month": {"zh": "月", "en": " month", "ko": "월"},
    "day": {"zh": "日", "en": " day", "ko": "일"},
    "year": {"zh": "年", "en": " year", "ko": "년"},
    "of": {"zh": " 之 ", "en": " → ", "ko": " 지 "},
    "palace": {"zh": "宮", "en": " palace ", "ko": "궁"},
    "sources": {"zh": "出處：liuyao why … --rule ID 見規則與原文",
                "en": "Sources: liuyao why … --rule ID shows a judgment's rule and passage",
                "ko": "출처: liuyao why … --rule ID 로 규칙과 원문을 봅니다"},
    "did_not_fire": {"zh": "規則 {rule} 於此卦未發", "en": "rule {rule} did not fire on this cast",
                     "ko": "규칙 {rule} 은(는) 이 괘에서 발동하지 않았습니다"},
    "source": {"zh": "出處", "en": "source", "ko": "출처"},
    "condition": {"zh": "條件", "en": "condition", "ko": "조건"},
    "rule": {"zh": "規則", "en": "rule", "ko": "규칙"},
    "verdict": {"zh": "斷", "en": "Verdict", "ko": "판단"},
    "because": {"zh": "因", "en": "because", "ko": "근거"},
    "timing": {"zh": "應期", "en": "Timing", "ko": "응기"},
    "convention": {"zh": "通行之法，非出種子典籍", "en": "standard convention, not in the seeds",
                   "ko": "통행 관례, 시드 문헌에 없음"},
}
POLARITY = {"吉": {"zh": "吉", "en": "auspicious", "ko": "길"},
            "凶": {"zh": "凶", "en": "inauspicious", "ko": "흉"},
            "neutral": {"zh": "平", "en": "neutral", "ko": "중립"}}
POSITIONS = {"zh": {1: "初爻", 2: "二爻", 3: "三爻", 4: "四爻", 5: "五爻", 6: "上爻"},
             "en": {i: f"line {i}" for i in range(1, 7)},
             "ko": {1: "초효", 2: "이효", 3: "삼효", 4: "사효", 5: "오효", 6: "상효"}}


def check_lang(lang: str) -> str:
    """`lang`, one of LANGS ("zh-Hant" is "zh"), or a ValueError naming them."""
    if lang == "zh-Hant":
        return "zh"
    if lang not in LANGS:
        raise ValueError(f"language {lang!r}: one of zh-Hant (zh), {', '.join(LANGS[1:])}")
    return lang


def base(lang: str) -> str:
    """The language its words are written in before conversion: zh-Hans is written as zh-Hant (`to_lang`)."""
    return "zh" if lang in ("zh", "zh-Hant", "zh-Hans") else lang


def tag(lang: str) -> str:
    """The BCP 47 tag of a language (zh-Hant, zh-Hans, en, ko)."""
    return _TAGS[check_lang(lang)]


@cache
def _simplifier():
    from opencc import OpenCC  # opencc-python-reimplemented: OpenCC's own dictionaries

    return OpenCC("t2s")


def simplified(text: str) -> str:
    """zh-Hant text in zh-Hans, by OpenCC's t2s tables, but 乾: in these texts it is the trigram, read qián, which the
    通用规范汉字表 keeps as 乾 (OpenCC's character table gives 干, the simplified form of gān)."""
    convert = _simplifier().convert
    return "乾".join(convert(part) for part in text.split("乾"))


#: keys whose strings are quoted from a classic, kept as the classic has them in every language
QUOTED = frozenset({"quote", "exact", "prefix", "suffix"})


def to_lang(value, lang: str):
    """`value` (a string, or dicts and lists of them) written in base(lang), in `lang`: zh-Hans converted, the
    others as they are. The classics' quotes (QUOTED keys) are kept as written."""
    if lang != "zh-Hans":
        return value
    if isinstance(value, str):
        return simplified(value)
    if isinstance(value, list):
        return [to_lang(v, lang) for v in value]
    if isinstance(value, dict):
        return {k: v if k in QUOTED else to_lang(v, lang) for k, v in value.items()}
    return value


def word(key: str, lang: str) -> str:
    return WORDS[key][base(lang)]


def stage(pillar: str, value: str, lang: str) -> str:
    """A life stage at the day or month: 日臨官 / day: coming to office / 일임관."""
    return f"{pillar} {value}" if lang == "en" else word(pillar, lang).strip() + value


def polarity(value: str, lang: str) -> str:
    return POLARITY.get(value, {}).get(base(lang), value)


class Labels:
    """zh-Hant label → label in a language, and school id → label, read from one store."""

    def __init__(self, kg):
        self._kg = kg
        self._loaded = False
        self._by_zh: dict[str, dict[str, str]] = {}
        self._schools: dict[str, dict[str, str]] | None = None

    def _load(self) -> None:
        """Read every label once, at the first lookup that needs one (~12,000 rows: a Chinese text chart
        naming no school never needs them)."""
        from liuyao_kg import queries

        if self._loaded:
            return
        self._loaded = True
        self._schools = {}
        for r in queries.run(self._kg, "labels"):
            entry = _entry(r)
            self._by_zh.setdefault(r["zh"], entry)
            if "/ref/School" in r["term"]:
                self._schools[r["term"].rsplit("/ref/School", 1)[1]] = entry

    def _load_schools(self) -> dict[str, dict[str, str]]:
        """The schools' labels alone (queries/school-labels.rq: the rows of labels.rq for schools, ~10x cheaper), for
        a chart that names a school but translates no term (a zh-Hant chart)."""
        from liuyao_kg import queries

        if self._schools is None:
            self._schools = {r["term"].rsplit("/ref/School", 1)[1]: _entry(r)
                             for r in queries.run(self._kg, "school-labels")}
        return self._schools

    def as_dict(self) -> dict:
        self._load()
        return {"terms": {zh: {"en": e["en"], "ko": e["ko"]} for zh, e in self._by_zh.items()},
                "schools": dict(self._schools)}

    def term(self, zh: str | None, lang: str) -> str:
        if not zh:
            return zh or ""
        if lang == "zh":  # a term's zh-Hant label is the key itself
            return zh
        self._load()
        return self._by_zh.get(zh, {}).get(lang, zh)

    def school(self, school_id: str | None, lang: str) -> str:
        if not school_id:
            return ""
        return self._load_schools().get(school_id, {}).get(lang, school_id)


def _entry(row: dict) -> dict[str, str]:
    return {"zh": row["zh"], "en": row["en"] or row["zh"], "ko": row["ko"] or row["zh"]}


def labels(kg) -> Labels:
    """The labels of kg's store (read once per knowledge-graph object, kept on it)."""
    found = getattr(kg, "_i18n_labels", None)
    if found is None:
        found = Labels(kg)
        kg._i18n_labels = found
    return found
