"""A second, direct implementation of the condition language (docs/rule-language.md), for tests.

It evaluates a condition on a chart dict (the JSON shape) by enumerating line bindings in Python, so
the SPARQL the compiler produces can be checked against it cast by cast. It shares no code with
reasoner/conditions.py: its own tokenizer, its own tables.
"""
from __future__ import annotations

import itertools
import re

from oracle import (BITS_TRIGRAM, BRANCH_ELEMENT, CLASH, COMBINE, HARM, PUNISH, SELF_PUNISH, hexagram_lines, relative,
                    strength)

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

# 神煞, written out here from the classic tables (not from the package): name → (pillar, key → branches).
BR = "子丑寅卯辰巳午未申酉戌亥"
_FRAMES = ("申子辰", "寅午戌", "巳酉丑", "亥卯未")


def _frame(targets):
    return {b: t for f, t in zip(_FRAMES, targets) for b in f}


SHENSHA = {
    "貴人": ("day_stem", {"甲": "丑未", "戊": "丑未", "庚": "丑未", "乙": "子申", "己": "子申", "丙": "亥酉",
                          "丁": "亥酉", "壬": "卯巳", "癸": "卯巳", "辛": "午寅"}),
    "祿": ("day_stem", dict(zip("甲乙丙丁戊己庚辛壬癸", "寅卯巳午巳午申酉亥子"))),
    "驛馬": ("day_branch", _frame("寅申亥巳")),
    "咸池": ("day_branch", _frame("酉卯午子")),
    "劫殺": ("day_branch", _frame("巳亥寅申")),
    "亡神": ("month", dict(zip("寅卯辰巳午未申酉戌亥子丑", "亥子丑寅卯辰巳午未申酉戌"))),  # 天玄賦: 正月從亥起順行
    "亡神/TriadShenSha": ("day_branch", _frame("亥巳申寅")),
    "將星": ("day_branch", _frame("子午酉卯")),
    "華蓋": ("day_branch", _frame("辰戌丑未")),
    "天喜": ("month", dict(zip("寅卯辰巳午未申酉戌亥子丑", "戌戌戌丑丑丑辰辰辰未未未"))),
    "喪門": ("year", {b: BR[(i + 2) % 12] for i, b in enumerate(BR)}),
    "弔客": ("year", {b: BR[(i - 2) % 12] for i, b in enumerate(BR)}),
}
SHENSHA_ALIAS = {"桃花": "咸池", "天乙貴人": "貴人", "祿神": "祿"}


def shensha_branches(chart: dict, name: str) -> str:
    """The branches carrying the 神煞 `name` (optionally `name/School`) for the chart's pillars."""
    base, sep, school = name.partition("/")
    basis, table = SHENSHA[SHENSHA_ALIAS.get(base, base) + sep + school]
    if basis == "day_stem":
        key = chart["day"]["stem"]
    elif basis == "day_branch":
        key = chart["day"]["branch"]
    else:
        pillar = chart.get(basis)
        if pillar is None:
            return ""
        key = pillar["branch"]
    return table.get(key, "")


def _trigrams(chart: dict) -> tuple[str, str]:
    bits = [1 if line["value"] in (7, 9) else 0 for line in chart["lines"]]
    return BITS_TRIGRAM[tuple(bits[:3])], BITS_TRIGRAM[tuple(bits[3:])]


def _use_god_positions(chart: dict) -> set[int]:
    return {p for s in chart["states"] if s["term"] == "用神" for p in s["lines"]}


# 火珠林's own strength table (財官異路章): the month's season, not its branch, rules; no earth month.
SEASON = dict(zip("寅卯辰巳午未申酉戌亥子丑", "木木木火火火金金金水水水"))


def _strength(chart: dict, element: str) -> str:
    """Strength of an element in the chart's month by the table the rule reads (evaluate's strength_table)."""
    month = chart["month"]["element"] if chart.get("_table", "EarthMonths") == "EarthMonths" else SEASON[chart["month"]["branch"]]
    return strength(month, element)


def _hidden_use_god(chart: dict, position: int) -> dict | None:
    """The hidden use-god line under the line at `position`, when the use-god is absent and hidden there."""
    use = next((s for s in chart["states"] if s["term"] == "用神"), None)
    if use is None or "relative" not in use or position not in use["lines"]:
        return None
    if any(x["relative"] == use["relative"] for x in chart["lines"]):
        return None
    hidden = chart["lines"][position - 1]["hidden"]
    return hidden if hidden is not None and hidden["relative"] == use["relative"] else None


# What a hidden use-god line has of its own (舍飛從伏): relative, element, branch, position and what the
# month and day make of its branch. Every other token (moving, spirit, roles, changes, 神煞 …) fails on it.
HIDDEN_STATES = ("月破", "旬空", "日沖", "月合", "日合", "日墓")


