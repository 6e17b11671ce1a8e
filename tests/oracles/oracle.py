"""Independent, table-driven test oracle for liuyao-kg charts.

Written only from docs/states.md and /work/shared/DOMAIN.md (plus the standard 八宮 list and the
standard 納音 table).  It deliberately imports nothing from liuyao_kg / ontology / loaders / reasoner
and does not derive the palaces by the flipping algorithm: the 八宮 list is written out by hand.

    oracle_chart(values, month_branch, day_gz) -> dict

returns the subset of the docs/json-output.md shape that the oracle knows, with these
normalisations (the comparison in test_exhaustive.py applies the same ones to the production output):
  * line "roles" is a sorted list; line "states" is a sorted list of [term, school] pairs
    (school is only kept for 化進/化退; every other term has school None);
  * "relations" is a sorted list of [from, to, relation];
  * cast "states" is a sorted list of [term, lines] (lines only for 獨發/獨靜, else None).
"""
from __future__ import annotations

# --------------------------------------------------------------------------------------------
# Cycles
STEMS = "甲乙丙丁戊己庚辛壬癸"
BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
JIAZI = [STEMS[i % 10] + BRANCHES[i % 12] for i in range(60)]

STEM_ELEMENT = dict(zip(STEMS, "木木火火土土金金水水"))
BRANCH_ELEMENT = dict(zip(BRANCHES, "水土木木土火火土金金土水"))

# 五行 生 / 克 (written out, not computed)
GENERATES = {"木": "火", "火": "土", "土": "金", "金": "水", "水": "木"}
OVERCOMES = {"木": "土", "土": "水", "水": "火", "火": "金", "金": "木"}

# --------------------------------------------------------------------------------------------
# Branch relations (天玄賦 身命章 / DOMAIN.md)
_CLASH_PAIRS = ["子午", "丑未", "寅申", "卯酉", "辰戌", "巳亥"]
_COMBINE_PAIRS = ["子丑", "寅亥", "卯戌", "辰酉", "巳申", "午未"]
_HARM_PAIRS = ["子未", "丑午", "寅巳", "卯辰", "申亥", "酉戌"]
CLASH = {a + b for p in _CLASH_PAIRS for a, b in (p, p[::-1])}
COMBINE = {a + b for p in _COMBINE_PAIRS for a, b in (p, p[::-1])}
HARM = {a + b for p in _HARM_PAIRS for a, b in (p, p[::-1])}
PUNISH = {"子卯", "卯子", "寅巳", "巳申", "申寅", "丑戌", "戌未", "未丑"}  # directed: from刑to
SELF_PUNISH = set("辰午酉亥")


def clashes(a: str, b: str) -> bool:
    return a + b in CLASH


def combines(a: str, b: str) -> bool:
    return a + b in COMBINE


# --------------------------------------------------------------------------------------------
# Trigrams: lines bottom-up, 1 = yang
TRIGRAM_BITS = {
    "乾": (1, 1, 1), "兌": (1, 1, 0), "離": (1, 0, 1), "震": (1, 0, 0),
    "巽": (0, 1, 1), "坎": (0, 1, 0), "艮": (0, 0, 1), "坤": (0, 0, 0),
}
BITS_TRIGRAM = {v: k for k, v in TRIGRAM_BITS.items()}

# 納甲 (DOMAIN.md): inner lines 1-3, outer lines 4-6
NAJIA = {
    "乾": (["甲子", "甲寅", "甲辰"], ["壬午", "壬申", "壬戌"]),
    "坤": (["乙未", "乙巳", "乙卯"], ["癸丑", "癸亥", "癸酉"]),
    "震": (["庚子", "庚寅", "庚辰"], ["庚午", "庚申", "庚戌"]),
    "巽": (["辛丑", "辛亥", "辛酉"], ["辛未", "辛巳", "辛卯"]),
    "坎": (["戊寅", "戊辰", "戊午"], ["戊申", "戊戌", "戊子"]),
    "離": (["己卯", "己丑", "己亥"], ["己酉", "己未", "己巳"]),
    "艮": (["丙辰", "丙午", "丙申"], ["丙戌", "丙子", "丙寅"]),
    "兌": (["丁巳", "丁卯", "丁丑"], ["丁亥", "丁酉", "丁未"]),
}

