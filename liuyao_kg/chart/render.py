"""Presentations of a chart: the practitioner's text layout, RDF serialisations, plain tables."""
from __future__ import annotations

from liuyao_kg.chart import i18n
from liuyao_kg.chart.table import display_width, pad

MOVING_MARK = {9: "○", 6: "×"}


def short_id(rule_iri: str) -> str:
    """A rule's short id, as the chart prints it and `why --rule` accepts it: the IRI's last path segment."""
    return rule_iri.rstrip("/").rsplit("/", 1)[-1]


def _hexagram_title(h: dict, w: i18n.Words) -> str:
    """節（坎宮水 一世 六合） / Jie (Limitation): Kan (The Abysmal) palace, water; first generation; six combine."""
    kinds = [w.t(k) for k in h["kind"] if k != h["generation"]]
    if w.base == "en":
        inner = f"{w.t(h['palace'])} palace, {w.t(h['palace_element'])}; " + "; ".join([w.t(h["generation"])] + kinds)
        return f"{w.t(h['name'])}: {inner}{_related(h, w)}"
    inner = f"{w.t(h['palace'])}{w.w('palace')}{w.t(h['palace_element'])} " + " ".join([w.t(h["generation"])] + kinds)
    inner += _related(h, w)
    return f"{w.t(h['name'])}（{inner}）" if w.base == "zh" else f"{w.t(h['name'])} ({inner})"


def _related(h: dict, w: i18n.Words) -> str:
    """互 錯 綜 after the palace, as practitioners write them: 「；互頤 錯旅 綜渙」 (en/ko: their labels)."""
    rel = h.get("related")
    if not rel:
        return ""
    if w.base == "zh":
        return "；" + " ".join(f"{mark}{rel[key]['name']}" for key, mark in RELATED_MARKS)
    return "; " + ", ".join(f"{w.t(mark + '卦')} {w.t(rel[key]['name'])}" for key, mark in RELATED_MARKS)


#: the chart's keys of a hexagram's 互, 錯 and 綜 (liuyao_kg.chart.RELATED) with their marks
RELATED_MARKS = (("nuclear", "互"), ("opposite", "錯"), ("inverse", "綜"))


def _gz(x: dict, w: i18n.Words) -> str:
    """relative + stem-branch + element (stems and branches in characters, as practitioners write them; in English
    with their pinyin)."""
    if w.base == "zh":
        return f"{x['relative']}{x['stem']}{x['branch']}{x['element']}"
    return f"{w.t(x['relative'])} {w.gz(x['stem'] + x['branch'])} {w.t(x['element'])}"


def _when(chart: dict, w: i18n.Words) -> str:
    """寅月 辛亥日  旬空 寅卯 / Yin (寅) month, Xinhai (辛亥) day; void: Yin (寅), Mao (卯)."""
    pillars = [(chart.get("year"), "year"), (chart.get("month"), "month"), (chart.get("day"), "day"),
               (chart.get("hour"), "hour")]
    said = []
    for p, unit in pillars:
        if not p:
            continue
        gz = (p.get("stem") or "") + p["branch"]
        said.append(f"{w.gz(gz)}{w.w(unit)}")
    if not chart.get("day"):
        return (", " if w.base == "en" else " ").join(said) or w.w("no_month_day")
    void = w.sep.join(w.gz(b) for b in chart["void"]) if w.base == "en" else "".join(chart["void"])
    if w.base == "en":
        return ", ".join(said) + f"; {w.w('void')}: {void}"
    return " ".join(said) + f"  {w.w('void')} {void}"


def _states(states: list[dict], w: i18n.Words) -> list[str]:
    """A line's states, each once: a term the schools read alike is shown once with its schools (暗動（通說、增刪卜易說）)."""
    merged: dict[tuple, list] = {}
    for s in states:
        merged.setdefault((s["term"], s.get("stage"), s.get("strength")), []).append(s["school"])
    out = []
    for (term, stage, strength), schools in merged.items():
        said = w.term(term) + "".join(f"{w.colon}{w.t(x)}" for x in (stage, strength) if x)
        if any(schools):
            names = w.sep.join(w.school(x) if x else w.w("common") for x in schools)
            said += f"（{names}）" if w.base == "zh" else f" [{names}]"
        out.append(said)
    return out


