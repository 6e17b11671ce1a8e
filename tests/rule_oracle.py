"""A second, direct implementation of the condition language (docs/rule-language.md), for tests.

It evaluates a condition on a chart dict (the JSON shape) by enumerating line bindings in Python, so
the SPARQL the compiler produces can be checked against it cast by cast. It shares no code with
reasoner/conditions.py: its own tokenizer, its own tables.
"""
from __future__ import annotations

import itertools
import re

from oracle import BITS_TRIGRAM

GEN = {"木": "火", "火": "土", "土": "金", "金": "水", "水": "木"}
OVER = {"木": "土", "土": "水", "水": "火", "火": "金", "金": "木"}
TRIGRAM_ELEMENT = {"乾": "金", "兌": "金", "離": "火", "震": "木", "巽": "木", "坎": "水", "艮": "土", "坤": "土"}
RELATIVES = {"父母", "兄弟", "妻財", "官鬼", "子孫"}
ROLES = {"世", "應", "卦身", "世身"}
SPIRITS = {"青龍", "朱雀", "勾陳", "螣蛇", "白虎", "玄武"}
POSITIONS = {"初爻": 1, "二爻": 2, "三爻": 3, "四爻": 4, "五爻": 5, "上爻": 6}
GROUPS = {"旺相": {"旺", "相"}, "休囚": {"休", "囚", "死"}}
REL = {"生", "克", "剋", "沖", "合", "刑", "害", "比和"}
CAST_TERMS = {"六沖變六合", "六合變六沖", "合處逢沖", "獨發", "獨靜", "兩現"}
LINE_STATES = {"月破", "旬空", "日沖", "暗動", "沖散", "月合", "日合", "日墓", "動墓", "化墓", "化絕", "化空", "化破", "化沖",
               "化合", "回頭生", "回頭克", "化進", "化退", "進神", "退神"}
STAGES = {"長生", "沐浴", "冠帶", "臨官", "帝旺", "衰", "病", "死", "墓", "絕", "胎", "養"}
TRIGRAMS = set(TRIGRAM_ELEMENT)


class UnknownToken(ValueError):
    """A token or cast fact this evaluator does not know: teach it here before trusting a comparison."""


def _trigrams(chart: dict) -> tuple[str, str]:
    bits = [1 if line["value"] in (7, 9) else 0 for line in chart["lines"]]
    return BITS_TRIGRAM[tuple(bits[:3])], BITS_TRIGRAM[tuple(bits[3:])]


def _use_god_positions(chart: dict) -> set[int]:
    return {p for s in chart["states"] if s["term"] == "用神" for p in s["lines"]}


def _token(chart: dict, line: dict, tok: str) -> bool:
    if tok in RELATIVES:
        return line["relative"] == tok
    if tok in ROLES:
        return tok in line["roles"]
    if tok == "用神":
        return line["position"] in _use_god_positions(chart)
    if tok in ("原神", "忌神"):
        table = GEN if tok == "原神" else OVER
        return any(table[line["element"]] == chart["lines"][p - 1]["element"] for p in _use_god_positions(chart))
    if tok in GEN:
        return line["element"] == tok
    if tok in SPIRITS:
        return line["spirit"] == tok
    if tok in ("動", "靜"):
        return line["moving"] == (tok == "動")
    if tok in POSITIONS:
        return line["position"] == POSITIONS[tok]
    if tok in ("內卦", "外卦"):
        return (line["position"] <= 3) == (tok == "內卦")
    if len(tok) == 1 and tok in "子丑寅卯辰巳午未申酉戌亥":
        return line["branch"] == tok
    if tok in ("旺", "相", "休", "囚", "死"):
        return line["strength"] == tok
    if tok in GROUPS:
        return line["strength"] in GROUPS[tok]
    if tok in ("臨日", "臨月", "臨年"):
        pillar = chart[{"臨日": "day", "臨月": "month", "臨年": "year"}[tok]]
        return pillar is not None and line["branch"] == pillar["branch"]
    if tok in ("陽爻", "陰爻"):
        return (line["value"] in (7, 9)) == (tok == "陽爻")
    if tok == "間爻":
        shi = next(x["position"] for x in chart["lines"] if "世" in x["roles"])
        ying = next(x["position"] for x in chart["lines"] if "應" in x["roles"])
        return min(shi, ying) < line["position"] < max(shi, ying)
    if tok[:2] in ("日:", "月:") and tok[2:] in STAGES:
        return line["stage_day" if tok[0] == "日" else "stage_month"] == tok[2:]
    if tok in LINE_STATES:
        return tok in {s["term"] for s in line["states"]}
    raise UnknownToken(f"rule_oracle: unknown line token {tok!r}")


