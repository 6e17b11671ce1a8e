"""Text of the reading's judgments, grouped by whom they concern: one sentence of a classic once, 吉 and 凶 side by
side. (The verdict, its reasons and the timing that open the chart are the plain reading: plain.py.)"""
from __future__ import annotations

from liuyao_kg.chart.reading import GROUPS


def _plain(js: list[dict], lines) -> str:
    at = f" 爻{','.join(map(str, sorted(lines)))}" if lines else ""
    j, src = js[0], js[0]["source"]
    said = "；".join(dict.fromkeys(x["conclusion"]["zh"] for x in js))
    return f"[{j['polarity']}] {said}{at} — {src['work']}·{src['chapter']}「{src['quote']}」"


def grouped_judgments(chart: dict, fmt=_plain, title: str = "斷（依所關之人）", group=lambda g: g) -> list[str]:
    """`fmt(judgments, lines)` renders the judgments drawn from one sentence of a classic (one polarity), `title` heads
    them and `group(name)` names each group (the text chart passes its language's). Judgments merge on their passage's
    quote, or on their conclusion where they have none (a convention): the same sentence is said once."""
    out = [title]
    for name in GROUPS:
        js = [j for j in chart["judgments"] if j.get("group") == name]
        if not js:
            continue
        merged: dict[tuple, dict] = {}
        for j in js:  # one sentence once, with all the rules that drew on it and all the lines they matched
            said = j["source"].get("quote") or j["conclusion"]["zh"]
            m = merged.setdefault((said, j["polarity"]), {"js": [], "lines": set()})
            m["js"].append(j)
            m["lines"] |= set(j["lines"])
        out.append(f"  [{group(name)}]")
        for p in ("吉", "凶", "neutral"):
            for (_, pol), m in merged.items():
                if pol == p:
                    out.append("    " + fmt(m["js"], m["lines"]))
    return out
