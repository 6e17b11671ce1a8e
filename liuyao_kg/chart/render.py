"""Presentations of a chart: the practitioner's text layout, RDF serialisations, plain tables."""
from __future__ import annotations

import unicodedata

from liuyao_kg.chart import i18n

MOVING_MARK = {9: "○", 6: "×"}


def _width(s: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in s)


def _pad(s: str, width: int) -> str:
    return s + " " * max(0, width - _width(s))


def short_id(rule_iri: str) -> str:
    """A rule's short id, as the chart prints it and `why --rule` accepts it: the IRI's last path segment."""
    return rule_iri.rstrip("/").rsplit("/", 1)[-1]


class _Words:
    """Translation of chart terms for one language (zh keeps the chart's own zh-Hant words)."""

    def __init__(self, lang: str, labels):
        self.lang = i18n.check_lang(lang)
        self.labels = labels

    def t(self, zh: str | None) -> str:
        if not zh or self.lang == "zh" or self.labels is None:
            return zh or ""
        return self.labels.term(zh, self.lang)

    def school(self, school_id: str | None) -> str:
        if not school_id:
            return ""
        return self.labels.school(school_id, self.lang) if self.labels is not None else school_id

    def w(self, key: str) -> str:
        return i18n.word(key, self.lang)


def _hexagram_title(h: dict, w: _Words) -> str:
    kinds = " ".join(w.t(k) for k in h["kind"] if k != h["generation"])
    inner = f"{w.t(h['palace'])}{w.w('palace')}{w.t(h['palace_element'])} {w.t(h['generation'])}"
    return f"{w.t(h['name'])}（{inner}{(' ' + kinds) if kinds else ''}{_related(h, w)}）"


def _related(h: dict, w: _Words) -> str:
    """互 錯 綜 after the palace, as practitioners write them: 「；互頤 錯旅 綜渙」 (en/ko: their labels)."""
    rel = h.get("related")
    if not rel:
        return ""
    if w.lang == "zh":
        return "；" + " ".join(f"{mark}{rel[key]['name']}" for key, mark in RELATED_MARKS)
    return "; " + ", ".join(f"{w.t(mark + '卦')} {w.t(rel[key]['name'])}" for key, mark in RELATED_MARKS)


#: the chart's keys of a hexagram's 互, 錯 and 綜 (liuyao_kg.chart.RELATED) with their marks
RELATED_MARKS = (("nuclear", "互"), ("opposite", "錯"), ("inverse", "綜"))


def _gz(x: dict, w: _Words) -> str:
    """relative + stem-branch + element (stems and branches stay in characters, as practitioners write them)."""
    sep = "" if w.lang == "zh" else " "
    return f"{w.t(x['relative'])}{sep}{x['stem']}{x['branch']}{sep}{w.t(x['element'])}"


def _judgment_line(j: dict, lines, w: _Words) -> str:
    """[吉] conclusion 爻1,6 — work·chapter「quote」  (short rule id)."""
    src = j["source"]
    at = f" {w.w('lines')}{','.join(map(str, sorted(lines)))}" if lines else ""
    text = j["conclusion"].get(w.lang) or j["conclusion"]["zh"]
    where = f"{src['work']}·{src['chapter']}「{src['quote']}」" if src.get("quote") else w.w("convention")
    return f"[{i18n.polarity(j['polarity'], w.lang)}] {text}{at} — {where}  ({short_id(j['rule'])})"


