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
    keys = ("iri", "urn", "work", "chapter", "quote", "korean", "seed", "start", "end", "note", "editions")
    return {k: src.get(k) for k in keys}


def _editions(src: dict, w: i18n.Words) -> list[str]:
    """Where the judgment's passage stands in each loaded edition (the quoted-from one first)."""
    out = []
    for e in src.get("editions") or []:
        if e["method"] == "quoted":
            continue  # the source line above already gives it
        if e["exact"] is None:
            why = f" ({e['reason']})" if w.base == "en" else ""
            out.append(f"    {e['file']}{w.colon}{WHY_WORDS['not_found'][w.base]}{why}")
        else:
            method = WHY_WORDS.get(e["method"], {}).get(w.base, e["method"])
            where = f"in {e['file']}" if w.base == "en" else e["file"]
            out.append(f"    {where} [{e['start']}–{e['end']}] {method} {float(e['score']):.2f}{w.colon}「{e['exact']}」")
    return out


#: the words of `why` (the layout's; terms come from the graph's labels)
WHY_WORDS = {"not_found": {"zh": "未見", "en": "not found", "ko": "찾지 못함"},
             # how the passage was found in the edition (liuyao_kg/corpus: docs/corpus.md)
             "exact": {"zh": "全同", "en": "exact", "ko": "일치"},
             "folded": {"zh": "異體相通", "en": "folded", "ko": "이체자 일치"},
             "tolerant": {"zh": "近似", "en": "tolerant", "ko": "근사"},
             "translation": {"zh": "", "en": "", "ko": "번역"},
             "moving": {"zh": "動", "en": "moving", "ko": "동"},
             # a school conflict the rule takes a side in (ontology/conflicts.yaml, docs/schools.md)
             "conflict": {"zh": "異說", "en": "schools disagree", "ko": "이설"},
             "this_side": {"zh": "此從", "en": "this rule holds", "ko": "이 규칙은"},
             "default": {"zh": "（預設）", "en": " (the default)", "ko": " (기본)"},
             "other_side": {"zh": "另說", "en": "the other side", "ko": "다른 설"}}


def _conflicts(kg) -> dict[str, list[dict]]:
    """{rule IRI: the conflicts it takes a side in, each with its side and the other sides' labels by language}."""
    out: dict[str, dict[str, dict]] = {}
    for row in queries.run(kg, "rule-conflicts"):
        c = out.setdefault(row["rule"], {}).setdefault(row["conflict"], {
            "conflict": row["conflict"], "label": {b: row["c_" + b] for b in ("zh", "en", "ko")},
            "side": {b: row["side_" + b] for b in ("zh", "en", "ko")}, "default": row["default"], "others": []})
        c["others"].append({b: row["other_" + b] for b in ("zh", "en", "ko")})
    return {rule: list(by.values()) for rule, by in out.items()}


def _conflict_text(c: dict, w: i18n.Words) -> str:
    """One line: the conflict, the side this rule holds (and whether the reading follows it), the other side(s)."""
    def said(x: dict) -> str:
        return f'"{w.prose(x["en"])}"' if w.base == "en" else f"“{x[w.base]}”"  # labels, not quotes: converted

    default = WHY_WORDS["default"][w.base] if c["default"] else ""
    return (f"    {WHY_WORDS['conflict'][w.base]} `{c['conflict']}` {said(c['label'])}{w.colon}"
            f"{WHY_WORDS['this_side'][w.base]} {said(c['side'])}{default}{'；' if w.base == 'zh' else '; '}"
            f"{WHY_WORDS['other_side'][w.base]}{w.colon}{w.sep.join(said(o) for o in c['others'])}")


def _line_facts(chart: dict, pos: int) -> dict:
    line = chart["lines"][pos - 1]
    return {k: line.get(k) for k in ("position", "relative", "stem", "branch", "element", "spirit", "moving", "roles",
                                     "stage_day", "stage_month", "strength")} | {
        "states": [s["term"] for s in line["states"]]}


def _state_chain(kg, chart: dict, pos: int, conflicts: dict) -> list[dict]:
    return [{"term": row["term"], "school": row["school"], "rule": row["rule"], "source": _source(row),
             "conflicts": conflicts.get(row["rule"], [])}
            for row in queries.run(kg, "line-states", cast=chart["cast"], position=pos)]


def why_data(kg, chart: dict, *, line: int | None = None, rule: str | None = None) -> dict:
    """The trace of one line's states and/or the chart's judgments (all, those on `line`, or those `rule` names)."""
    month, day = chart["month"], chart["day"]  # None for a cast given without them
    out: dict = {"cast": chart["cast"], "primary": chart["primary"]["name"],
                 "changed": (chart["changed"] or {}).get("name"), "month": month and month["branch"],
                 "day": day and day["stem"] + day["branch"], "line": None, "rule": rule, "judgments": []}
    conflicts = _conflicts(kg)
    if line is not None:
        if not 1 <= line <= 6:
            raise ValueError(f"line {line}: a line position is 1 (bottom) … 6 (top)")
        out["line"] = {"facts": _line_facts(chart, line), "states": _state_chain(kg, chart, line, conflicts)}
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
            "conflicts": conflicts.get(j["rule"], []),
            "lines": [{"facts": _line_facts(chart, p), "states": _state_chain(kg, chart, p, conflicts)}
                      for p in sorted(j["lines"])]})
    return out


