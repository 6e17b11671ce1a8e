"""Presentations of a chart: the practitioner's text layout, RDF serialisations, plain tables."""
from __future__ import annotations

import json
import unicodedata

import pyoxigraph as ox

from liuyao_kg.namespaces import PREFIXES

POSITION_NAMES = {1: "初爻", 2: "二爻", 3: "三爻", 4: "四爻", 5: "五爻", 6: "上爻"}
MOVING_MARK = {9: "○", 6: "×"}


def _width(s: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in s)


def _pad(s: str, width: int) -> str:
    return s + " " * max(0, width - _width(s))


def _hexagram_title(h: dict) -> str:
    kinds = " ".join(k for k in h["kind"] if k != h["generation"])
    return f"{h['name']}（{h['palace']}宮{h['palace_element']} {h['generation']}{(' ' + kinds) if kinds else ''}）"


def chart_text(chart: dict) -> str:
    """The chart as practitioners lay it out: top line first, 六神 | 伏神 | 六親 干支 五行 世應 動 | 變卦."""
    out = []
    title = _hexagram_title(chart["primary"])
    if chart["changed"]:
        title += " 之 " + _hexagram_title(chart["changed"])
    out.append(title)
    m, d = chart["month"], chart["day"]
    when = " ".join(x for x in (f"{(m['stem'] or '') + m['branch']}月" if m else "",
                                f"{d['stem']}{d['branch']}日" if d else "") if x)
    if chart.get("year"):
        when = f"{chart['year']['stem']}{chart['year']['branch']}年 " + when
    out.append(f"{when}  旬空 {''.join(chart['void'])}" if d else (when or "無月日 no month or day"))
    out.append("")
    for line in reversed(chart["lines"]):
        hidden = line["hidden"]
        hidden_s = f"{hidden['relative']}{hidden['stem']}{hidden['branch']}{hidden['element']}" if hidden else ""
        roles = "".join(r for r in line["roles"] if r in ("世", "應"))
        body = "".join(r for r in line["roles"] if r in ("卦身", "世身"))
        mark = MOVING_MARK.get(line["value"], "")
        yang = line["value"] in (7, 9)
        bar = "▅▅▅▅▅" if yang else "▅▅ ▅▅"
        row = (f"{_pad(line['spirit'] or '', 5)}{_pad(hidden_s, 12)}"
               f"{line['relative']}{line['stem']}{line['branch']}{line['element']} {bar} "
               f"{_pad(roles, 3)}{_pad(mark, 2)}")
        ch = line["change"]
        if ch:
            row += f"→ {ch['relative']}{ch['stem']}{ch['branch']}{ch['element']}"
        if body:
            row += f"  [{body}]"
        out.append(row.rstrip())
    out.append("")
    out.append("狀態 states")
    for line in reversed(chart["lines"]):
        terms = [s["term"] + "".join(f"：{s[k]}" for k in ("stage", "strength") if s.get(k))
                 + (f"({s['school']})" if s["school"] else "")
                 for s in line["states"]]
        when = " ".join(x for x in (f"日{line['stage_day']}" if line["stage_day"] else "",
                                    f"月{line['stage_month']}" if line["stage_month"] else "", line["strength"] or "") if x)
        out.append(f"  {POSITION_NAMES[line['position']]} {line['stem']}{line['branch']}" + (f"（{when}）" if when else "")
                   + (f": {'、'.join(terms)}" if terms else ""))
    for s in chart["states"]:
        extra = "".join(f" {s[k]}" for k in ("kind", "relative") if s.get(k))
        lines = f" 爻{','.join(map(str, s['lines']))}" if s["lines"] else ""
        out.append(f"  卦: {s['term']}{extra}{lines}")
    if chart.get("topic") or chart.get("use_god"):
        out.append("  " + _question_text(chart))
    for note in chart.get("notes") or []:
        out.append(f"  ({note})")
    if chart.get("judgments"):
        out.append("")
        out.append("斷 judgments")
        for j in chart["judgments"]:
            src = j["source"]
            lines = f" 爻{','.join(map(str, sorted(j['lines'])))}" if j["lines"] else ""
            out.append(f"  [{j['polarity']}] {j['conclusion']['zh']}{lines} — {src['work']}·{src['chapter']}「{src['quote']}」")
    out.append("")
    out.append("出處 sources: liuyao cast … --format json gives each state's rule and passage.")
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


def cast_rdf(kg, cast_iri: str, fmt: str) -> str:
    """The cast's asserted and inferred graphs as Turtle (TriG) or JSON-LD."""
    quads = kg.cast_graph(cast_iri, inferred=True)
    if fmt == "turtle":
        data = ox.serialize(quads, format=ox.RdfFormat.TRIG, prefixes=PREFIXES)
        return data.decode("utf-8")
    return _jsonld(quads)


def _term_json(t):
    if isinstance(t, ox.NamedNode):
        return {"@id": t.value}
    if isinstance(t, ox.BlankNode):
        return {"@id": "_:" + t.value}
    v = {"@value": t.value}
    if t.language:
        v["@language"] = t.language
    elif t.datatype.value != "http://www.w3.org/2001/XMLSchema#string":
        v["@type"] = t.datatype.value
    return v


def _jsonld(quads) -> str:
    """Expanded JSON-LD, one named graph per cast layer (no context fetching, no extra dependency)."""
    graphs: dict[str, dict[str, dict]] = {}
    for q in quads:
        g = graphs.setdefault(q.graph_name.value, {})
        node = g.setdefault(q.subject.value, {"@id": q.subject.value})
        if q.predicate.value == "http://www.w3.org/1999/02/22-rdf-syntax-ns#type":
            node.setdefault("@type", []).append(q.object.value)
        else:
            node.setdefault(q.predicate.value, []).append(_term_json(q.object))
    doc = [{"@id": gid, "@graph": list(nodes.values())} for gid, nodes in graphs.items()]
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def table(rows: list[dict]) -> str:
    if not rows:
        return "(no rows)\n"
    cols = list(rows[0])
    cells = [[("" if r[c] is None else str(r[c])) for c in cols] for r in rows]
    widths = [max(_width(c), *(_width(row[i]) for row in cells)) for i, c in enumerate(cols)]
    lines = ["  ".join(_pad(c, w) for c, w in zip(cols, widths))]
    lines += ["  ".join(_pad(v, w) for v, w in zip(row, widths)) for row in cells]
    return "\n".join(lines) + "\n"
