"""Text of the reading: the header that opens the chart (verdict, its three strongest reasons, the first timing
candidates) and the judgments grouped by whom they concern, duplicates of one sentence merged, 吉 and 凶 side by side."""
from __future__ import annotations

from liuyao_kg.chart.reading import GROUPS


def reading_header(chart: dict, lang: str = "zh") -> list[str]:
    """The verdict, its three strongest reasons and the first timing candidates, in `lang` (zh, en, ko):
    the summary and factor terms carry their own three labels; quotes stay in the classic's Chinese."""
    from liuyao_kg.chart import i18n

    v = chart.get("verdict")
    if not v:
        return []
    head = f"{i18n.word('verdict', lang)}:"
    if not v["polarity"]:
        return [f"{head} — ({v['reason']})", ""]
    out = [f"{head} {v['summary'].get(lang) or v['summary']['zh']}"]
    for b in [b for b in v["because"] if b["role"] == "for"][:3]:
        out.append(f"  {i18n.word('because', lang)} {_reason(b, lang)}")
    if chart.get("timing"):
        sep = "、" if lang == "zh" else ", "
        firsts = sep.join(_when(c, lang) for c in chart["timing"][:3])
        out.append(f"{i18n.word('timing', lang)}: {firsts}")
    return out + [""]


def _when(c: dict, lang: str) -> str:
    """子日 / 子 day / 子일, and its first date when the cast has one."""
    from liuyao_kg.chart import i18n

    unit = i18n.word({"日": "day", "月": "month", "年": "year"}[c["unit"]], lang)
    return f"{c['branch']}{unit}" + (f"({c['dates'][0]})" if c["dates"] else "")


def _reason(b: dict, lang: str = "zh") -> str:
    from liuyao_kg.chart import i18n

    src = b["source"]
    label = b["term"] if "term" in b else b["judgment"]
    what = label.get(lang) or label["zh"]
    quote = f"「{src['quote']}」" if src.get("quote") else f"({src.get('note') or i18n.word('convention', lang)})"
    lines = f" {i18n.word('lines', lang)}{','.join(map(str, b['lines']))}" if b.get("lines") else ""
    return f"{what}{lines} — {src.get('work') or ''}{quote}"


def _plain(j: dict, lines) -> str:
    at = f" 爻{','.join(map(str, sorted(lines)))}" if lines else ""
    src = j["source"]
    return f"[{j['polarity']}] {j['conclusion']['zh']}{at} — {src['work']}·{src['chapter']}「{src['quote']}」"


def grouped_judgments(chart: dict, fmt=_plain, title: str = "斷 judgments") -> list[str]:
    """`fmt(judgment, lines)` renders one merged judgment and `title` heads them (the text chart passes its language's)."""
    out = [title]
    for group in GROUPS:
        js = [j for j in chart["judgments"] if j.get("group") == group]
        if not js:
            continue
        merged: dict[tuple, dict] = {}
        for j in js:  # one sentence once, with all the lines it matched
            key = (j["conclusion"]["zh"], j["source"]["quote"], j["polarity"])
            m = merged.setdefault(key, {"j": j, "lines": set()})
            m["lines"] |= set(j["lines"])
        out.append(f"  [{group}]")
        by_pol = {p: [m for (_, _, pol), m in merged.items() if pol == p] for p in ("吉", "凶", "neutral")}
        for p in ("吉", "凶", "neutral"):
            for m in by_pol[p]:
                out.append("    " + fmt(m["j"], m["lines"]))
    return out