def _subject(chart: dict, line: dict) -> dict:
    """The line a `用神` pattern without 伏用 reads: the hidden use-god under `line`, else `line` itself."""
    hidden = _hidden_use_god(chart, line["position"])
    if hidden is None:
        return line
    br, el = hidden["branch"], BRANCH_ELEMENT[hidden["branch"]]
    day, month = chart["day"]["branch"], chart["month"]["branch"]
    tomb = {"金": "丑", "木": "未", "火": "戌", "水": "辰", "土": "辰"}
    states = [t for t, ok in (("月破", month + br in CLASH), ("旬空", br in chart["void"]), ("日沖", day + br in CLASH),
                              ("月合", month + br in COMBINE), ("日合", day + br in COMBINE), ("日墓", tomb[el] == day)) if ok]
    life = {"金": "巳", "木": "亥", "火": "寅", "水": "申", "土": "申"}
    stage = lambda b: STAGE_ORDER[(BR.index(b) - BR.index(life[el])) % 12]  # noqa: E731
    return {"position": line["position"], "relative": hidden["relative"], "element": el, "branch": br,
            "stage_day": stage(day), "stage_month": stage(month), "states": [{"term": t} for t in states],
            "hidden_use_god": True}


STAGE_ORDER = ["長生", "沐浴", "冠帶", "臨官", "帝旺", "衰", "病", "死", "墓", "絕", "胎", "養"]


def _reads_hidden(tokens) -> bool:
    return "用神" in tokens and "伏用" not in {t.lstrip("!") for t in tokens}


def _hidden_ok(tok: str) -> bool:
    """Whether a token is defined on a hidden use-god line (else it never holds there)."""
    return (tok in RELATIVES or tok in ("吉神", "凶神") or tok in GEN or tok in POSITIONS or (len(tok) == 1 and tok in BR)
            or tok in ("內卦", "外卦", "臨日", "臨月", "臨年", "臨命", "間爻", "原神", "忌神", "用神", "絕處逢生")
            or tok in ("旺", "相", "休", "囚", "死") or tok in GROUPS or tok in HIDDEN_STATES
            or (tok[:2] in ("日:", "月:") and tok[2:] in STAGES))


def _token(chart: dict, line: dict, tok: str) -> bool:
    if line.get("hidden_use_god") and not _hidden_ok(tok):
        return False
    if tok in RELATIVES:
        return line["relative"] == tok
    if tok == "吉神":  # 身命章: 妻財子孫者，雖為吉神 (財福)
        return line["relative"] in ("妻財", "子孫")
    if tok == "凶神":  # 身命章: 鬼殺凶神
        return line["relative"] == "官鬼"
    if tok in ROLES:
        return tok in line["roles"]
    if tok == "用神":
        return line["position"] in _use_god_positions(chart)
    if tok == "伏用":
        use = next((s for s in chart["states"] if s["term"] == "用神"), None)
        return (use is not None and "relative" in use and line["position"] in use["lines"]
                and all(x["relative"] != use["relative"] for x in chart["lines"]))
    if tok in ("原神", "忌神"):  # against the use-god's own element (a hidden one's, not its flying line's)
        table = GEN if tok == "原神" else OVER
        return any(table[line["element"]] == _subject(chart, chart["lines"][p - 1])["element"]
                   for p in _use_god_positions(chart))
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
        return _strength(chart, line["element"]) == tok
    if tok in GROUPS:
        return _strength(chart, line["element"]) in GROUPS[tok]
    if tok in ("臨日", "臨月", "臨年"):
        pillar = chart[{"臨日": "day", "臨月": "month", "臨年": "year"}[tok]]
        return pillar is not None and line["branch"] == pillar["branch"]
    if tok == "臨命":
        return chart.get("birth") is not None and line["branch"] == chart["birth"]
    if tok in ("陽爻", "陰爻"):
        return (line["value"] in (7, 9)) == (tok == "陽爻")
    if tok == "間爻":
        shi = next(x["position"] for x in chart["lines"] if "世" in x["roles"])
        ying = next(x["position"] for x in chart["lines"] if "應" in x["roles"])
        return min(shi, ying) < line["position"] < max(shi, ying)
    if tok == "絕處逢生":  # the rescued use-god line (for a hidden use-god: its flying line, as for 用神)
        return any(s["term"] == "絕處逢生" and line["position"] in s["lines"] for s in chart["states"])
    if tok.startswith("之:"):  # the changed hexagram's line at this position, relative to the primary palace
        if chart["changed"] is None:
            return False
        gz = hexagram_lines(chart["changed"]["name"])[line["position"] - 1]
        return relative(chart["primary"]["palace_element"], BRANCH_ELEMENT[gz[1]]) == tok[2:]
    if tok.startswith("伏:"):
        return line["hidden"] is not None and line["hidden"]["relative"] == tok[2:]
    if tok in ("伏旺相", "伏休囚"):
        hidden = line["hidden"]
        return hidden is not None and _strength(chart, BRANCH_ELEMENT[hidden["branch"]]) in GROUPS[tok[1:]]
    if tok.startswith("伏宮:"):
        return line["hidden_palace"]["relative"] == tok[3:]
    if tok.startswith("神煞:"):
        return line["branch"] in shensha_branches(chart, tok[3:])
    if tok[:2] in ("日:", "月:") and tok[2:] in STAGES:
        return line["stage_day" if tok[0] == "日" else "stage_month"] == tok[2:]
    if tok in LINE_STATES:
        return tok in {s["term"] for s in line["states"]}
    raise UnknownToken(f"rule_oracle: unknown line token {tok!r}")


