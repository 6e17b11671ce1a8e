"""The reading of a cast: the use-god's condition, the verdict with its reasons, the timing (應期), the judgments
grouped by whom they concern. Every decision is made by the rules of rules/reading.ttl; this module only reads
their facts back (named queries) into the JSON shape of docs/reading.md and adds calendar dates (timing.py)."""
from __future__ import annotations

from liuyao_kg.chart import timing

#: judgment groups, by the first of the chart roles a judgment's lines hold (the use-god first)
GROUPS = ("用神", "世", "應", "他爻", "卦")
HORIZONS = timing.UNITS
#: the named queries a reading reads, each with the parameter `cast` (asked with the chart's: liuyao_kg/chart/__init__.py)
READING_QUERIES = ("reading-factors", "reading-verdict", "cast-instant", "reading-timing")


def _src(r: dict, key: str = "source") -> dict:
    return {"iri": r[key], "work": r.get("work"), "chapter": r.get("chapter"), "seed": r.get("seed"),
            "quote": r.get("quote"), "note": r.get("note")}


def use_god_condition(ask, cast_iri: str, chart: dict) -> dict:
    """Each use-god line (or hidden line): whether it is read and by which rule, and its factors.

    `ask(name, **params)` answers a named query: queries.Answers.ask, or functools.partial(queries.run, kg)."""
    entries: dict[tuple, dict] = {}
    factors: dict[str, dict] = {}
    for r in ask("reading-factors", cast=cast_iri):
        key = (r["position"], r["hidden"])
        e = entries.setdefault(key, {"position": r["position"], "hidden": r["hidden"], "read": r["read"],
                                     "read_rule": r["readRule"], "factors": []})
        f = factors.get(r["factor"])
        if f is None:
            f = factors[r["factor"]] = {
                "kind": r["kind"], "term": {"zh": r["kindZh"], "en": r["kindEn"], "ko": r["kindKo"]},
                "polarity": r["polarity"], "school": r["school"], "other_line": r["otherPos"],
                "rule": r["rule"], "source": _src(r), "iri": r["factor"], "standing": r["stands"],
                "outweighed_by": []}
            e["factors"].append(f)
        if r["outweighedBy"] and not any(o["factor"] == r["outweighedBy"] for o in f["outweighed_by"]):
            f["outweighed_by"].append({"factor": r["outweighedBy"], "precedence": r["precedence"],
                                       "statement": r["precedenceZh"], "source": r["precedenceSource"]})
    lines = {ln["position"]: ln for ln in chart["lines"]}
    for e in entries.values():
        ln = lines[e["position"]]
        shown = ln["hidden"] if e["hidden"] else ln
        e.update({"relative": shown["relative"], "stem": shown["stem"], "branch": shown["branch"],
                  "element": shown["element"]})
    ug = next((s for s in chart["states"] if s["term"] == "用神"), None)
    return {"relative": ug.get("relative") if ug else None, "lines": [entries[k] for k in sorted(entries)],
            "factors": factors}


def verdict(ask, cast_iri: str, condition: dict, judgments: list[dict], use_god: dict | None = None,
            topic: str | None = None) -> dict:
    rows = ask("reading-verdict", cast=cast_iri)
    if not rows:
        # `reason` (English, kept for compatibility) and `reason_code` with its values: i18n.REASONS words it
        if condition["relative"] is None and not condition["lines"]:
            if topic is None:
                why, code = "no use-god: the cast has no topic (give --topic)", {"code": "no_topic"}
            else:  # the question names its use-god, and the cast holds no such line (shown or hidden)
                picks = "；".join(c["label"] for c in (use_god or {}).get("choices", []))
                why = f"no use-god line: {topic}'s use-god ({picks or 'none chosen'}) is not in this cast"
                code = {"code": "no_use_god_line", "topic": topic, "picks": picks}
        else:
            why, code = "no verdict rule applies", {"code": "no_rule"}
        return {"polarity": None, "reason": why, "reason_code": code, "because": []}
    r0 = rows[0]
    factors = condition["factors"]
    wins = {o["factor"] for f in factors.values() for o in f["outweighed_by"]}  # factors that outweighed another
    because, rank = [], {}
    for r in rows:
        f = factors.get(r["factor"]) if r["factor"] else None
        if f is None or r["factor"] in rank:
            continue
        # strongest first: the verdict's side, standing, having outweighed another factor
        rank[r["factor"]] = (r["role"] != "for", not f["standing"], r["factor"] not in wins, f["kind"])
        entry = {"rule": f["rule"], "source": f["source"], "lines": [_line_of(condition, f)], "role": r["role"],
                 "factor": f["kind"], "term": f["term"], "standing": f["standing"], "_rank": rank[r["factor"]]}
        if f["outweighed_by"]:
            entry["loses_to"] = [{"factor": factors[o["factor"]]["kind"], "precedence": o["statement"],
                                  "source": o["source"]} for o in f["outweighed_by"] if o["factor"] in factors]
        because.append(entry)
    read = {e["position"] for e in condition["lines"] if e["read"] and not e["hidden"]}
    favourable = r0["favourable"]
    for j in judgments:  # the chapter judgments on a read line: with the verdict or against it (after the factors)
        if j["polarity"] in ("吉", "凶") and read & set(j["lines"]):
            role = "for" if (j["polarity"] == "吉") == favourable else "against"
            because.append({"rule": j["rule"], "source": j["source"], "lines": sorted(j["lines"]), "role": role,
                            "judgment": j["conclusion"], "_rank": (role != "for", True, True, j["rule"])})
    because.sort(key=lambda b: b.pop("_rank"))
    return {"polarity": r0["termZh"], "term": r0["term"], "favourable": favourable, "rule": r0["rule"],
            "label": {"zh": r0["termZh"], "en": r0["termEn"], "ko": r0["termKo"]},
            "source": _src(r0), "summary": _summary(r0, condition, because), "because": because}