PALACE_ELEMENT = {"乾": "金", "兌": "金", "離": "火", "震": "木", "巽": "木", "坎": "水", "艮": "土", "坤": "土"}

# King Wen names: name -> (upper trigram, lower trigram)
HEXAGRAMS = {
    "乾": ("乾", "乾"), "坤": ("坤", "坤"), "屯": ("坎", "震"), "蒙": ("艮", "坎"),
    "需": ("坎", "乾"), "訟": ("乾", "坎"), "師": ("坤", "坎"), "比": ("坎", "坤"),
    "小畜": ("巽", "乾"), "履": ("乾", "兌"), "泰": ("坤", "乾"), "否": ("乾", "坤"),
    "同人": ("乾", "離"), "大有": ("離", "乾"), "謙": ("坤", "艮"), "豫": ("震", "坤"),
    "隨": ("兌", "震"), "蠱": ("艮", "巽"), "臨": ("坤", "兌"), "觀": ("巽", "坤"),
    "噬嗑": ("離", "震"), "賁": ("艮", "離"), "剝": ("艮", "坤"), "復": ("坤", "震"),
    "無妄": ("乾", "震"), "大畜": ("艮", "乾"), "頤": ("艮", "震"), "大過": ("兌", "巽"),
    "坎": ("坎", "坎"), "離": ("離", "離"), "咸": ("兌", "艮"), "恆": ("震", "巽"),
    "遯": ("乾", "艮"), "大壯": ("震", "乾"), "晉": ("離", "坤"), "明夷": ("坤", "離"),
    "家人": ("巽", "離"), "睽": ("離", "兌"), "蹇": ("坎", "艮"), "解": ("震", "坎"),
    "損": ("艮", "兌"), "益": ("巽", "震"), "夬": ("兌", "乾"), "姤": ("乾", "巽"),
    "萃": ("兌", "坤"), "升": ("坤", "巽"), "困": ("兌", "坎"), "井": ("坎", "巽"),
    "革": ("兌", "離"), "鼎": ("離", "巽"), "震": ("震", "震"), "艮": ("艮", "艮"),
    "漸": ("巽", "艮"), "歸妹": ("震", "兌"), "豐": ("震", "離"), "旅": ("離", "艮"),
    "巽": ("巽", "巽"), "兌": ("兌", "兌"), "渙": ("巽", "坎"), "節": ("坎", "兌"),
    "中孚": ("巽", "兌"), "小過": ("震", "艮"), "既濟": ("坎", "離"), "未濟": ("離", "坎"),
}
KING_WEN = list(HEXAGRAMS)  # insertion order = King Wen order 1..64

# 八宮 (京房), written out: 本宮, 一世, 二世, 三世, 四世, 五世, 遊魂, 歸魂
PALACES = {
    "乾": ["乾", "姤", "遯", "否", "觀", "剝", "晉", "大有"],
    "坎": ["坎", "節", "屯", "既濟", "革", "豐", "明夷", "師"],
    "艮": ["艮", "賁", "大畜", "損", "睽", "履", "中孚", "漸"],
    "震": ["震", "豫", "解", "恆", "升", "井", "大過", "隨"],
    "巽": ["巽", "小畜", "家人", "益", "無妄", "噬嗑", "頤", "蠱"],
    "離": ["離", "旅", "鼎", "未濟", "蒙", "渙", "訟", "同人"],
    "坤": ["坤", "復", "臨", "泰", "大壯", "夬", "需", "比"],
    "兌": ["兌", "困", "萃", "咸", "蹇", "謙", "小過", "歸妹"],
}
SHI_BY_GENERATION = [6, 1, 2, 3, 4, 5, 4, 3]
PALACE_OF = {h: (p, g) for p, hs in PALACES.items() for g, h in enumerate(hs)}