def _line_ok(chart, line, tokens) -> bool:
    if _reads_hidden(tokens):
        line = _subject(chart, line)
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
    if name.startswith("伏"):
        hidden = chart["lines"][env[name[1:]] - 1]["hidden"]
        return (f"hidden:{env[name[1:]]}", BRANCH_ELEMENT[hidden["branch"]], hidden["branch"]) if hidden else None
    if name.startswith("變"):
        if _is_hidden_subject(chart, name[1:], env):  # a hidden use-god does not move
            return None
        line = chart["lines"][env[name[1:]] - 1]
        return (f"change:{line['position']}", line["change"]["element"]) if line["change"] else None
    if _is_hidden_subject(chart, name, env):
        hidden = _hidden_use_god(chart, env[name])
        return f"hidden:{env[name]}", BRANCH_ELEMENT[hidden["branch"]]
    line = chart["lines"][env[name] - 1]
    return f"line:{line['position']}", line["element"]


def _is_hidden_subject(chart, name: str, env: dict) -> bool:
    """`name` was bound by a 用神 pattern without 伏用 and the use-god is hidden under its line."""
    return name in env.get("_reads_hidden", ()) and _hidden_use_god(chart, env[name]) is not None


def _relation(chart, a, rel, b, env) -> bool:
    if a in ("內", "外"):
        lower, upper = _trigrams(chart)
        ea, eb = (TRIGRAM_ELEMENT[lower if x == "內" else upper] for x in (a, b))
        return {"生": GEN[ea] == eb, "克": OVER[ea] == eb, "剋": OVER[ea] == eb, "比和": ea == eb}[rel]
    x, y = _endpoint(chart, a, env), _endpoint(chart, b, env)
    if x is None or y is None:
        return False
    if x[0].startswith("hidden:") or y[0].startswith("hidden:"):  # by value: a hidden line is not in chart["relations"]
        if x[0] == y[0]:  # one line is no relation of itself (as the relation rules: two endpoints)
            return False
        bx, by = _branch(chart, a, env), _branch(chart, b, env)
        return {"生": GEN[x[1]] == y[1], "克": OVER[x[1]] == y[1], "剋": OVER[x[1]] == y[1], "比和": x[1] == y[1],
                "沖": bx + by in CLASH, "合": bx + by in COMBINE, "害": bx + by in HARM,
                "刑": bx + by in PUNISH or (bx == by and bx in SELF_PUNISH)}[rel]
    if rel == "比和":
        return x[0] != y[0] and x[1] == y[1]
    rel = "克" if rel == "剋" else rel
    return {"from": x[0], "to": y[0], "relation": rel} in chart["relations"]


def _branch(chart, name: str, env: dict) -> str:
    if name in ("日", "月", "年"):
        return chart[{"日": "day", "月": "month", "年": "year"}[name]]["branch"]
    if name[:1] != "伏" and _is_hidden_subject(chart, name, env):
        return _hidden_use_god(chart, env[name])["branch"]
    line = chart["lines"][env[name[1:] if name[:1] in ("變", "伏") else name] - 1]
    return {"變": (line["change"] or {}).get("branch"), "伏": (line["hidden"] or {}).get("branch")}.get(name[:1], line["branch"])


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
    if key == "占":
        if value in ("男", "女"):  # the asker's sex
            return chart.get("sex") == value
        return chart["about"] is not None and value in ("*", chart["about"])
    if key == "本卦":
        return primary["name"] == value
    if key == "之卦":
        return changed is not None and changed["name"] == value
    if key == "宮":
        return primary["palace"] == value
    if key not in ("內", "外") or value not in TRIGRAMS | {"陽卦", "陰卦"}:
        raise UnknownToken(f"rule_oracle: unknown cast fact {key}:{value}")
    lower, upper = _trigrams(chart)
    trigram = lower if key == "內" else upper
    if value in ("陽卦", "陰卦"):  # family gender: father and sons yang, mother and daughters yin
        return (trigram in ("乾", "震", "坎", "艮")) == (value == "陽卦")
    return trigram == value


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


def evaluate(text: str, chart: dict, strength_table: str = "EarthMonths") -> tuple[bool, set[int]]:
    """Whether the condition holds on the chart, and the positions of the lines bound in any match.

    `strength_table` is the table the rule's strength tokens read: EarthMonths (the chart's `strength`)
    or HuoZhuLinSeasons (火珠林's four seasons)."""
    if strength_table not in ("EarthMonths", "HuoZhuLinSeasons"):
        raise UnknownToken(f"rule_oracle: unknown strength table {strength_table!r}")
    chart = chart | {"_table": strength_table}
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
    hidden_readers = {n for n in names if _reads_hidden(patterns[n])}
    for combo in itertools.product(*candidates):
        env = dict(zip(names, combo)) | {"_reads_hidden": hidden_readers}
        if all(_holds(chart, c, env) for c in others):
            fired = True
            matched.update(combo)
    return fired, matched