def _line_of(condition: dict, f: dict) -> int:
    return next(e["position"] for e in condition["lines"] if f in e["factors"])


def _summary(r0: dict, condition: dict, because: list[dict]) -> dict:
    read = [e for e in condition["lines"] if e["read"]]
    who = "、".join(f"{e['relative']}{e['stem']}{e['branch']}" + ("（伏）" if e["hidden"] else f"（{e['position']}爻）")
                    for e in read)
    pro = [b for b in because if b["role"] == "for" and b.get("standing")][:3]
    con = [b for b in because if b["role"] == "against" and b.get("standing")][:2]
    out = {}
    for lang, sep, lead, but in (("zh", "、", "用神", "；雖"), ("en", ", ", "use-god ", "; although "),
                                 ("ko", ", ", "용신 ", "; 비록 ")):
        term = {"zh": r0["termZh"], "en": r0["termEn"], "ko": r0["termKo"]}[lang]
        s = f"{term}: {lead}{who} — " + sep.join(b["term"][lang] for b in pro)
        if con:
            s += but + sep.join(b["term"][lang] for b in con)
        out[lang] = s
    return out


def timing_candidates(ask, cast_iri: str, horizon: str = "日") -> list[dict]:
    """Ranked candidates: by the rule's priority (data), then by how many rules give the branch; one per branch."""
    if horizon not in HORIZONS:
        raise ValueError(f"horizon {horizon!r}: must be one of {', '.join(HORIZONS)}")
    at = next(iter(ask("cast-instant", cast=cast_iri)), {}).get("at")
    by_branch: dict[str, dict] = {}
    for r in ask("reading-timing", cast=cast_iri):
        c = by_branch.get(r["branch"])
        if c is None:
            c = by_branch[r["branch"]] = {"branch": r["branch"], "unit": "日" if r["immediate"] else horizon,
                                          "rule": r["rule"], "priority": r["priority"], "immediate": r["immediate"],
                                          "lines": [], "hidden": r["hidden"], "source": _src(r), "also": []}
        elif r["rule"] != c["rule"] and r["rule"] not in c["also"]:
            c["also"].append(r["rule"])
        if r["position"] not in c["lines"]:
            c["lines"].append(r["position"])
    ranked = sorted(by_branch.values(), key=lambda c: (c["priority"], -len(c["also"]), c["rule"],
                                                       timing.BRANCHES.index(c["branch"])))
    for i, c in enumerate(ranked, 1):
        c["rank"] = i
        if at is None:
            c["dates"] = []
        elif c["immediate"]:
            c["dates"] = [timing.cast_day(at)]
        else:
            c["dates"] = timing.next_dates(at, c["branch"], c["unit"])
    return ranked


def group_judgments(chart: dict, condition: dict) -> None:
    """Add `group` to each judgment: whom it concerns, by the roles of its lines (GROUPS order)."""
    ug = {e["position"] for e in condition["lines"]}
    shi = {ln["position"] for ln in chart["lines"] if "世" in ln["roles"]}
    ying = {ln["position"] for ln in chart["lines"] if "應" in ln["roles"]}
    for j in chart["judgments"]:
        lines = set(j["lines"])
        j["group"] = ("卦" if not lines else "用神" if lines & ug else "世" if lines & shi
                      else "應" if lines & ying else "他爻")


def add_reading(ask, chart: dict, horizon: str = "日", horizon_by: str = "user") -> dict:
    """Add use_god_condition, verdict, timing and the judgment groups to a chart dict (in place; returns it)."""
    cast_iri = chart["cast"]
    cond = use_god_condition(ask, cast_iri, chart)
    chart["verdict"] = verdict(ask, cast_iri, cond, chart["judgments"], chart.get("use_god"), chart.get("topic"))
    chart["use_god_condition"] = {"relative": cond["relative"], "lines": cond["lines"]}
    chart["timing"] = timing_candidates(ask, cast_iri, horizon) if chart["verdict"]["polarity"] else []
    chart["horizon"] = horizon
    chart["horizon_by"] = horizon_by  # "user" (--horizon), "question" (its lyo:timingUnit) or "default" (日)
    chart["timing_note"] = chart["timing_note_code"] = None  # English, and its i18n.REASONS code
    if not chart["verdict"]["polarity"]:
        chart["timing_note"] = chart["verdict"]["reason"]
        chart["timing_note_code"] = chart["verdict"]["reason_code"]
    elif chart["timing"] and not any(c["dates"] for c in chart["timing"]):
        chart["timing_note"] = "no calendar dates: the cast has no date (give --date)"
        chart["timing_note_code"] = {"code": "no_dates"}
    group_judgments(chart, cond)
    return chart
