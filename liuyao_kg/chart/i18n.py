"""zh-Hant / zh-Hans / en / ko words for what people read (text chart, `why`, web reader), from the graph's own labels.

Terms (states, relatives, branches, schools …) are translated by their rdfs:label in the chosen language,
read once per store by queries/labels.rq; only the few words of the layout itself (headings, polarity)
are written here. A term with no label in a language keeps its zh-Hant form. zh-Hans is the zh-Hant text
converted by OpenCC's phrase and character tables (`to_lang`), not a table of this project's.
"""
from __future__ import annotations

import re
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
    "hour": {"zh": "時", "en": " hour", "ko": "시"},
    "no_month_day": {"zh": "無月日", "en": "no month or day", "ko": "월일 없음"},
    "by_whom": {"zh": "斷（依所關之人）", "en": "Judgments (by whom they concern)", "ko": "판단 (관계된 사람별)"},
    "common": {"zh": "通說", "en": "common reading", "ko": "통설"},
    "question": {"zh": "占", "en": "Question", "ko": "점사"},
    "use_god": {"zh": "用神", "en": "use-god", "ko": "용신"},
    "no_use_god": {"zh": "用神：未取（此問於此卦無可取之爻）", "en": "use-god: none chosen (the question names no line "
                   "for this cast)", "ko": "용신: 정하지 않음 (이 물음이 이 괘에서 가리키는 효가 없음)"},
    "by_user": {"zh": "自定", "en": "chosen by the user", "ko": "사용자가 지정"},
    "no_such_line": {"zh": "卦中無此爻", "en": "no such line in the cast", "ko": "괘에 그런 효가 없음"},
    "cast": {"zh": "卦例", "en": "cast", "ko": "괘례"},
    "no_month": {"zh": "未給月：月建、月破、月合、旺相休囚與月之十二運皆不計，讀月之規則皆不發",
                 "en": "no month given: the month's branch, month-broken, month combining, the seasonal strength and "
                       "the month's life stages are not computed, and no rule reading the month fires",
                 "ko": "월이 주어지지 않음: 월건, 월파, 월합, 왕상휴수와 월의 십이운성을 계산하지 않으며, 월을 읽는 규칙은 발동하지 않습니다"},
    "no_day": {"zh": "未給日：旬空、日沖、暗動、日合、日墓、日之十二運、六神（依日干）與神煞皆不計，讀日之規則皆不發",
               "en": "no day given: void, day clash, dark movement, day combining, the day's tomb, the day's life "
                     "stages, the six spirits (by the day stem) and the spirit stars are not computed, and no rule "
                     "reading the day fires",
               "ko": "일이 주어지지 않음: 순공, 일충, 암동, 일합, 일묘, 일의 십이운성, 육신(일간 기준)과 신살을 계산하지 않으며, 일을 읽는 규칙은 발동하지 않습니다"},
    "no_verdict": {"zh": "無斷", "en": "no verdict", "ko": "판단 없음"},
    "no_timing": {"zh": "無應期", "en": "no timing candidates", "ko": "응기 후보 없음"},
    # the CLI's notes on stderr: a new store being written, the coins tossed, the moment read from the clock
    "new_store": {"zh": "新儲存庫 {path}：寫入本體、規則與原文（僅此一次）",
                  "en": "new store {path}: writing the ontology, rules and passages (once)",
                  "ko": "새 저장소 {path}: 온톨로지, 규칙과 원문을 씁니다 (한 번만)"},
    "coins_tossed": {"zh": "擲錢 {coins}", "en": "coins {coins}", "ko": "동전 {coins}"},
    "seed": {"zh": "（種子 {seed}）", "en": " (seed {seed})", "ko": " (시드 {seed})"},
    "cast_at": {"zh": "起卦於 {moment}", "en": "cast at {moment}", "ko": "괘를 낸 때 {moment}"},
    "cast_at_now": {"zh": "（此刻：--date 或 --month/--day 可另給時間）", "en": " (now: --date or --month/--day give another time)",
                    "ko": " (지금: --date 또는 --month/--day 로 다른 때를 줄 수 있습니다)"},
}

