"""`liuyao topics`: the question scheme read back from the graph (tree, labels, synonyms, use-god choices, sources)."""
from __future__ import annotations

from liuyao_kg import queries
from liuyao_kg.chart import i18n
from liuyao_kg.ontology import tables as T
from liuyao_kg.ontology.questions import tree_lines


def topics(kg) -> list[dict]:
    """One entry per question, in scheme order (each under its broader one), from the reference graph."""
    by_zh: dict[str, dict] = {}
    for r in queries.run(kg, "topics"):
        q = by_zh.setdefault(r["zh"], {
            "question": r["question"], "zh": r["zh"], "en": r["en"], "ko": r["ko"], "broader": r["broader"],
            "alt_labels": [], "source": {"iri": r["source"], "seed": r["seed"],
                                                                          "quote": r["quote"]}, "use_god": []})
        if r["alt"] and r["alt"] not in q["alt_labels"]:
            q["alt_labels"].append(r["alt"])
        if r["choice"] and all(c["iri"] != r["choice"] for c in q["use_god"]):
            q["use_god"].append({"iri": r["choice"], "label": r["choiceLabel"], "school": r["school"],
                                 "source": {"iri": r["choiceSource"], "quote": r["choiceQuote"], "note": r["choiceNote"]}})
    out = []
    for depth, zh in tree_lines():  # the scheme's order; a question missing from the graph is an error
        out.append(by_zh.pop(zh) | {"depth": depth})
    return out + list(by_zh.values())


#: the choices by whom the matter concerns, shared by every question (tables.PERSON_CHOICES): listed once, not per
#: question, by `liuyao topics` and docs/questions.md
_PERSON_CHOICE = frozenset(c[0] for c in T.PERSON_CHOICES)


def _own(choices: list[dict]) -> list[dict]:
    return [c for c in choices if c["iri"].rsplit("UseGodChoice_", 1)[-1] not in _PERSON_CHOICE]


def _by_person() -> list[tuple[str, str, str]]:
    """(subject, the use-god it names, the passage id) of tables.PERSON_USE_GOD, with the role's or relative's zh."""
    zh = {rid: z for z, rid, _ko in T.RELATIVES.values()} | {"RoleYing": "應", "RoleShi": "世"}
    return [(who, zh[target], passage) for who, (_kind, target), passage in T.PERSON_USE_GOD]


#: the words of `liuyao topics`' text (zh-Hant; zh-Hans by OpenCC)
WORDS = {
    "asked_in": {"zh": "問於", "en": "asked in", "ko": "물음의 출처"},
    "school": {"zh": "流派", "en": "school", "ko": "유파"},
    "by_person": {"zh": "凡占，依所占之人（--about；卜筮正宗 用神分類定例第一、世應論用神第二）",
                  "en": "any question, by whom it concerns (--about; Bushi Zhengzong (卜筮正宗), its first and second "
                        "chapters)",
                  "ko": "모든 물음, 점치는 대상에 따라 (--about; 卜筮正宗 用神分類定例第一, 世應論用神第二)"},
    "by_school": {"zh": "凡占，讀法之流派（--school；docs/reading.md §7）",
                  "en": "any question, the school of the reading (--school; docs/reading.md §7)",
                  "ko": "모든 물음, 판단의 유파 (--school; docs/reading.md §7)"},
    "default": {"zh": "預設", "en": "the default", "ko": "기본값"},
}


def _say(key: str, lang: str) -> str:
    return i18n.to_lang(WORDS[key][i18n.base(lang)], lang)


def _alts(alts: list[str], lang: str) -> list[str]:
    """The synonyms written in the language's script (zh: characters, en: Latin, ko: Hangul), zh-Hans converted."""
    script = {"zh": i18n.HAN_RUN.search, "en": lambda a: a.isascii(),
              "ko": lambda a: any("\uac00" <= ch <= "\ud7a3" for ch in a)}[i18n.base(lang)]
    return list(dict.fromkeys(i18n.to_lang(a, lang) for a in alts if script(a)))


def _person(zh: str, base: str) -> str:
    """Whom a question concerns, as --about takes it (zh), with its name in English or Korean (tables.SUBJECTS)."""
    _zh, _id, en, ko = next(s for s in T.SUBJECTS if s[0] == zh)
    return {"zh": zh, "en": f"{en} ({zh})", "ko": ko}[base]