SIX_CLASH_HEX = {"乾", "坤", "坎", "離", "震", "艮", "巽", "兌", "無妄", "大壯"}
SIX_COMBINE_HEX = {"否", "泰", "豫", "復", "節", "困", "旅", "賁"}

# 納音 (standard table; the seeds name only a few of them)
_NAYIN_30 = [
    "海中金", "爐中火", "大林木", "路旁土", "劍鋒金", "山頭火", "澗下水", "城頭土", "白蠟金", "楊柳木",
    "泉中水", "屋上土", "霹靂火", "松柏木", "長流水", "沙中金", "山下火", "平地木", "壁上土", "金箔金",
    "覆燈火", "天河水", "大驛土", "釵釧金", "桑柘木", "大溪水", "沙中土", "天上火", "石榴木", "大海水",
]
NAYIN = {gz: _NAYIN_30[i // 2] for i, gz in enumerate(JIAZI)}
# orthographic variants of the same 納音 name found in standard tables; the comparison accepts them
NAYIN_VARIANTS = {"砂中金": "沙中金", "路傍土": "路旁土", "白鑞金": "白蠟金", "佛燈火": "覆燈火", "砂中土": "沙中土"}

# 六親
RELATIVES = ["父母", "兄弟", "子孫", "妻財", "官鬼"]


def relative(palace_element: str, element: str) -> str:
    if element == palace_element:
        return "兄弟"
    if GENERATES[palace_element] == element:
        return "子孫"
    if OVERCOMES[palace_element] == element:
        return "妻財"
    if OVERCOMES[element] == palace_element:
        return "官鬼"
    if GENERATES[element] == palace_element:
        return "父母"
    raise AssertionError((palace_element, element))


# 六神
SPIRITS = ["青龍", "朱雀", "勾陳", "螣蛇", "白虎", "玄武"]
SPIRIT_START = {"甲": 0, "乙": 0, "丙": 1, "丁": 1, "戊": 2, "己": 3, "庚": 4, "辛": 4, "壬": 5, "癸": 5}

# 十二長生
STAGES = ["長生", "沐浴", "冠帶", "臨官", "帝旺", "衰", "病", "死", "墓", "絕", "胎", "養"]
LIFE_START = {"金": "巳", "木": "亥", "火": "寅", "水": "申", "土": "申"}
TOMB = {"金": "丑", "木": "未", "火": "戌", "水": "辰", "土": "辰"}
SEVERANCE = {"金": "寅", "木": "申", "火": "亥", "水": "巳", "土": "巳"}  # 絕


def stage(element: str, branch: str) -> str:
    return STAGES[(BRANCHES.index(branch) - BRANCHES.index(LIFE_START[element])) % 12]


def strength(month_element: str, element: str) -> str:
    if element == month_element:
        return "旺"
    if GENERATES[month_element] == element:
        return "相"
    if GENERATES[element] == month_element:
        return "休"
    if OVERCOMES[element] == month_element:
        return "囚"
    if OVERCOMES[month_element] == element:
        return "死"
    raise AssertionError((month_element, element))


# 旬空 by 旬 head
VOID_BY_XUN = {"甲子": "戌亥", "甲戌": "申酉", "甲申": "午未", "甲午": "辰巳", "甲辰": "寅卯", "甲寅": "子丑"}


def void_of(day_gz: str) -> list[str]:
    head = JIAZI[(JIAZI.index(day_gz) // 10) * 10]
    return list(VOID_BY_XUN[head])


# 卦身 / 世身
SHISHEN_POS = {"子": 1, "午": 1, "丑": 2, "未": 2, "寅": 3, "申": 3, "卯": 4, "酉": 4, "辰": 5, "戌": 5, "巳": 6, "亥": 6}

# 進神 / 退神 (天玄賦) and the later 化進 table
JIN_SHEN = {"甲子", "甲午", "己卯", "己酉"}
TUI_SHEN = {"壬戌", "壬辰", "丁丑", "丁未"}
LATER_ADVANCE = {"亥子", "寅卯", "巳午", "申酉", "丑辰", "辰未", "未戌", "戌丑"}
LATER_RETREAT = {p[::-1] for p in LATER_ADVANCE}

SCHOOLED_TERMS = {"化進", "化退", "暗動", "日破", "動沖不散"}
LINE_TERMS = {
    "月破", "旬空", "日沖", "暗動", "沖散", "月合", "日合", "日墓", "動墓", "化墓", "化絕", "化空",
    "化破", "化沖", "化合", "回頭生", "回頭克", "化進", "化退", "進神", "退神", "日破", "動沖不散",
}
CAST_TERMS = {"六沖", "六合", "變六沖", "變六合", "六沖變六合", "六合變六沖", "獨發", "獨靜", "反吟", "伏吟", "三合成局"}
CAST_TERMS_WITH_LINES = {"獨發", "獨靜", "反吟", "伏吟", "三合成局"}
# 卜筮正宗 反吟卦定例第十一: trigrams facing each other (後天), whose change into each other is 反吟; 伏吟: 乾 and 震
# (the same 納甲 branches) changing into each other (docs/states.md)
FAN_YIN_PAIRS = {frozenset("乾巽"), frozenset("坎離"), frozenset("艮坤"), frozenset("震兌")}
FU_YIN_PAIR = frozenset("乾震")
FRAMES = ["申子辰", "巳酉丑", "寅午戌", "亥卯未"]


# --------------------------------------------------------------------------------------------
def bits_to_name(bits) -> str:
    lower = BITS_TRIGRAM[tuple(bits[:3])]
    upper = BITS_TRIGRAM[tuple(bits[3:])]
    for name, (u, l) in HEXAGRAMS.items():
        if (u, l) == (upper, lower):
            return name
    raise AssertionError(bits)


def name_to_bits(name: str) -> tuple[int, ...]:
    upper, lower = HEXAGRAMS[name]
    return TRIGRAM_BITS[lower] + TRIGRAM_BITS[upper]


def hexagram_lines(name: str) -> list[str]:
    """stem-branch of positions 1..6"""
    upper, lower = HEXAGRAMS[name]
    return NAJIA[lower][0] + NAJIA[upper][1]


def hexagram_info(name: str) -> dict:
    palace, gen = PALACE_OF[name]
    shi = SHI_BY_GENERATION[gen]
    ying = shi + 3 if shi <= 3 else shi - 3
    kind = []
    if name in SIX_CLASH_HEX:
        kind.append("六沖")
    if name in SIX_COMBINE_HEX:
        kind.append("六合")
    if gen == 6:
        kind.append("遊魂")
    if gen == 7:
        kind.append("歸魂")
    return {"name": name, "palace": palace, "palace_element": PALACE_ELEMENT[palace],
            "shi": shi, "ying": ying, "kind": sorted(kind)}


def _line_ref(gz: str, pal_el: str) -> dict:
    return {"stem": gz[0], "branch": gz[1], "relative": relative(pal_el, BRANCH_ELEMENT[gz[1]])}


def oracle_chart(values, month_branch: str, day_gz: str) -> dict:
    values = tuple(int(v) for v in values)
    assert len(values) == 6 and all(v in (6, 7, 8, 9) for v in values), values
    assert month_branch in BRANCHES and day_gz in JIAZI, (month_branch, day_gz)
    p_bits = tuple(1 if v in (7, 9) else 0 for v in values)
    c_bits = tuple(1 - b if v in (6, 9) else b for b, v in zip(p_bits, values))
    moving = [v in (6, 9) for v in values]
    any_moving = any(moving)

    pname = bits_to_name(p_bits)
    cname = bits_to_name(c_bits)
    primary = hexagram_info(pname)
    changed = hexagram_info(cname) if any_moving else None
    palace = primary["palace"]
    pal_el = primary["palace_element"]

    month_el = BRANCH_ELEMENT[month_branch]
    day_stem, day_branch = day_gz[0], day_gz[1]
    day_el = BRANCH_ELEMENT[day_branch]
    void = void_of(day_gz)

    p_gz = hexagram_lines(pname)
    c_gz = hexagram_lines(cname)
    pure_gz = hexagram_lines(palace)  # the palace's pure hexagram bears the palace's name

    present_rel = {relative(pal_el, BRANCH_ELEMENT[gz[1]]) for gz in p_gz}
    missing_rel = set(RELATIVES) - present_rel

    shi, ying = primary["shi"], primary["ying"]
    shi_branch = p_gz[shi - 1][1]
    gua_shen_branch = BRANCHES[((0 if p_bits[shi - 1] else 6) + shi - 1) % 12]
    shi_shen_pos = SHISHEN_POS[shi_branch]

    moving_branches = {i + 1: p_gz[i][1] for i in range(6) if moving[i]}

    lines = []
    for i in range(6):
        pos = i + 1
        gz = p_gz[i]
        br = gz[1]
        el = BRANCH_ELEMENT[br]
        roles = []
        if pos == shi:
            roles.append("世")
        if pos == ying:
            roles.append("應")
        if br == gua_shen_branch:
            roles.append("卦身")
        if pos == shi_shen_pos:
            roles.append("世身")
        pure = _line_ref(pure_gz[i], pal_el)
        hidden = pure if pure["relative"] in missing_rel else None

        states: set[tuple[str, str | None]] = set()

        def add(term, school=None):
            states.add((term, school))

        if clashes(month_branch, br):
            add("月破")
        if br in void:
            add("旬空")
        if clashes(day_branch, br):
            add("日沖")
            add("沖散" if moving[i] else "暗動")
            # school ZengShan (增刪卜易): a weak static line is broken, a strong one moves; a moving one is not scattered
            if moving[i]:
                add("動沖不散", "ZengShan")
            else:
                add("暗動" if strength(month_el, el) in ("旺", "相") else "日破", "ZengShan")
        if combines(month_branch, br):
            add("月合")
        if combines(day_branch, br):
            add("日合")
        if day_branch == TOMB[el]:
            add("日墓")
        if any(mb == TOMB[el] for mp, mb in moving_branches.items() if mp != pos):
            add("動墓")
        if gz in JIN_SHEN:
            add("進神")
        if gz in TUI_SHEN:
            add("退神")

        change = None
        if moving[i]:
            cgz = c_gz[i]
            cbr = cgz[1]
            cel = BRANCH_ELEMENT[cbr]
            change = {"stem": cgz[0], "branch": cbr, "element": cel, "nayin": NAYIN[cgz],
                      "relative": relative(pal_el, cel)}
            if cbr == TOMB[el]:
                add("化墓")
            if cbr == SEVERANCE[el]:
                add("化絕")
            if cbr in void:
                add("化空")
            if clashes(month_branch, cbr):
                add("化破")
            if clashes(cbr, br):
                add("化沖")
            if combines(cbr, br):
                add("化合")
            if GENERATES[cel] == el:
                add("回頭生")
            if OVERCOMES[cel] == el:
                add("回頭克")
            if br + cbr in LATER_ADVANCE:
                add("化進", "LaterAdvance")
            if br + cbr in LATER_RETREAT:
                add("化退", "LaterAdvance")
            if cgz in JIN_SHEN:
                add("化進", "TianXuan")
            if cgz in TUI_SHEN:
                add("化退", "TianXuan")

        lines.append({
            "position": pos,
            "stem": gz[0],
            "branch": br,
            "element": el,
            "nayin": NAYIN[gz],
            "relative": relative(pal_el, el),
            "spirit": SPIRITS[(SPIRIT_START[day_stem] + i) % 6],
            "moving": moving[i],
            "roles": sorted(roles),
            "stage_day": stage(el, day_branch),
            "stage_month": stage(el, month_branch),
            "strength": strength(month_el, el),
            "hidden": hidden,
            "hidden_palace": pure,
            "change": change,
            "states": sorted([list(s) for s in states], key=lambda s: (s[0], s[1] or "")),
        })

    # relations among endpoints
    endpoints = [(f"line:{i + 1}", p_gz[i][1]) for i in range(6)]
    endpoints += [(f"change:{i + 1}", c_gz[i][1]) for i in range(6) if moving[i]]
    endpoints += [("month", month_branch), ("day", day_branch)]
    relations = set()
    for fa, a in endpoints:
        for fb, b in endpoints:
            if fa == fb:
                continue
            ea, eb = BRANCH_ELEMENT[a], BRANCH_ELEMENT[b]
            if GENERATES[ea] == eb:
                relations.add((fa, fb, "生"))
            if OVERCOMES[ea] == eb:
                relations.add((fa, fb, "克"))
            if a + b in CLASH:
                relations.add((fa, fb, "沖"))
            if a + b in COMBINE:
                relations.add((fa, fb, "合"))
            if a + b in HARM:
                relations.add((fa, fb, "害"))
            if a + b in PUNISH or (a == b and a in SELF_PUNISH):
                relations.add((fa, fb, "刑"))

    # cast states
    cast = set()
    p_clash, p_comb = pname in SIX_CLASH_HEX, pname in SIX_COMBINE_HEX
    if p_clash:
        cast.add(("六沖", None))
    if p_comb:
        cast.add(("六合", None))
    if any_moving:
        c_clash, c_comb = cname in SIX_CLASH_HEX, cname in SIX_COMBINE_HEX
        if c_clash:
            cast.add(("變六沖", None))
        if c_comb:
            cast.add(("變六合", None))
        if p_clash and c_comb:
            cast.add(("六沖變六合", None))
        if p_comb and c_clash:
            cast.add(("六合變六沖", None))
    n_moving = sum(moving)
    if n_moving == 1:
        cast.add(("獨發", (moving.index(True) + 1,)))
    if n_moving == 5:
        cast.add(("獨靜", (moving.index(False) + 1,)))
    fan, fu = [], []
    for lo in (0, 3):  # inner, outer trigram
        before, after = BITS_TRIGRAM[tuple(p_bits[lo:lo + 3])], BITS_TRIGRAM[tuple(c_bits[lo:lo + 3])]
        movers = [i + 1 for i in range(lo, lo + 3) if moving[i]]
        if frozenset((before, after)) in FAN_YIN_PAIRS:
            fan += movers
        if frozenset((before, after)) == FU_YIN_PAIR:
            fu += movers
    if fan:
        cast.add(("反吟", tuple(fan)))
    if fu:
        cast.add(("伏吟", tuple(fu)))
    for frame in FRAMES:
        held = {p_gz[i][1] for i in range(6)} & set(frame)
        moved = {p_gz[i][1] for i in range(6) if moving[i]} & set(frame)
        if len(held) == 3 and len(moved) >= 2:
            cast.add(("三合成局", tuple(i + 1 for i in range(6) if p_gz[i][1] in frame)))

    return {
        "primary": primary,
        "changed": changed,
        "month": {"branch": month_branch, "element": month_el, "relative": relative(pal_el, month_el)},
        "day": {"stem": day_stem, "branch": day_branch, "element": day_el, "relative": relative(pal_el, day_el)},
        "void": void,
        "lines": lines,
        "relations": sorted([list(r) for r in relations]),
        "states": sorted([[t, list(ls) if ls else None] for t, ls in cast], key=lambda s: (s[0], s[1] or [])),
    }


# --------------------------------------------------------------------------------------------
# Normalising a production chart (docs/json-output.md) into the oracle's comparable subset
HEX_FIELDS = ("name", "palace", "palace_element", "shi", "ying", "kind")
LINE_FIELDS = ("position", "stem", "branch", "element", "nayin", "relative", "spirit", "moving", "roles",
               "stage_day", "stage_month", "strength", "hidden", "hidden_palace", "change", "states")
REF_FIELDS = ("stem", "branch", "relative")
CHANGE_FIELDS = ("stem", "branch", "element", "nayin", "relative")


def _pick(d, fields):
    if d is None:
        return None
    return {f: d.get(f, "<missing>") for f in fields}


def normalize_production(chart: dict) -> dict:
    def hexa(h):
        if h is None:
            return None
        out = _pick(h, HEX_FIELDS)
        out["kind"] = sorted(out["kind"]) if isinstance(out["kind"], list) else out["kind"]
        return out

    oracle_endpoints = None  # filtered per chart below
    lines = []
    for ln in chart.get("lines", []):
        out = _pick(ln, LINE_FIELDS)
        out["roles"] = sorted(out["roles"]) if isinstance(out["roles"], list) else out["roles"]
        out["hidden"] = _pick(ln.get("hidden"), REF_FIELDS)
        out["hidden_palace"] = _pick(ln.get("hidden_palace"), REF_FIELDS)
        out["change"] = _pick(ln.get("change"), CHANGE_FIELDS)
        out["nayin"] = NAYIN_VARIANTS.get(out["nayin"], out["nayin"])
        if out["change"] is not None:
            out["change"]["nayin"] = NAYIN_VARIANTS.get(out["change"]["nayin"], out["change"]["nayin"])
        sts = set()
        for s in ln.get("states") or []:
            t = s.get("term")
            if t in LINE_TERMS:
                sts.add((t, s.get("school") if t in SCHOOLED_TERMS else None))
        out["states"] = sorted([list(s) for s in sts], key=lambda s: (s[0], s[1] or ""))
        lines.append(out)

    moving_pos = {ln.get("position") for ln in chart.get("lines", []) if ln.get("moving")}
    oracle_endpoints = {f"line:{i}" for i in range(1, 7)} | {f"change:{i}" for i in moving_pos} | {"month", "day"}
    rels = {(r["from"], r["to"], r["relation"]) for r in chart.get("relations") or []
            if r.get("from") in oracle_endpoints and r.get("to") in oracle_endpoints}

    cast = set()
    for s in chart.get("states") or []:
        t = s.get("term")
        if t in CAST_TERMS:
            cast.add((t, tuple(sorted(s.get("lines") or [])) if t in CAST_TERMS_WITH_LINES else None))

    return {
        "primary": hexa(chart.get("primary")),
        "changed": hexa(chart.get("changed")),
        "month": _pick(chart.get("month"), ("branch", "element", "relative")),
        "day": _pick(chart.get("day"), ("stem", "branch", "element", "relative")),
        "void": list(chart.get("void") or []),
        "lines": lines,
        "relations": sorted([list(r) for r in rels]),
        "states": sorted([[t, list(ls) if ls else None] for t, ls in cast], key=lambda s: (s[0], s[1] or [])),
    }


def first_difference(expected, actual, path="") -> str | None:
    """Path and compact description of the first difference, or None when equal."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for k in expected:
            d = first_difference(expected[k], actual.get(k, "<missing>"), f"{path}.{k}" if path else k)
            if d:
                return d
        return None
    if path in ("relations", "states") or path.endswith(".states") or path.endswith(".roles") \
            or path.endswith(".kind"):
        if isinstance(expected, list) and isinstance(actual, list):
            e = {repr(x) for x in expected}
            a = {repr(x) for x in actual}
            if e != a:
                return f"{path}: missing {sorted(e - a)} extra {sorted(a - e)}"
            return None
    if isinstance(expected, list) and isinstance(actual, list) and path == "lines":
        if len(expected) != len(actual):
            return f"lines: expected 6 lines, got {len(actual)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            d = first_difference(e, a, f"lines[{i + 1}]")
            if d:
                return d
        return None
    if expected != actual:
        return f"{path}: expected {expected!r} got {actual!r}"
    return None


def values_for_pair(primary: str, changed: str) -> tuple[int, ...]:
    """Line values bottom-up turning `primary` into `changed`."""
    out = []
    for p, c in zip(name_to_bits(primary), name_to_bits(changed)):
        out.append((9 if not c else 7) if p else (6 if c else 8))
    return tuple(out)