#: why the reading gives no verdict, or no dates (reading.py's reason_code / timing_note_code)
REASONS = {
    "no_topic": {"zh": "無用神：此卦未問何事（請加 --topic）", "en": "no use-god: the cast has no topic (give --topic)",
                 "ko": "용신 없음: 점사가 없습니다 (--topic 을 주십시오)"},
    "no_use_god_line": {"zh": "無用神之爻：{topic}之用神（{picks}）不在此卦", "en": "no use-god line: the use-god of "
                        "{topic} ({picks}) is not in this cast", "ko": "용신 효 없음: {topic}의 용신({picks})이 이 괘에 없습니다"},
    "no_rule": {"zh": "無斷語之規則適用", "en": "no verdict rule applies", "ko": "적용되는 판단 규칙이 없습니다"},
    "no_dates": {"zh": "卦無日期，故無日曆日（請加 --date）", "en": "no calendar dates: the cast has no date (give --date)",
                 "ko": "괘에 날짜가 없어 달력 날짜가 없습니다 (--date 를 주십시오)"},
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
    return f"{pillar}: {value}" if lang == "en" else word(pillar, lang).strip() + value


def polarity(value: str, lang: str) -> str:
    return POLARITY.get(value, {}).get(base(lang), value)


class Labels:
    """zh-Hant label → label in a language, and school id → label, read from one store (None: the package's own)."""

    def __init__(self, kg):
        self._kg = kg
        self._loaded = False
        self._by_zh: dict[str, dict[str, str]] = {}
        self._schools: dict[str, dict[str, str]] | None = None

    def _load(self) -> None:
        """Read every label once, at the first lookup that needs one (a Chinese text chart naming no school never
        needs them): a store of this package (embedded, in memory or on disk) has the package's ontology, whose labels
        the build wrote to ontology/compiled/labels.json (liuyao_kg.build.pinyin); another (a remote endpoint) is
        asked by queries/labels.rq (~12,000 rows)."""
        from liuyao_kg import queries

        if self._loaded:
            return
        self._loaded = True
        if _packaged(self._kg):
            table = _compiled("labels.json")
            self._by_zh = {zh: {"zh": zh, **e} for zh, e in table["terms"].items()}
            self._schools = dict(table["schools"])
            return
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

        if self._schools is None and _packaged(self._kg):
            self._schools = dict(_compiled("labels.json")["schools"])
        if self._schools is None:
            self._schools = {r["term"].rsplit("/ref/School", 1)[1]: _entry(r)
                             for r in queries.run(self._kg, "school-labels")}
        return self._schools

    def as_dict(self) -> dict:
        """The terms' en and ko labels, the schools', and (under "zh-Hans") the 简体 of every term and chapter name
        whose OpenCC conversion differs (the web reader's /api/labels)."""
        self._load()
        if _packaged(self._kg):
            hans = dict(_compiled("labels.json")["zh-Hans"])
        else:
            hans = {zh: said for zh in self._by_zh if (said := simplified(zh)) != zh}
        return {"terms": {zh: {"en": e["en"], "ko": e["ko"]} for zh, e in self._by_zh.items()},
                "schools": dict(self._schools), "zh-Hans": hans}

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


def _packaged(kg) -> bool:
    """A store of this package (in memory or on disk): its ontology is the package's own; None: no store, the
    package's labels."""
    from liuyao_kg.store.embedded import KnowledgeGraph

    return kg is None or isinstance(kg, KnowledgeGraph)


@cache
def _compiled(name: str):
    """A table the build wrote to ontology/compiled/ (liuyao_kg.build.pinyin)."""
    import json
    from importlib import resources

    return json.loads(resources.files("liuyao_kg.ontology").joinpath("compiled", name).read_text("utf-8"))


def _entry(row: dict) -> dict[str, str]:
    return {"zh": row["zh"], "en": row["en"] or row["zh"], "ko": row["ko"] or row["zh"]}


def labels(kg) -> Labels:
    """The labels of kg's store (read once per knowledge-graph object, kept on it)."""
    found = getattr(kg, "_i18n_labels", None)
    if found is None:
        found = Labels(kg)
        kg._i18n_labels = found
    return found


# --- English that reads as English: pinyin beside the gloss, no bare Chinese in running text -----------------------

_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
HAN_RUN = re.compile(f"[{_HAN}]+")
STEMS, BRANCHES = "甲乙丙丁戊己庚辛壬癸", "子丑寅卯辰巳午未申酉戌亥"


class MissingPinyin(LookupError):
    """A term whose pinyin the build did not compute (ontology/compiled/pinyin.json; liuyao_kg.build.pinyin)."""


@cache
def _pinyin() -> dict[str, str]:
    """zh → pinyin, computed at build time for every term the graph can print (pypinyin is not loaded at run time: its
    dictionaries, with the label query labels.json replaces, made an English chart cost 2.4× a Chinese one's CPU)."""
    return _compiled("pinyin.json")


def pinyin(zh: str) -> str:
    """The pinyin of a term, toneless and joined, first letter capitalised: 咸池 → Xianchi, 辛亥 → Xinhai; of a string
    without characters (an identifier such as the topic `any`), nothing."""
    if not HAN_RUN.search(zh):
        return ""
    try:
        return _pinyin()[zh]
    except KeyError:
        raise MissingPinyin(f"no pinyin for {zh!r}: the graph holds a term the build has not read; run "
                            f"`python -m liuyao_kg.build pinyin`") from None


def is_stem_branch(zh: str) -> bool:
    """A run of stems and branches (子, 辛亥, 寅卯): the names practitioners write in characters."""
    return bool(zh) and all(ch in STEMS or ch in BRANCHES for ch in zh)


def _bare(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


class Words:
    """A chart's terms and the layout's words in one language: zh keeps the graph's zh-Hant words; en gives the graph's
    en label, with the pinyin beside it for the terms a reader looks up (Xianchi (salty pool, peach blossom)) and for
    stems and branches (Xinhai (辛亥)); ko gives the graph's ko label. zh-Hans is written as zh and converted at the
    end (`finish`)."""

    def __init__(self, lang: str, labels=None):
        self.lang = check_lang(lang)
        self.base = base(self.lang)
        self.labels = labels
        self.sep = "、" if self.base == "zh" else ", "
        self.colon = "：" if self.base == "zh" else ": "

    def t(self, zh: str | None) -> str:
        """A term in this language (its zh-Hant form where the graph has no label for it)."""
        if not zh or self.base == "zh" or self.labels is None:
            return zh or ""
        found = self.labels.term(zh, self.base)
        if self.base == "en" and found == zh:  # no English label: its pinyin, the characters beside
            return self.gz(zh) if is_stem_branch(zh) else f"{pinyin(zh)} ({zh})"
        return found

    def term(self, zh: str | None) -> str:
        """A term a reader would search for (a state, a spirit star): in English its pinyin first, the gloss beside."""
        said = self.t(zh)
        if self.base != "en" or not zh or not HAN_RUN.fullmatch(zh) or said.startswith(pinyin(zh)):
            return said
        py = pinyin(zh)
        if _bare(said).startswith(_bare(py)):  # the label leads with its pinyin already (gua shen (hexagram body))
            return said
        said = re.sub(f" ?\\([{_HAN}]+\\)", "", said)  # "heavenly noble (天乙貴人)": the pinyin stands for the characters
        return f"{py} ({said.replace(' (', ', ').replace(')', '')})"

    def gz(self, zh: str | None) -> str:
        """Stems and branches: in English the pinyin with the characters (Xinhai (辛亥)); else as written."""
        if not zh:
            return ""
        if self.base != "en":
            return zh
        return f"{pinyin(zh)} ({zh})"

    def school(self, school_id: str | None) -> str:
        if not school_id:
            return ""
        if self.labels is None:
            return school_id
        return self.prose(self.labels.school(school_id, self.base))

    def w(self, key: str) -> str:
        return word(key, self.lang)

    def position(self, n: int) -> str:
        return POSITIONS[self.base][n]

    def positions(self, lines) -> str:
        """爻 1,6 → 初爻、上爻 / lines 1, 6 / 초효, 상효."""
        ns = sorted(lines)
        if self.base == "en":
            return ("line " if len(ns) == 1 else "lines ") + ", ".join(map(str, ns))
        return self.sep.join(POSITIONS[self.base][n] for n in ns)

    def prose(self, text: str | None) -> str:
        """English prose from the graph, whose Chinese terms stand bare in it ("the 應 overcoming the 世"): each
        run of characters as its English label with the pinyin, or its pinyin with the characters, unless a gloss
        already stands beside it ("severed (絕)"). Other languages: as written."""
        if not text or self.base != "en":
            return text or ""

        def one(m: re.Match) -> str:
            zh = m.group(0)
            before, after = text[:m.start()], text[m.end():]
            if re.search(r"[A-Za-z][\w'-]* ?\($", before) and after.startswith(")"):
                return zh  # "severed (絕)": glossed already
            if is_stem_branch(zh):
                return self.gz(zh)
            said = self.labels.term(zh, "en") if self.labels is not None else zh
            if said != zh:
                return self.term(zh)
            return f"{pinyin(zh)} ({zh})"

        out = HAN_RUN.sub(one, text)
        return out.replace("（", " (").replace("）", ")").replace("：", ": ").replace("，", ", ").replace("；", "; ")

    def text(self, value: dict | None) -> str:
        """A {zh, en, ko} text (a conclusion, a factor's term) in this language."""
        if not value:
            return ""
        said = value.get(self.base) or value.get("zh") or ""
        return self.prose(said) if self.base == "en" and said == value.get("en") else said

    def finish(self, text: str) -> str:
        """The text as the reader gets it: zh-Hans converted from zh-Hant (the classics' 「quotes」 kept as written)."""
        if self.lang != "zh-Hans":
            return text
        return "".join(part if part.startswith("「") else simplified(part)
                       for part in re.split(r"(「[^」]*」)", text))