def topics_text(rows: list[dict], lang: str = "zh", labels=None) -> str:
    """The questions in one language: each with its synonyms in that language, the passage that asks it and its
    use-god choices (the graph's labels in `lang`; the classics' quotes as written); `labels`: i18n.Labels, for en
    and ko."""
    w = i18n.Words(lang, labels)
    sep = "：" if w.base == "zh" else ": "
    lines = []
    for q in rows:
        pad = "  " * q.get("depth", 0)
        alts = _alts(q["alt_labels"], w.lang)
        name = {"zh": q["zh"], "en": q["en"], "ko": q["ko"]}[w.base]
        lines.append(f"{pad}{w.finish(name)}" + ((f"  （{w.sep.join(alts)}）" if w.base == "zh" else
                                                  f"  ({w.sep.join(alts)})") if alts else ""))
        if q["source"]["quote"]:
            lines.append(f"{pad}    {_say('asked_in', lang)}{sep}「{q['source']['quote']}」")
        for c in _own(q["use_god"]):
            src = c["source"]
            note = w.w("convention") if src["note"] == i18n.WORDS["convention"]["en"] else src["note"]
            cite = f"「{src['quote']}」" if src["quote"] else f"（{note}）" if w.base == "zh" else f"({note})"
            school = f" [{_say('school', lang)} {w.school(c['school'])}]" if c["school"] else ""
            lines.append(f"{pad}    {w.finish(w.prose(w.t(c['label'])))}"  # the label names the use-god
                         + w.finish(school) + f" {w.finish(cite) if not src['quote'] else cite}")
    lines.append(_say("by_person", lang) + sep + "  ".join(
        w.finish(f"{_person(who, w.base)}→{w.t(ug)}") for who, ug, _p in _by_person()))
    opening, comma, closing = ("（", "，", "）") if w.base == "zh" else (" (", ", ", ")")
    lines.append(_say("by_school", lang) + sep + "  ".join(
        w.finish(w.school(sid[len('School'):])) + f"{opening}`--school {zh[:-2]}`"
        + (f"{comma}{_say('default', lang)}{closing}" if default else closing)
        for sid, zh, _en, _ko, _work, _def, default in T.READING_SCHOOLS))
    return "\n".join(lines) + "\n"


TABLE_BEGIN = "<!-- questions table: generated by `python -m liuyao_kg.build questions`; tests/ontology/test_questions.py checks it -->"
TABLE_END = "<!-- end of questions table -->"


def questions_table(rows: list[dict]) -> str:
    """docs/questions.md's table: one row per question — its use-god choices, the rule (choice IRI) and the quote."""
    out = [TABLE_BEGIN, "", "| question | broader | synonyms | use-god (choice) | school | source of the choice |",
           "|---|---|---|---|---|---|"]
    for q in rows:
        first = True
        for c in _own(q["use_god"]) or [None]:
            src = "" if c is None else (f"「{c['source']['quote']}」" if c["source"]["quote"]
                                        else f"*{c['source']['note']}* ({c['source']['iri'].rsplit('/', 1)[1]})")
            cells = [f"{q['zh']} ({q['en']})" if first else "", (q["broader"] or "") if first else "",
                     " ".join(q["alt_labels"]) if first else "",
                     "" if c is None else f"{c['label']} (`{c['iri'].rsplit('/', 1)[1]}`)",
                     "" if c is None or not c["school"] else c["school"], src]
            out.append("| " + " | ".join(cells) + " |")
            first = False
    out += ["", "Every question also takes its use-god by whom it concerns (`--about`), unless it has its own choice for "
            "that person above (卜筮正宗 用神分類定例第一, 世應論用神第二; choices `UseGodChoice_About<Subject>`):",
            "", "| about | other names | use-god | passage |", "|---|---|---|---|"]
    for who, ug, passage in _by_person():
        out.append(f"| {who} | {' '.join(T.SUBJECT_ALIASES.get(who, ()))} | {ug} | `{passage}` |")
    return "\n".join(out + ["", TABLE_END]) + "\n"
