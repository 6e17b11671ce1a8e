"""`liuyao why --verdict` / `--timing N`: the verdict or a timing candidate traced back to its rule, the factors
and line facts it rests on, the precedence statements that decided between them, and every passage on the way."""
from __future__ import annotations

from liuyao_kg import queries
from liuyao_kg.chart.why import _facts_text, _line_facts
from liuyao_kg.chart.i18n import POSITIONS


def _passage(kg, iri: str, indent: str = "    ") -> list[str]:
    rows = queries.run(kg, "passage", source=iri)
    if not rows:
        return [f"{indent}source: {iri}"]
    r = rows[0]
    if not r["quote"]:
        return [f"{indent}source: {r['note']} — {r['gloss']}"]
    where = f"{r['work']}·{r['chapter']}" if r["chapter"] else r["work"]
    offsets = f" [{r['seed']} {r['start']}–{r['end']}]" if r["start"] is not None else f" [{r['seed']}]"
    out = [f"{indent}source: {where}「{r['quote']}」{offsets}"]
    if r["korean"]:
        out.append(f"{indent}ko: {r['korean']}")
    return out


ORDER = "https://w3id.org/liuyao-kg/passage/ConventionTimingOrder"


def _rule(kg, iri: str, indent: str = "  ", skip: tuple = ()) -> list[str]:
    rows = queries.run(kg, "rule-label", rule=iri)
    label = f" — {rows[0]['zh']}: {rows[0]['en']}" if rows else ""
    out = [f"{indent}rule {iri}{label}"]
    for r in rows:
        if r["source"] and r["source"] not in skip:
            out += _passage(kg, r["source"], indent + "  ")
    return out


def _subject(chart: dict, pos: int, hidden: bool) -> str:
    if not hidden:
        return _facts_text(_line_facts(chart, pos), "zh", None)
    h = chart["lines"][pos - 1]["hidden"]
    return f"    伏 under {POSITIONS['zh'][pos]}: {h['relative']}{h['stem']}{h['branch']}"


def _factors(kg, chart: dict, entry: dict) -> list[str]:
    out = [("  read " if entry["read"] else "  not read ") + ("hidden " if entry["hidden"] else "")
           + f"use-god {entry['relative']}{entry['stem']}{entry['branch']} at line {entry['position']}",
           _subject(chart, entry["position"], entry["hidden"])]
    if entry["read_rule"]:
        out += _rule(kg, entry["read_rule"], "    ")
    factors = {f["iri"]: f for f in entry["factors"]}
    for f in entry["factors"]:
        at = f" (by line {f['other_line']})" if f["other_line"] else ""
        state = "stands" if f["standing"] else "outweighed"
        out.append(f"    factor {f['term']['zh']} [{f['polarity']}]{at} — {f['term']['en']}; {state}")
        out += _rule(kg, f["rule"], "      ")
        if not any(r["source"] == f["source"]["iri"] for r in queries.run(kg, "rule-label", rule=f["rule"])):
            out += _passage(kg, f["source"]["iri"], "        ")
        for o in f["outweighed_by"]:
            by = factors.get(o["factor"])
            out.append(f"      loses to {by['term']['zh'] if by else o['factor']} under 「{o['statement']}」")
            out += _passage(kg, o["source"], "        ")
    return out


def explain_verdict(kg, chart: dict) -> str:
    v = chart["verdict"]
    out = [f"cast {chart['cast']}: {chart['primary']['name']}" + (f"之{chart['changed']['name']}" if chart["changed"] else "")]
    if not v["polarity"]:
        return "\n".join(out + [f"no verdict: {v['reason']}"]) + "\n"
    out.append(f"\nverdict {v['polarity']} — {v['summary']['en']}")
    out += _rule(kg, v["rule"])
    out.append("\nthe use-god's condition:")
    for entry in chart["use_god_condition"]["lines"]:
        out += _factors(kg, chart, entry)
    judg = [b for b in v["because"] if "judgment" in b]
    if judg:
        out.append("\nchapter judgments on the line read:")
        for b in judg:
            out.append(f"  [{b['role']}] {b['judgment']['zh']} — {b['judgment']['en']}")
            out.append(f"    rule {b['rule']}")
            out += _passage(kg, b["source"]["iri"], "    ")
    return "\n".join(out) + "\n"


def explain_timing(kg, chart: dict, n: int) -> str:
    if not chart["timing"]:
        return f"no timing candidates: {chart.get('timing_note') or 'none derived'}\n"
    c = chart["timing"][n - 1]
    dates = ", ".join(c["dates"]) or chart.get("timing_note") or "—"
    out = [f"\ntiming #{c['rank']}: {c['branch']}{c['unit']}" + (" (應驗當下: the cast's own day)" if c["immediate"] else "")
           + f" — dates {dates}", f"  priority {c['priority']} (ConventionTimingOrder)"]
    out += _passage(kg, ORDER, "    ")
    for rule in [c["rule"]] + c["also"]:
        out += _rule(kg, rule, skip=(ORDER,))
    for pos in c["lines"]:
        out.append(_subject(chart, pos, c["hidden"]))
    return "\n".join(out) + "\n"