def _stages(line: dict, w: i18n.Words) -> str:
    day = i18n.stage("day", w.t(line["stage_day"]), w.base) if line["stage_day"] else ""
    month = i18n.stage("month", w.t(line["stage_month"]), w.base) if line["stage_month"] else ""
    parts = [x for x in (day, month, w.t(line["strength"]) if line["strength"] else "") if x]
    if not parts:
        return ""
    return f"（{' '.join(parts)}）" if w.base == "zh" else f" [{'; '.join(parts)}]"


GROUP_WORDS = {"用神": {"zh": "用神", "en": "use-god", "ko": "용신"}, "世": {"zh": "世", "en": "the self line (shi)",
               "ko": "세효"}, "應": {"zh": "應", "en": "the other line (ying)", "ko": "응효"},
               "他爻": {"zh": "他爻", "en": "other lines", "ko": "다른 효"}, "卦": {"zh": "卦", "en": "the hexagram",
                                                                               "ko": "괘"}}


def _judgment_line(js: list[dict], lines, w: i18n.Words) -> str:
    """[吉] conclusion（初爻）— work·chapter「quote」  (short rule id): one sentence of a classic once, with every
    conclusion drawn from it and every rule that drew one."""
    j = js[0]
    src = j["source"]
    texts = list(dict.fromkeys(w.text(x["conclusion"]) for x in js))
    at = ""
    if lines:
        at = f"（{w.positions(lines)}）" if w.base == "zh" else f" ({w.positions(lines)})"
    where = f"{src['work']}·{src['chapter']}「{src['quote']}」" if src.get("quote") else w.w("convention")
    ids = ", ".join(dict.fromkeys(short_id(x["rule"]) for x in js))
    return f"[{i18n.polarity(j['polarity'], w.base)}] {('; ' if w.base != 'zh' else '；').join(texts)}{at} — {where}  ({ids})"