def chart_text(chart: dict, lang: str = "zh", labels=None) -> str:
    """The chart as practitioners lay it out: top line first, 六神 | 伏神 | 六親 干支 五行 世應 動 | 變卦.

    `lang` (zh, en, ko) translates terms by the graph's labels (`labels`: an i18n.Labels; needed for en/ko);
    each judgment ends with its rule's short id, the id `liuyao why --rule` takes. Columns are padded by
    East Asian width, so CJK and Latin text line up."""
    from liuyao_kg.chart.render_reading import reading_header

    w = _Words(lang, labels)
    out = reading_header(chart, w.lang)  # the reading opens the chart (verdict, reasons, timing), when derived
    title = _hexagram_title(chart["primary"], w)
    if chart["changed"]:
        title += w.w("of") + _hexagram_title(chart["changed"], w)
    out.append(title)
    m, d = chart["month"], chart["day"]
    when = " ".join(x for x in (f"{(m['stem'] or '') + m['branch']}{w.w('month')}" if m else "",
                                f"{d['stem']}{d['branch']}{w.w('day')}" if d else "") if x)
    if chart.get("year"):
        when = f"{chart['year']['stem']}{chart['year']['branch']}{w.w('year')} " + when
    if chart.get("hour"):
        when += f" {chart['hour']['stem']}{chart['hour']['branch']}{'時' if w.lang == 'zh' else (' hour' if w.lang == 'en' else '시')}"
    out.append(f"{when}  {w.w('void')} {''.join(chart['void'])}" if d else (when or "無月日 no month or day"))
    out.append("")
    rows = []
    for line in reversed(chart["lines"]):
        hidden = line["hidden"]
        roles = " ".join(w.t(r) for r in line["roles"] if r in ("世", "應"))
        body = " ".join(w.t(r) for r in line["roles"] if r in ("卦身", "世身"))
        yang = line["value"] in (7, 9)
        ch = line["change"]
        rows.append([w.t(line["spirit"]), _gz(hidden, w) if hidden else "", _gz(line, w),
                     "▅▅▅▅▅" if yang else "▅▅ ▅▅", roles, MOVING_MARK.get(line["value"], ""),
                     f"→ {_gz(ch, w)}" if ch else "", f"[{body}]" if body else ""])
    widths = [max(_width(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        out.append(" ".join(_pad(c, wd) for c, wd in zip(r, widths) if wd).rstrip())
    out.append("")
    out.append(w.w("states"))
    sep = "、" if w.lang == "zh" else ", "
    colon = "：" if w.lang == "zh" else ": "
    for line in reversed(chart["lines"]):
        terms = [w.t(s["term"]) + "".join(f"{colon}{w.t(s[k])}" for k in ("stage", "strength") if s.get(k))
                 + (f"({w.school(s['school'])})" if s["school"] else "")
                 for s in line["states"]]
        when = " ".join(x for x in (i18n.stage('day', w.t(line['stage_day']), w.lang) if line["stage_day"] else "",
                                    i18n.stage('month', w.t(line['stage_month']), w.lang) if line["stage_month"] else "",
                                    w.t(line['strength']) if line["strength"] else "") if x)
        out.append(f"  {i18n.POSITIONS[w.lang][line['position']]} {line['stem']}{line['branch']}" + (f"（{when}）" if when else "")
                   + (f": {sep.join(terms)}" if terms else ""))
    hexword = w.w("hexagram")
    for s in chart["states"]:
        extra = "".join(f" {w.t(s[k])}" for k in ("kind", "relative") if s.get(k))
        lines = f" {w.w('lines')}{','.join(map(str, s['lines']))}" if s["lines"] else ""
        out.append(f"  {hexword}: {w.t(s['term'])}{extra}{lines}")
    if chart.get("topic") or chart.get("use_god"):
        out.append("  " + _question_text(chart))
    for note in chart.get("notes") or []:
        out.append(f"  ({note})")
    if chart.get("judgments"):
        out.append("")
        if chart["judgments"][0].get("group"):  # the reading grouped them by whom they concern
            from liuyao_kg.chart.render_reading import grouped_judgments

            out += grouped_judgments(chart, fmt=lambda j, lines: _judgment_line(j, lines, w), title=w.w("judgments") + {"zh": "（依所關之人）", "en": " (by whom they concern)", "ko": " (관계된 사람별)"}[w.lang])
        else:
            out.append(w.w("judgments"))
            out += ["  " + _judgment_line(j, j["lines"], w) for j in chart["judgments"]]
    out.append("")
    out.append(w.w("sources"))
    return "\n".join(out) + "\n"


def _question_text(chart: dict) -> str:
    """占 問題 and how its use-god was chosen: by the user, or by which reading (school, passage)."""
    q = f"占 {chart['topic'] or '—'}" + (f"（{chart['about']}）" if chart.get("about") else "")
    ug = chart.get("use_god")
    if not ug:
        return q + "  用神: none chosen (the question names no line for this cast)"
    if ug["chosen_by"] == "user":
        rel = f" {ug['relative']}" if ug["relative"] else ""
        return q + f"  用神{rel} 爻{','.join(map(str, ug['lines']))} — chosen by the user"
    picks = []
    for c in ug["choices"]:
        src = c["source"]
        cite = f"「{src['quote']}」" if src.get("quote") else f"({src.get('note')})"
        picks.append(c["label"] + (f" [{c['school']}]" if c["school"] else "") + " " + cite)
    lines = f" 爻{','.join(map(str, ug['lines']))}" if ug["lines"] else " (no such line in the cast)"
    return q + f"  用神{lines} — " + "；".join(picks)


def cast_rdf(kg, cast_iri: str, fmt: str, layers: str = "all") -> str:
    """The cast's graphs in an RDF format (see liuyao_kg.chart.rdf)."""
    from liuyao_kg.chart.rdf import cast_rdf as _cast_rdf

    return _cast_rdf(kg, cast_iri, fmt, layers)


def table(rows: list[dict]) -> str:
    if not rows:
        return "(no rows)\n"
    cols = list(rows[0])
    cells = [[("" if r[c] is None else str(r[c])) for c in cols] for r in rows]
    widths = [max(_width(c), *(_width(row[i]) for row in cells)) for i, c in enumerate(cols)]
    lines = ["  ".join(_pad(c, w) for c, w in zip(cols, widths))]
    lines += ["  ".join(_pad(v, w) for v, w in zip(row, widths)) for row in cells]
    return "\n".join(lines) + "\n"