def _source_text(src: dict, w: i18n.Words) -> str:
    label = w.w("source")
    if not src.get("quote"):
        note = w.prose(src.get("note")) if w.base == "en" and src.get("note") else w.w("convention")
        return f"    {label}{w.colon}{note}"
    where = f"{src.get('work') or ''}{('·' + src['chapter']) if src.get('chapter') else ''}"
    offsets = f" [{src['seed']} {src['start']}–{src['end']}]" if src.get("start") is not None else f" [{src['seed']}]"
    korean = f"\n    {WHY_WORDS['translation']['ko']}: {src['korean']}" if src.get("korean") and w.base == "ko" else ""
    cited = f"\n    {src['urn']}" if src.get("urn") else ""  # the citation form (docs/citation.md)
    return f"    {label}{w.colon}{where}「{src['quote']}」{offsets}{cited}{korean}"


def _facts_text(f: dict, w: i18n.Words) -> str:
    """初爻 妻財丁巳火 白虎 世 日絕 月長生 相 — its states, in one language."""
    roles = " ".join(w.t(r) for r in f["roles"])
    states = w.sep.join(dict.fromkeys(w.term(s) for s in f["states"]))
    stages = [i18n.stage(p, w.t(f[k]), w.base) for p, k in (("day", "stage_day"), ("month", "stage_month")) if f[k]]
    gz = w.gz(f["stem"] + f["branch"])
    line = (f"{w.t(f['relative'])}{gz}{w.t(f['element'])}" if w.base == "zh"
            else f"{w.t(f['relative'])} {gz} {w.t(f['element'])}")
    parts = [w.position(f["position"]), line, w.t(f["spirit"]), WHY_WORDS["moving"][w.base] if f["moving"] else "",
             roles, *stages, w.t(f["strength"])]
    return "    " + (" " if w.base != "en" else ", ").join(x for x in parts if x) + (f" — {states}" if states else "")


def _chain_text(states: list[dict], w: i18n.Words) -> list[str]:
    out = []
    for s in states:
        school = w.school(s["school"]) if s["school"] else ""
        # English terms end in their gloss's parentheses already: the school follows after a comma
        school = (f", {school}" if w.base == "en" else f" ({school})") if school else ""
        out.append(f"  {w.term(s['term'])}{school} ← {w.w('rule')} {s['rule']}")
        out.extend(_source_text(s["source"], w).split("\n"))
        out += [_conflict_text(c, w) for c in s["conflicts"]]
    return out


def explain(kg, chart: dict, *, line: int | None = None, rule: str | None = None, lang: str = "zh") -> str:
    """The trace as text in `lang` (zh or zh-Hant, zh-Hans, en, ko): the classics' quotes as written, each rule by
    its IRI, each rule condition as the rule base writes it (`…`)."""
    data = why_data(kg, chart, line=line, rule=rule)
    w = i18n.Words(lang, i18n.labels(kg))
    out = [f"{w.w('cast')} {data['cast']}{w.colon}{cast_title(chart, w)}"]
    if data["line"] is not None:
        out.append(f"\n{w.position(line)}{w.colon.rstrip()}")
        out.append(_facts_text(data["line"]["facts"], w))
        out += _chain_text(data["line"]["states"], w)
    if rule is not None and not data["judgments"]:
        out.append("\n" + w.w("did_not_fire").format(rule=rule))
    for j in data["judgments"]:
        out.append(f"\n[{i18n.polarity(j['polarity'], w.base)}] {w.text(j['conclusion'])}")
        out.append(f"  {w.w('rule')} {j['id']}  {j['rule']}")
        if j["condition"]:
            out.append(f"  {w.w('condition')}{w.colon}`{j['condition']}`")
        out.append(_source_text(j["source"], w))
        out += _editions(j["source"], w)
        out += [_conflict_text(c, w) for c in j["conflicts"]]
        for ln in j["lines"]:
            out.append(_facts_text(ln["facts"], w))
            out += ["  " + x for x in _chain_text(ln["states"], w)]
    return w.finish("\n".join(out) + "\n")


def cast_title(chart: dict, w: i18n.Words) -> str:
    """節之中孚，寅月 辛亥日 / Jie (Limitation) → ZhongFu (Inner Truth), Yin (寅) month, Xinhai (辛亥) day."""
    names = w.t(chart["primary"]["name"]) + (w.w("of").strip() if w.base == "zh" else w.w("of")) * bool(chart["changed"])
    names += w.t(chart["changed"]["name"]) if chart["changed"] else ""
    when = [w.gz((p.get("stem") or "") + p["branch"]) + w.w(unit)
            for p, unit in ((chart.get("month"), "month"), (chart.get("day"), "day")) if p]
    return names + (("，" if w.base == "zh" else ", ") + (" " if w.base != "en" else ", ").join(when) if when else "")
