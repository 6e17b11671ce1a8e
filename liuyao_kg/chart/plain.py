"""The reading in plain words, in one language: what a reader sees first (the web reader's opening, `/api/cast`'s
`reading`, `liuyao cast --brief`, the MCP tool).

`plain_reading(chart, lang)` takes a chart (liuyao_kg.chart.chart) and returns only text a person reads, with the
source of each reason beside it: the verdict, its strongest reasons (as the reading ranks them: the verdict's side,
standing, having outweighed another), the use-god and its condition, and the first 應期 candidates with their dates.
A cast the reading cannot judge says in words what to add. Quotes of the classics stay in their Chinese; everything
else is in `lang` (zh-Hant, zh-Hans, en, ko; zh-Hans converted from zh-Hant by OpenCC, see i18n.to_lang).
"""
from __future__ import annotations

from liuyao_kg.chart import i18n

#: how many reasons and timing candidates open the reading
FIRST_REASONS, FIRST_TIMES = 3, 3

_MISSING = {
    "topic": {"zh": "未問何事：加上占事（例如 求財、婚姻、疾病、官事），才有用神、斷語與應期。",
              "en": "No question asked: add a topic (--topic; `liuyao topics` lists them: seeking wealth, marriage, "
                    "illness, a lawsuit …) to get a use-god, a verdict and its timing.",
              "ko": "묻는 일이 없습니다: 점사(--topic; `liuyao topics` 가 보여 줍니다: 구재, 혼인, 질병, 관사 …)를 더하면 "
                    "용신, 판단, 응기가 나옵니다."},
    "use_god": {"zh": "此卦無{relative}爻（現爻與伏神皆無）：可另指用神（一爻之位或六親）。",
                "en": "This cast holds no {relative} line, shown or hidden: name the use-god yourself (a line's "
                      "position or a relative).",
                "ko": "이 괘에는 {relative} 효가 (드러난 효에도 복신에도) 없습니다: 용신을 직접 지정하십시오(효의 자리 또는 육친)."},
    "rule": {"zh": "用神已定，然無斷語之規則適用於此卦。",
             "en": "The use-god is found, but no verdict rule applies to this cast.",
             "ko": "용신은 정해졌으나 이 괘에 적용되는 판단 규칙이 없습니다."},
}
_WORDS = {
    "use_god": {"zh": "用神", "en": "Use-god", "ko": "용신"},
    "hidden": {"zh": "伏", "en": "hidden", "ko": "복신"},
    "but": {"zh": "雖", "en": "though", "ko": "비록"},
}
_UNITS = {"日": {"zh": "日", "en": "day", "ko": "일"}, "月": {"zh": "月", "en": "month", "ko": "월"},
          "年": {"zh": "年", "en": "year", "ko": "년"}}


def plain_reading(chart: dict, lang: str = "zh-Hant", labels=None) -> dict:
    """{lang, verdict, favourable, reasons: [{text, role, quote, work, chapter, note, passage}],
    use_god: {text, lines} | None, timing: [{text, branch, unit, dates}], missing: str | None} — every string in
    `lang` but the quotes. `labels`
    (an i18n.Labels of the chart's store) names the use-god's relative in en and ko; without, it stays in zh-Hant."""
    lang = i18n.check_lang(lang)
    base = i18n.base(lang)
    w = i18n.Words(base, labels)
    term = w.t

    v = chart.get("verdict") or {}
    out = {"lang": i18n.tag(lang), "verdict": None, "favourable": None, "reasons": [],
           "use_god": _use_god(chart, base, w), "timing": [], "missing": None}
    if not v.get("polarity"):
        out["missing"] = _missing(chart, base, term)
    else:
        out["verdict"] = (v.get("label") or {}).get(base) or v["polarity"]
        out["favourable"] = v.get("favourable")
        reasons = [_reason(b, w) for b in v.get("because", []) if b.get("role") == "for"]
        seen = set()  # a doubled use-god's two lines can give one reason twice: said once
        out["reasons"] = [r for r in reasons if (r["text"], r["quote"]) not in seen
                          and not seen.add((r["text"], r["quote"]))][:FIRST_REASONS]
    out["timing"] = [_when(c, w) for c in (chart.get("timing") or [])[:FIRST_TIMES]]
    return i18n.to_lang(out, lang)