def chart_text(chart: dict, lang: str = "zh", labels=None, brief: bool = False) -> str:
    """The chart as practitioners lay it out: top line first, 六神 | 伏神 | 六親 干支 五行 世應 動 | 變卦.

    `lang` (zh or zh-Hant, zh-Hans, en, ko) writes everything in that language alone, but the classics' quotes and the
    names of their works: terms by the graph's labels (`labels`: an i18n.Labels; needed for en/ko), stems and
    branches in characters (with their pinyin in English). The plain reading opens it (plain.plain_reading); `brief`
    prints only that. Each judgment ends with its rule's short id, the id `liuyao why --rule` takes. Columns are
    padded by East Asian width, so CJK and Latin text line up."""
    from liuyao_kg.chart.plain import plain_reading, plain_text

    w = i18n.Words(lang, labels)
    out = []
    if chart.get("verdict"):  # the reading opens the chart (verdict, reasons, use-god, timing), when derived
        out += plain_text(plain_reading(chart, w.base, labels)) + [""]
    if brief:
        return w.finish("\n".join(out).rstrip("\n") + "\n")
    title = _hexagram_title(chart["primary"], w)
    if chart["changed"]:
        title += w.w("of") + _hexagram_title(chart["changed"], w)
    out.append(title)
    out.append(_when(chart, w))
    out.append("")
    rows = []
    for line in reversed(chart["lines"]):
        hidden = line["hidden"]
        roles = " ".join(w.t(r) for r in line["roles"] if r in ("世", "應"))
        body = w.sep.join(w.t(r) for r in line["roles"] if r in ("卦身", "世身"))
        yang = line["value"] in (7, 9)
        ch = line["change"]
        rows.append([w.t(line["spirit"]), _gz(hidden, w) if hidden else "", _gz(line, w),
                     "▅▅▅▅▅" if yang else "▅▅ ▅▅", roles, MOVING_MARK.get(line["value"], ""),
                     f"→ {_gz(ch, w)}" if ch else "", f"[{body}]" if body else ""])
    widths = [max(display_width(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        out.append(" ".join(pad(c, wd) for c, wd in zip(r, widths) if wd).rstrip())
    out.append("")
    out.append(w.w("states"))
    for line in reversed(chart["lines"]):
        terms = _states(line["states"], w)
        out.append(f"  {w.position(line['position'])} {w.gz(line['stem'] + line['branch'])}{_stages(line, w)}"
                   + (f"{w.colon}{w.sep.join(terms)}" if terms else ""))
    for s in chart["states"]:
        said = [w.term(s["term"])] + [w.t(s[k]) for k in ("kind", "relative") if s.get(k)]
        if s["lines"]:
            said.append(w.positions(s["lines"]))
        out.append(f"  {w.w('hexagram')}{w.colon}" + (" " if w.base != "en" else ", ").join(said))
    if chart.get("topic") or chart.get("use_god"):
        out.append("  " + _question_text(chart, w))
    for code in chart.get("note_codes") or []:
        out.append(f"  ({w.w(code)})" if w.base != "zh" else f"  （{w.w(code)}）")
    if chart.get("judgments"):
        out.append("")
        if chart["judgments"][0].get("group"):  # the reading grouped them by whom they concern
            from liuyao_kg.chart.render_reading import grouped_judgments

            out += grouped_judgments(chart, fmt=lambda js, lines: _judgment_line(js, lines, w), title=w.w("by_whom"),
                                     group=lambda g: GROUP_WORDS[g][w.base])
        else:
            out.append(w.w("judgments"))
            out += ["  " + _judgment_line([j], j["lines"], w) for j in chart["judgments"]]
    out.append("")
    out.append(w.w("sources"))
    return w.finish("\n".join(out) + "\n")


def _question_text(chart: dict, w: i18n.Words) -> str:
    """占 問題 and how its use-god was chosen: by the user, or by which reading (school, passage)."""
    topic = w.t(chart["topic"]) if chart.get("topic") else "—"
    about = w.t(chart["about"]) if chart.get("about") else ""
    if w.base == "zh":
        q = f"占 {topic}" + (f"（{about}）" if about else "")
    else:
        q = f"{w.w('question')}: {topic}" + (f" ({about})" if about else "")
    ug = chart.get("use_god")
    if not ug:
        return f"{q}  {w.w('no_use_god')}"
    rel = w.t(ug["relative"]) if ug.get("relative") else ""
    head = w.w("use_god") + (f" {rel}" if rel else "")
    lines = f" {w.positions(ug['lines'])}" if ug["lines"] else f" ({w.w('no_such_line')})"
    if ug["chosen_by"] == "user":
        return f"{q}  {head}{lines} — {w.w('by_user')}"
    picks = []
    for c in ug["choices"]:
        src = c["source"]
        cite = f"「{src['quote']}」" if src.get("quote") else f"({w.w('convention')})"
        name = c["label"] if w.base == "zh" else ""
        school = f"[{w.school(c['school'])}]" if c["school"] else ""
        picks.append(" ".join(x for x in (name, school, cite) if x))
    return f"{q}  {head}{lines} — " + ("；" if w.base == "zh" else "; ").join(picks)


def cast_rdf(kg, cast_iri: str, fmt: str, layers: str = "all") -> str:
    """The cast's graphs in an RDF format (see liuyao_kg.chart.rdf)."""
    from liuyao_kg.chart.rdf import cast_rdf as _cast_rdf

    return _cast_rdf(kg, cast_iri, fmt, layers)


def table(rows: list[dict], *, iris: bool = False, width: int | None = None) -> str:
    """Rows as a terminal table (liuyao_kg.chart.table): by display width, IRIs compacted unless `iris`, cut
    to `width` columns when given."""
    from liuyao_kg.chart.table import table as _table

    return _table(rows, iris=iris, width=width)
