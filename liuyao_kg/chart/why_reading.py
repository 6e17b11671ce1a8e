"""`liuyao why --verdict` / `--timing N`: the verdict or a timing candidate traced back to its rule, the factors
and line facts it rests on, the precedence statements that decided between them, and every passage on the way —
in one language (zh or zh-Hant, zh-Hans, en, ko), the classics' quotes as written."""
from __future__ import annotations

from liuyao_kg import queries
from liuyao_kg.chart import i18n
from liuyao_kg.chart.why import WHY_WORDS, _facts_text, _line_facts, cast_title

#: the layout's words of the verdict's and the timing's trace
WORDS = {
    "verdict": {"zh": "斷", "en": "verdict", "ko": "판단"},
    "condition": {"zh": "用神之狀", "en": "the use-god's condition", "ko": "용신의 상태"},
    "read": {"zh": "取", "en": "read", "ko": "취함"},
    "not_read": {"zh": "不取", "en": "not read", "ko": "취하지 않음"},
    "hidden": {"zh": "伏", "en": "hidden", "ko": "복신"},
    "hidden_under": {"zh": "伏於{pos}之下", "en": "hidden under {pos}", "ko": "{pos} 아래 복신"},
    "factor": {"zh": "因素", "en": "factor", "ko": "요인"},
    "by_line": {"zh": "（由{pos}）", "en": " (by {pos})", "ko": " ({pos}에 의해)"},
    "stands": {"zh": "成立", "en": "stands", "ko": "성립"},
    "outweighed": {"zh": "被勝", "en": "outweighed", "ko": "밀림"},
    "loses_to": {"zh": "負於", "en": "loses to", "ko": "에 밀림:"},
    "under": {"zh": "依", "en": "under", "ko": "근거"},
    "judgments": {"zh": "所取之爻上的章節斷語", "en": "chapter judgments on the line read", "ko": "취한 효의 장절 판단"},
    "timing": {"zh": "應期", "en": "timing", "ko": "응기"},
    "immediate": {"zh": "應驗當下：卦之本日", "en": "answered at once: the cast's own day", "ko": "즉시 응함: 괘를 친 날"},
    "dates": {"zh": "日期", "en": "dates", "ko": "날짜"},
    "priority": {"zh": "次序", "en": "priority", "ko": "순위"},
    "for": {"zh": "順", "en": "for", "ko": "순"},
    "against": {"zh": "逆", "en": "against", "ko": "역"},
}
_UNITS = {"日": "day", "月": "month", "年": "year"}


def _w(key: str, w: i18n.Words) -> str:
    return WORDS[key][w.base]


def _passage(kg, iri: str, w: i18n.Words, indent: str = "    ") -> list[str]:
    rows = queries.run(kg, "passage", source=iri)
    label = w.w("source")
    if not rows:
        return [f"{indent}{label}{w.colon}{iri}"]
    r = rows[0]
    if not r["quote"]:  # a convention: its note and gloss are English
        said = f"{w.prose(r['note'])} — {w.prose(r['gloss'])}" if w.base == "en" else w.w("convention")
        return [f"{indent}{label}{w.colon}{said}"]
    where = f"{r['work']}·{r['chapter']}" if r["chapter"] else r["work"]
    offsets = f" [{r['seed']} {r['start']}–{r['end']}]" if r["start"] is not None else f" [{r['seed']}]"
    out = [f"{indent}{label}{w.colon}{where}「{r['quote']}」{offsets}"]
    if r["korean"] and w.base == "ko":
        out.append(f"{indent}{WHY_WORDS['translation']['ko']}: {r['korean']}")
    return out


ORDER = "https://w3id.org/liuyao-kg/passage/ConventionTimingOrder"


def _rule(kg, iri: str, w: i18n.Words, indent: str = "  ", skip: tuple = ()) -> list[str]:
    """The rule's IRI and label (zh-Hant, or its English one; ko: the zh-Hant, the graph has no Korean rule labels)."""
    rows = queries.run(kg, "rule-label", rule=iri)
    label = f" — {w.prose(rows[0]['en']) if w.base == 'en' else rows[0]['zh']}" if rows else ""
    out = [f"{indent}{w.w('rule')} {iri}{label}"]
    for r in rows:
        if r["source"] and r["source"] not in skip:
            out += _passage(kg, r["source"], w, indent + "  ")
    return out


def _subject(chart: dict, pos: int, hidden: bool, w: i18n.Words) -> str:
    if not hidden:
        return _facts_text(_line_facts(chart, pos), w)
    h = chart["lines"][pos - 1]["hidden"]
    where = _w("hidden_under", w).format(pos=w.position(pos))
    return f"    {where}{w.colon}{w.t(h['relative'])} {w.gz(h['stem'] + h['branch'])}"


