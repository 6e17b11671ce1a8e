"""`liuyao why`: from a judgment or a line state back to the rule, the facts it used, and the passages.

`why_data` builds the trace as data (what `why --format json` prints and /api/why answers); `explain` renders
it as text in zh, en or ko. A rule is named by its IRI, its path under rule/, its short id (the chart prints
it after each judgment) or its conclusion text in any language (`理不應得`).
"""
from __future__ import annotations

from liuyao_kg.chart import i18n
from liuyao_kg import queries
from liuyao_kg.chart.render import short_id


def match_judgments(judgments: list[dict], rule: str) -> list[dict]:
    """The judgments `rule` names: exact IRI, path, short id, or conclusion text (exact first, then contained)."""
    key = rule.strip()
    exact = [j for j in judgments if key in (j["rule"], short_id(j["rule"]))
             or j["rule"].endswith("/" + key) or key in j["conclusion"].values()]
    if exact:
        return exact
    return [j for j in judgments if any(key and key in (v or "") for v in j["conclusion"].values())]


def _source(src: dict | None) -> dict:
    src = src or {}
    keys = ("iri", "work", "chapter", "quote", "korean", "seed", "start", "end", "note", "editions")
    return {k: src.get(k) for k in keys}


def _editions(src: dict) -> list[str]:
    """Where the judgment's passage stands in each loaded edition (the quoted-from one first)."""
    out = []
    for e in src.get("editions") or []:
        if e["method"] == "quoted":
            continue  # the source line above already gives it
        if e["exact"] is None:
            out.append(f"    in {e['file']}: not found ({e['reason']})")
        else:
            out.append(f"    in {e['file']} [{e['start']}–{e['end']}] {e['method']} {float(e['score']):.2f}:「{e['exact']}」")
    return out


def _line_facts(chart: dict, pos: int) -> dict:
    line = chart["lines"][pos - 1]
    return {k: line.get(k) for k in ("position", "relative", "stem", "branch", "element", "spirit", "moving", "roles",
                                     "stage_day", "stage_month", "strength")} | {
        "states": [s["term"] for s in line["states"]]}


def _state_chain(kg, chart: dict, pos: int) -> list[dict]:
    return [{"term": row["term"], "school": row["school"], "rule": row["rule"], "source": _source(row)}
            for row in queries.run(kg, "line-states", cast=chart["cast"], position=pos)]


def why_data(kg, chart: dict, *, line: int | None = None, rule: str | None = None) -> dict:
    """The trace of one line's states and/or the chart's judgments (all, those on `line`, or those `rule` names)."""
    out: dict = {"cast": chart["cast"], "primary": chart["primary"]["name"],
                 "changed": (chart["changed"] or {}).get("name"), "month": chart["month"]["branch"],
                 "day": chart["day"]["stem"] + chart["day"]["branch"], "line": None, "rule": rule, "judgments": []}
    if line is not None:
        if not 1 <= line <= 6:
            raise ValueError(f"line {line}: a line position is 1 (bottom) … 6 (top)")
        out["line"] = {"facts": _line_facts(chart, line), "states": _state_chain(kg, chart, line)}
    judgments = chart.get("judgments", [])
    if rule is not None:
        judgments = match_judgments(judgments, rule)
    elif line is not None:
        judgments = [j for j in judgments if line in j["lines"]]
    for j in judgments:
        cond = queries.run(kg, "rule-condition", rule=j["rule"])
        out["judgments"].append({
            "rule": j["rule"], "id": short_id(j["rule"]), "polarity": j["polarity"], "conclusion": j["conclusion"],
            "condition": cond[0]["condition"] if cond else None, "source": _source(j["source"]),
            "lines": [{"facts": _line_facts(chart, p), "states": _state_chain(kg, chart, p)}
                      for p in sorted(j["lines"])]})
    return out


def _source_text(src: dict, lang: str) -> str:
    label = i18n.word("source", lang)
    if not src.get("quote"):
        return f"    {label}: {src.get('note') or i18n.word('convention', lang)}"
    where = f"{src.get('work') or ''}{('·' + src['chapter']) if src.get('chapter') else ''}"
    offsets = f" [{src['seed']} {src['start']}–{src['end']}]" if src.get("start") is not None else f" [{src['seed']}]"
    korean = f"\n    ko: {src['korean']}" if src.get("korean") else ""
    return f"    {label}: {where}「{src['quote']}」{offsets}{korean}"


def _facts_text(f: dict, lang: str, labels) -> str:
    t = (lambda zh: labels.term(zh, lang)) if lang != "zh" and labels is not None else (lambda zh: zh or "")
    roles = "".join(t(r) for r in f["roles"])
    states = ("、" if lang == "zh" else ", ").join(t(s) for s in f["states"])
    return (f"    {i18n.POSITIONS[lang][f['position']]} {t(f['relative'])}{f['stem']}{f['branch']}{t(f['element'])} "
            f"{t(f['spirit'])}{' 動' if f['moving'] else ''}{(' ' + roles) if roles else ''} "
            f"{i18n.stage('day', t(f['stage_day']), lang)} {i18n.stage('month', t(f['stage_month']), lang)} "
            f"{t(f['strength'])}{(' — ' + states) if states else ''}")


def _chain_text(states: list[dict], lang: str, labels) -> list[str]:
    out = []
    for s in states:
        term = labels.term(s["term"], lang) if lang != "zh" and labels is not None else s["term"]
        school = (labels.school(s["school"], lang) if labels is not None else s["school"]) if s["school"] else ""
        out.append(f"  {term}{(' (' + school + ')') if school else ''} ← rule {s['rule']}")
        out.extend(_source_text(s["source"], lang).split("\n"))
    return out


def explain(kg, chart: dict, *, line: int | None = None, rule: str | None = None, lang: str = "zh") -> str:
    data = why_data(kg, chart, line=line, rule=rule)
    labels = i18n.labels(kg)
    out = [f"cast {data['cast']}: {data['primary']}" + (f"之{data['changed']}" if data["changed"] else "")
           + f", {data['month']}月 {data['day']}日"]
    if data["line"] is not None:
        out.append(f"\n{i18n.word('line', lang)} {line}:")
        out.append(_facts_text(data["line"]["facts"], lang, labels))
        out += _chain_text(data["line"]["states"], lang, labels)
    if rule is not None and not data["judgments"]:
        out.append("\n" + i18n.word("did_not_fire", lang).format(rule=rule))
    for j in data["judgments"]:
        text = j["conclusion"].get(lang) or j["conclusion"]["zh"]
        out.append(f"\n[{i18n.polarity(j['polarity'], lang)}] {text}" + (f" — {j['conclusion']['en']}" if lang == "zh" else ""))
        out.append(f"  {i18n.word('rule', lang)} {j['id']}  {j['rule']}")
        if j["condition"]:
            out.append(f"  {i18n.word('condition', lang)}: {j['condition']}")
        out.append(_source_text(j["source"], lang))
        out += _editions(j["source"])
        for ln in j["lines"]:
            out.append(_facts_text(ln["facts"], lang, labels))
            out += ["  " + x for x in _chain_text(ln["states"], lang, labels)]
    return "\n".join(out) + "\n"
