"""`liuyao why`: from a judgment or a line state back to the rule, the facts it used, and the passages."""
from __future__ import annotations

from liuyao_kg import queries

POSITION_NAMES = {1: "初爻", 2: "二爻", 3: "三爻", 4: "四爻", 5: "五爻", 6: "上爻"}


def _source(src: dict) -> str:
    if not src or not src.get("quote"):
        return f"    source: {(src or {}).get('note') or 'standard convention, not in the seeds'}"
    where = f"{src.get('work') or ''}{('·' + src['chapter']) if src.get('chapter') else ''}"
    offsets = f" [{src['seed']} {src['start']}–{src['end']}]" if src.get("start") is not None else f" [{src['seed']}]"
    korean = f"\n    ko: {src['korean']}" if src.get("korean") else ""
    return f"    source: {where}「{src['quote']}」{offsets}{korean}"


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


def _line_facts(chart: dict, pos: int) -> str:
    line = chart["lines"][pos - 1]
    roles = "".join(line["roles"])
    states = "、".join(s["term"] for s in line["states"])
    return (f"    {POSITION_NAMES[pos]} {line['relative']}{line['stem']}{line['branch']}{line['element']} {line['spirit']}"
            f"{' 動' if line['moving'] else ''}{(' ' + roles) if roles else ''} 日{line['stage_day']} 月{line['stage_month']}"
            f" {line['strength']}{(' — ' + states) if states else ''}")


def _state_chain(kg, chart: dict, pos: int) -> list[str]:
    out = []
    for row in queries.run(kg, "line-states", cast=chart["cast"], position=pos):
        out.append(f"  {row['term']}{(' (' + row['school'] + ')') if row['school'] else ''} ← rule {row['rule']}")
        out.extend(_source({"work": row["work"], "chapter": row["chapter"], "quote": row["quote"], "seed": row["seed"],
                            "start": row["start"], "end": row["end"], "korean": row["korean"],
                            "note": row["note"]}).split("\n"))
    return out


def explain(kg, chart: dict, *, line: int | None = None, rule: str | None = None) -> str:
    out = [f"cast {chart['cast']}: {chart['primary']['name']}"
           + (f"之{chart['changed']['name']}" if chart["changed"] else "")
           + f", {chart['month']['branch']}月 {chart['day']['stem']}{chart['day']['branch']}日"]
    if line is not None:
        out.append(f"\nline {line}:")
        out.append(_line_facts(chart, line))
        out += _state_chain(kg, chart, line)
    judgments = chart.get("judgments", [])
    if rule is not None:
        judgments = [j for j in judgments if j["rule"] == rule or j["rule"].endswith("/" + rule)]
        if not judgments:
            out.append(f"\nrule {rule} did not fire on this cast")
    elif line is not None:
        judgments = [j for j in judgments if line in j["lines"]]
    for j in judgments:
        cond = queries.run(kg, "rule-condition", rule=j["rule"])
        out.append(f"\n[{j['polarity']}] {j['conclusion']['zh']} — {j['conclusion']['en']}")
        out.append(f"  rule {j['rule']}")
        if cond and cond[0]["condition"]:
            out.append(f"  condition: {cond[0]['condition']}")
        out.append(_source(j["source"]))
        out += _editions(j["source"])
        for pos in sorted(j["lines"]):
            out.append(_line_facts(chart, pos))
            out += ["  " + x for x in _state_chain(kg, chart, pos)]
    return "\n".join(out) + "\n"