def _factors(kg, chart: dict, entry: dict, w: i18n.Words) -> list[str]:
    read = _w("read" if entry["read"] else "not_read", w)
    hidden = f"{_w('hidden', w)} " if entry["hidden"] else ""
    out = [f"  {read} {hidden}{w.w('use_god')} {w.t(entry['relative'])} {w.gz(entry['stem'] + entry['branch'])}"
           f"{w.sep if w.base != 'zh' else '，'}{w.position(entry['position'])}",
           _subject(chart, entry["position"], entry["hidden"], w)]
    if entry["read_rule"]:
        out += _rule(kg, entry["read_rule"], w, "    ")
    factors = {f["iri"]: f for f in entry["factors"]}
    for f in entry["factors"]:
        at = _w("by_line", w).format(pos=w.position(f["other_line"])) if f["other_line"] else ""
        state = _w("stands" if f["standing"] else "outweighed", w)
        out.append(f"    {_w('factor', w)} {w.text(f['term'])} [{_w(f['polarity'], w)}]{at}{w.sep}{state}")
        out += _rule(kg, f["rule"], w, "      ")
        if not any(r["source"] == f["source"]["iri"] for r in queries.run(kg, "rule-label", rule=f["rule"])):
            out += _passage(kg, f["source"]["iri"], w, "        ")
        for o in f["outweighed_by"]:
            by = factors.get(o["factor"])
            name = w.text(by["term"]) if by else o["factor"]
            under = _w("under", w) + ("" if w.base == "zh" else " ")
            out.append(f"      {_w('loses_to', w)} {name} {under}「{o['statement']}」")
            out += _passage(kg, o["source"], w, "        ")
    return out


def _reason(chart: dict, w: i18n.Words) -> str:
    code = (chart["verdict"].get("reason_code") or {"code": "no_rule"})
    return i18n.REASONS[code["code"]][w.base].format(**{k: v for k, v in code.items() if k != "code"})


def explain_verdict(kg, chart: dict, lang: str = "zh") -> str:
    w = i18n.Words(lang, i18n.labels(kg))
    v = chart["verdict"]
    out = [f"{w.w('cast')} {chart['cast']}{w.colon}{cast_title(chart, w)}"]
    if not v["polarity"]:
        return w.finish("\n".join(out + [f"{w.w('no_verdict')}{w.colon}{_reason(chart, w)}"]) + "\n")
    verdict = v["label"].get(w.base) or v["polarity"]
    out.append(f"\n{_w('verdict', w)} {verdict}")
    out += _rule(kg, v["rule"], w)
    out.append(f"\n{_w('condition', w)}{w.colon.rstrip()}")
    for entry in chart["use_god_condition"]["lines"]:
        out += _factors(kg, chart, entry, w)
    judg = [b for b in v["because"] if "judgment" in b]
    if judg:
        out.append(f"\n{_w('judgments', w)}{w.colon.rstrip()}")
        for b in judg:
            out.append(f"  [{_w(b['role'], w)}] {w.text(b['judgment'])}")
            out.append(f"    {w.w('rule')} {b['rule']}")
            out += _passage(kg, b["source"]["iri"], w, "    ")
    return w.finish("\n".join(out) + "\n")


def explain_timing(kg, chart: dict, n: int, lang: str = "zh") -> str:
    w = i18n.Words(lang, i18n.labels(kg))
    note = chart.get("timing_note_code")
    note = i18n.REASONS[note["code"]][w.base].format(**{k: v for k, v in note.items() if k != "code"}) if note else ""
    if not chart["timing"]:
        return w.finish(f"{w.w('no_timing')}{w.colon}{note or '—'}\n")
    c = chart["timing"][n - 1]
    dates = ", ".join(c["dates"]) or note or "—"
    unit = w.w(_UNITS[c["unit"]])
    immediate = f" ({_w('immediate', w)})" if c["immediate"] else ""
    out = [f"\n{_w('timing', w)} #{c['rank']}{w.colon}{w.gz(c['branch'])}{unit}{immediate} — {_w('dates', w)} {dates}",
           f"  {_w('priority', w)} {c['priority']} (ConventionTimingOrder)"]
    out += _passage(kg, ORDER, w, "    ")
    for rule in [c["rule"]] + c["also"]:
        out += _rule(kg, rule, w, skip=(ORDER,))
    for pos in c["lines"]:
        out.append(_subject(chart, pos, c["hidden"], w))
    return w.finish("\n".join(out) + "\n")