def _line_ok(chart, line, tokens) -> bool:
    for t in tokens:
        wanted = not t.startswith("!")
        if _token(chart, line, t.lstrip("!")) != wanted:
            return False
    return True


def _endpoint(chart, name: str, env: dict):
    """(endpoint id in relations, element) or None when it does not exist."""
    if name == "日":
        return "day", chart["day"]["element"]
    if name == "月":
        return "month", chart["month"]["element"]
    if name == "年":
        return ("year", chart["year"]["element"]) if chart.get("year") else None
    if name.startswith("變"):
        line = chart["lines"][env[name[1:]] - 1]
        return (f"change:{line['position']}", line["change"]["element"]) if line["change"] else None
    line = chart["lines"][env[name] - 1]
    return f"line:{line['position']}", line["element"]


def _relation(chart, a, rel, b, env) -> bool:
    if a in ("內", "外"):
        lower, upper = _trigrams(chart)
        ea, eb = (TRIGRAM_ELEMENT[lower if x == "內" else upper] for x in (a, b))
        return {"生": GEN[ea] == eb, "克": OVER[ea] == eb, "剋": OVER[ea] == eb, "比和": ea == eb}[rel]
    x, y = _endpoint(chart, a, env), _endpoint(chart, b, env)
    if x is None or y is None:
        return False
    if rel == "比和":
        return x[0] != y[0] and x[1] == y[1]
    rel = "克" if rel == "剋" else rel
    return {"from": x[0], "to": y[0], "relation": rel} in chart["relations"]


def _cast(chart, key: str, value: str) -> bool:
    primary, changed = chart["primary"], chart["changed"]
    if key == "卦":
        if value in ("六沖", "六合", "遊魂", "歸魂"):
            return value in primary["kind"]
        if value in ("變六沖", "變六合"):
            return changed is not None and value[1:] in changed["kind"]
        if value == "無動":
            return not any(line["moving"] for line in chart["lines"])
        if value == "亂動":
            return sum(line["moving"] for line in chart["lines"]) >= 3
        if value in CAST_TERMS or value in ("變六沖", "變六合"):
            return value in {s["term"] for s in chart["states"]}
        raise UnknownToken(f"rule_oracle: unknown cast fact 卦:{value}")
    if key == "本卦":
        return primary["name"] == value
    if key == "之卦":
        return changed is not None and changed["name"] == value
    if key == "宮":
        return primary["palace"] == value
    if key not in ("內", "外") or value not in TRIGRAMS:
        raise UnknownToken(f"rule_oracle: unknown cast fact {key}:{value}")
    lower, upper = _trigrams(chart)
    return (lower if key == "內" else upper) == value


def _clauses(text: str) -> list[str]:
    return [c.strip() for c in re.split(r"[;\n]", text) if c.strip()]


def _holds(chart, clause: str, env: dict) -> bool:
    """A non-binding clause under a complete binding env."""
    if clause.startswith("not "):
        inner = clause[4:].strip()
        if "=" in inner:
            tokens = inner.partition("=")[2].split()
            return not any(_line_ok(chart, line, tokens) for line in chart["lines"])
        return not _holds(chart, inner, env)
    parts = clause.split()
    if len(parts) == 3 and parts[1] in REL:
        return _relation(chart, parts[0], parts[1], parts[2], env)
    if len(parts) == 3:
        raise UnknownToken(f"rule_oracle: unknown relation {parts[1]!r} in {clause!r}")
    if len(parts) != 1 or ":" not in clause:
        raise UnknownToken(f"rule_oracle: cannot read clause {clause!r}")
    key, _, value = clause.partition(":")
    return _cast(chart, key, value)


def evaluate(text: str, chart: dict) -> tuple[bool, set[int]]:
    """Whether the condition holds on the chart, and the positions of the lines bound in any match."""
    patterns = {}
    others = []
    for c in _clauses(text):
        if "=" in c and not c.startswith("not "):
            name, _, rest = c.partition("=")
            patterns[name.strip()] = rest.split()
        else:
            others.append(c)
    names = list(patterns)
    candidates = [[line["position"] for line in chart["lines"] if _line_ok(chart, line, patterns[n])] for n in names]
    fired, matched = False, set()
    for combo in itertools.product(*candidates):
        env = dict(zip(names, combo))
        if all(_holds(chart, c, env) for c in others):
            fired = True
            matched.update(combo)
    return fired, matched