def _missing(chart: dict, lang: str, term) -> str:
    if not chart.get("topic") and not (chart.get("use_god") or {}).get("lines"):
        return _MISSING["topic"][lang]
    cond = chart.get("use_god_condition") or {}
    if not cond.get("lines"):
        relative = term((chart.get("use_god") or {}).get("relative")) or _WORDS["use_god"][lang]
        return _MISSING["use_god"][lang].format(relative=relative)
    return _MISSING["rule"][lang]


def _use_god(chart: dict, lang: str, w: i18n.Words) -> dict | None:
    """用神：妻財 丁巳（初爻）— 日克、日絕；雖暗動 (its standing factors, against first)."""
    cond = chart.get("use_god_condition") or {}
    lines = [ln for ln in cond.get("lines", []) if ln.get("read", True)]
    if not lines:
        return None
    parts = []
    for ln in lines:
        where = i18n.POSITIONS[lang][ln["position"]] + (f" {_WORDS['hidden'][lang]}" if ln.get("hidden") else "")
        standing = [f for f in ln.get("factors", []) if f.get("standing")]
        against = [w.text(f["term"]) for f in standing if f["polarity"] == "against"]
        helping = [w.text(f["term"]) for f in standing if f["polarity"] == "for"]
        sep = "、" if lang == "zh" else ", "
        said = sep.join(against)
        if helping and said:
            said += ("；" + _WORDS["but"][lang]) if lang == "zh" else f"; {_WORDS['but'][lang]} "
        said += sep.join(helping)
        relative = w.t(ln.get("relative") or cond.get("relative"))
        gz = w.gz(f"{ln.get('stem') or ''}{ln.get('branch') or ''}")
        head = f"{relative} {gz}（{where}）" if lang == "zh" else f"{relative} {gz}, {where}"
        parts.append(head + (f" — {said}" if said else ""))
    colon = "：" if lang == "zh" else ": "
    return {"text": f"{_WORDS['use_god'][lang]}{colon}" + ("；" if lang == "zh" else "; ").join(parts),
            "lines": [ln["position"] for ln in lines]}


def _reason(b: dict, w: i18n.Words) -> dict:
    lang = w.base
    label = b["term"] if "term" in b else b.get("judgment") or {}
    src = b.get("source") or {}
    lines = b.get("lines") or []
    at = ""
    if lines:
        at = ("（" + "、".join(i18n.POSITIONS["zh"][n] for n in lines) + "）") if lang == "zh" else \
            " (" + ", ".join(i18n.POSITIONS[lang][n] for n in lines) + ")"
    passage = (src.get("iri") or "").rsplit("/passage/", 1)[-1] or None
    return {"text": w.text(label) + at, "role": b.get("role"),
            "quote": src.get("quote"), "work": src.get("work"), "chapter": src.get("chapter"),
            "note": None if src.get("quote") else (src.get("note") and i18n.word("convention", lang)),
            "passage": passage if src.get("quote") else None}


def _when(c: dict, w: i18n.Words) -> dict:
    unit = _UNITS[c["unit"]][w.base]
    text = f"{c['branch']}{unit}" if w.base != "en" else f"{w.gz(c['branch'])} {unit}"
    return {"text": text, "branch": c["branch"], "unit": c["unit"], "dates": list(c.get("dates") or [])}


def plain_text(reading: dict) -> list[str]:
    """The plain reading as lines of text (`liuyao cast --brief`, and the head of the full chart): the verdict and its
    reasons with their quotes, the use-god, the first timing candidates with their first dates — or what to add."""
    lang = {"zh-Hant": "zh", "zh-Hans": "zh"}.get(reading["lang"], reading["lang"])
    colon, sep = ("：", "、") if lang == "zh" else (": ", ", ")
    heads = {k: i18n.to_lang(i18n.word(k, lang), reading["lang"]) for k in ("verdict", "because", "timing")}
    head = heads["verdict"] + colon
    if reading["verdict"] is None:
        return [head + "—", "  " + reading["missing"]] if reading["missing"] else [head + "—"]
    out = [head + reading["verdict"]]
    for r in reading["reasons"]:
        cite = f"{r['work'] or ''}「{r['quote']}」" if r["quote"] else f"({r['note']})" if r["note"] else ""
        out.append(f"  {heads['because']} {r['text']}" + (f" — {cite}" if cite else ""))
    if reading["use_god"]:
        out.append(reading["use_god"]["text"])
    if reading["timing"]:
        dated = [t["text"] + (f" ({t['dates'][0]})" if t["dates"] else "") for t in reading["timing"]]
        out.append(heads["timing"] + colon + sep.join(dated))
    return out
