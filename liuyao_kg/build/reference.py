"""Generate ``ontology/reference.ttl`` (the reference individuals) from ``ontology/tables.py``.

    python -m liuyao_kg.build reference [OUTPUT]

Deterministic: subjects are written in table order, predicates and objects in insertion order, so
regenerating from unchanged tables is byte-identical (a test checks this). Only reference facts
are written; the 八宮 palace / generation of each hexagram is computed here by the 京房 algorithm
(flip line 1, lines 1–2, … 1–5; 遊魂 = fifth generation with line 4 flipped back; 歸魂 = 遊魂 with
the lower trigram restored), and its 互, 錯 and 綜 hexagrams from its line pattern (`related_hexagrams`).
"""
from __future__ import annotations

from pathlib import Path

from liuyao_kg.build.paths import ONTOLOGY
from liuyao_kg.ontology import tables as T

DEFAULT_OUTPUT = ONTOLOGY / "reference.ttl"

PREFIXES = [
    ("lyo", "https://w3id.org/liuyao-kg/ontology#"),
    ("lyr", "https://w3id.org/liuyao-kg/ref/"),
    ("owl", "http://www.w3.org/2002/07/owl#"),
    ("rdfs", "http://www.w3.org/2000/01/rdf-schema#"),
    ("skos", "http://www.w3.org/2004/02/skos/core#"),
    ("dcterms", "http://purl.org/dc/terms/"),
    ("lyp", "https://w3id.org/liuyao-kg/passage/"),
]

# Labels the tables do not hold (kept here because only the reference graph needs them).
STEM_KO = "갑을병정무기경신임계"
BRANCH_KO = "자축인묘진사오미신유술해"
BRANCH_ANIMAL = ["rat", "ox", "tiger", "rabbit", "dragon", "snake",
                 "horse", "goat", "monkey", "rooster", "dog", "pig"]
NAYIN_EN = [
    "Gold in the Sea", "Fire in the Furnace", "Wood of the Great Forest", "Earth by the Roadside",
    "Metal of the Sword Edge", "Fire on the Mountain Top", "Water of the Mountain Stream",
    "Earth of the City Wall", "White Wax Metal", "Willow Wood", "Water of the Spring",
    "Earth on the Roof", "Thunderbolt Fire", "Pine and Cypress Wood", "Long-Flowing Water",
    "Metal in the Sand", "Fire at the Foot of the Mountain", "Wood of the Plain", "Earth on the Wall",
    "Gold Leaf Metal", "Lamp Fire", "Water of the Heavenly River", "Earth of the Great Post Road",
    "Hairpin and Bracelet Metal", "Mulberry Wood", "Water of the Great Stream", "Earth in the Sand",
    "Fire in the Sky", "Pomegranate Wood", "Water of the Great Sea",
]
NAYIN_KO = [
    "해중금", "노중화", "대림목", "노방토", "검봉금", "산두화", "간하수", "성두토", "백랍금", "양류목",
    "천중수", "옥상토", "벽력화", "송백목", "장류수", "사중금", "산하화", "평지목", "벽상토", "금박금",
    "복등화", "천하수", "대역토", "차천금", "상자목", "대계수", "사중토", "천상화", "석류목", "대해수",
]
ROLES = [  # (id, zh, en, ko)
    ("RoleShi", "世", "shi (self line)", "세"),
    ("RoleYing", "應", "ying (other line)", "응"),
    ("RoleGuaShen", "卦身", "gua shen (hexagram body)", "괘신"),
    ("RoleShiShen", "世身", "shi shen (body line)", "세신"),
]
WORKS = [  # (id, zh, en, ko, definition)
    ("WorkYiMao", "易冒", "Yi Mao", "역모",
     "易冒, a Qing-dynasty manual of six-line divination (seed 000)."),
    ("WorkTianXuanFu", "天玄賦", "Tianxuan Fu", "천현부",
     "天玄賦 with its commentary (seeds 001 and 004)."),
    ("WorkHuoZhuLin", "火珠林", "Huozhulin", "화주림",
     "火珠林, attributed to 麻衣道者 (seed 002)."),
    ("WorkHuangJinCe", "黃金策", "Huangjin Ce", "황금책",
     "黃金策, attributed to 劉基, in the 卜筮正宗 recension (not a seed; its Wikisource edition is in shared/corpora)."),
    ("WorkBuShiZhengZong", "卜筮正宗", "Bushi Zhengzong", "복서정종",
     "卜筮正宗, 清·王洪緒輯 (1709): its 十八論, 黃金策 with his notes and the eighteen questions (not a seed; the "
     "ctext.org transcription is in shared/corpora)."),
]
SCHOOLS = [  # (id, zh, en, ko, work id or None, definition)
    ("SchoolTianXuan", "天玄賦說", "Tianxuan Fu reading", "천현부설", "WorkTianXuanFu",
     "Reading of 天玄賦: 進神 甲子 甲午 己卯 己酉 and 退神 壬戌 壬辰 丁丑 丁未 by stem-branch."),
    ("SchoolLaterAdvance", "後世化進說", "later advance convention", "후대 화진설", None,
     "Later convention: a line advances (化進) when its branch changes into the next branch of its element "
     "(亥→子 寅→卯 巳→午 申→酉 丑→辰 辰→未 未→戌 戌→丑) and retreats (化退) on the reverse."),
    ("SchoolStemStages", "十干長生說", "stem life stages", "십간장생설", "WorkYiMao",
     "Life stages taken by the ten stems, yin stems counting backwards (甲亥 乙午 丙寅 丁酉 戊寅 己酉 庚巳 "
     "辛子 壬申 癸卯); recorded by 易冒 as a variant."),
    ("SchoolFiveElementStages", "五行長生說", "five-element life stages", "오행장생설", "WorkYiMao",
     "Life stages taken by the five elements, all counting forwards (金生巳 木生亥 火生寅 水土生申), as 易冒 holds."),
    ("SchoolHuoZhuLinHidden", "火珠林飛伏說", "Huozhulin hidden lines", "화주림 비복설", "WorkHuoZhuLin",
     "火珠林 飛伏: the palace's pure hexagram lies under every line."),
    ("SchoolMissingRelativeHidden", "後世伏神說", "missing-relative hidden lines", "후대 복신설", None,
     "Later convention: only relatives absent from the six lines are sought as 伏神 in the palace's pure hexagram."),
    ("SchoolEarthMonths", "四季土旺說", "earth prospers in the four season-end months", "사계 토왕설", None,
     "Standard convention (not in the seeds): in 辰戌丑未 months earth is 旺, metal 相, fire 休, wood 囚, water 死."),
    ("SchoolZengShan", "增刪卜易說", "Zengshan Buyi reading", "증산복역설", None,
     "Standard convention (not in the seeds), after 增刪卜易 (野鶴老人, Qing): a static line clashed by the day is "
     "broken (日破) when weak (休囚) and moves (暗動) when strong (旺相); a moving line clashed by the day is not "
     "scattered (it rejects 動沖則散)."),
    ("SchoolHuoZhuLinSeasons", "火珠林四時旺衰", "Huozhulin strength by the four seasons", "화주림 사시 왕쇠", "WorkHuoZhuLin",
     "火珠林: strength by season only (春 寅卯辰, 夏 巳午未, 秋 申酉戌, 冬 亥子丑); earth has no season of its own, "
     "so in a 辰 month wood is 旺 and earth 死."),
]
POSITION_ZH = ["初", "二", "三", "四", "五", "上"]
POSITION_KO = ["초", "이", "삼", "사", "오", "상"]


def _lit(text: str, lang: str | None = None) -> str:
    s = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{s}"@{lang}' if lang else f'"{s}"'


def _bool(value: bool) -> str:
    return "true" if value else "false"


class _Doc:
    """Subjects in insertion order, each with predicates (and their objects) in insertion order."""

    def __init__(self) -> None:
        self.subjects: dict[str, dict[str, list[str]]] = {}

    def add(self, s: str, p: str, o: str) -> None:
        objs = self.subjects.setdefault(s, {}).setdefault(p, [])
        if o not in objs:
            objs.append(o)

    def node(self, s: str, cls: str | list[str], zh: str, en: str, ko: str) -> str:
        assert s not in self.subjects, f"{s} minted twice"
        for c in [cls] if isinstance(cls, str) else cls:
            self.add(s, "a", c)
        self.add(s, "rdfs:label", _lit(zh, "zh-Hant"))
        self.add(s, "rdfs:label", _lit(en, "en"))
        self.add(s, "rdfs:label", _lit(ko, "ko"))
        return s

    def serialize(self) -> str:
        out = [f"@prefix {p}: <{iri}> .\n" for p, iri in PREFIXES]
        for s, preds in self.subjects.items():
            lines = []
            for p, objs in preds.items():
                lines.append(f"{p} {' , '.join(objs)}")
            out.append("\n" + s + " " + " ;\n    ".join(lines) + " .\n")
        return "".join(out)


# ----------------------------------------------------------------------------------------------
# Identifiers
# ----------------------------------------------------------------------------------------------

def element_iri(zh: str) -> str:
    return "lyr:" + T.ELEMENT_IDS[T.ELEMENTS.index(zh)]


def stem_iri(zh: str) -> str:
    return "lyr:Stem" + T.STEM_IDS[T.STEMS.index(zh)]


def branch_iri(zh: str) -> str:
    return "lyr:Branch" + T.BRANCH_IDS[T.BRANCHES.index(zh)]


def gz_iri(gz: str) -> str:
    return "lyr:GZ_" + T.STEM_IDS[T.STEMS.index(gz[0])] + T.BRANCH_IDS[T.BRANCHES.index(gz[1])]


def trigram_iri(zh: str) -> str:
    return "lyr:Trigram" + T.TRIGRAMS[zh][0]


def hexagram_iri(number: int) -> str:
    return f"lyr:Hexagram{number:02d}"


def nayin_iri(k: int) -> str:
    return f"lyr:Nayin{k + 1:02d}"


# ----------------------------------------------------------------------------------------------
# Pure computations over the tables
# ----------------------------------------------------------------------------------------------

def palace_table() -> dict[tuple[int, ...], tuple[str, int]]:
    """Line pattern (bottom-up) → (palace trigram, index into tables.GENERATIONS), by 京房 八宮."""
    def flip(pattern: tuple[int, ...], positions) -> tuple[int, ...]:
        return tuple(1 - v if i in positions else v for i, v in enumerate(pattern))

    table: dict[tuple[int, ...], tuple[str, int]] = {}
    for palace in T.PALACE_ORDER:
        pure = T.TRIGRAMS[palace][1] * 2
        patterns = [pure] + [flip(pure, range(k)) for k in range(1, 6)]
        wandering = flip(patterns[5], {3})
        returning = pure[:3] + wandering[3:]
        patterns += [wandering, returning]
        for generation, pattern in enumerate(patterns):
            assert pattern not in table, (palace, generation)
            table[pattern] = (palace, generation)
    assert len(table) == 64
    return table


def related_hexagrams() -> dict[int, tuple[int, int, int]]:
    """King Wen number → the King Wen numbers of its 互 (lines 2-3-4 below, 3-4-5 above), 錯 (every line changed)
    and 綜 (turned upside down; the eight that read the same are their own), from the line patterns."""
    number = {T.hexagram_lines(upper, lower): n for n, _short, upper, lower, *_ in T.HEXAGRAMS}
    assert len(number) == 64
    return {n: (number[p[1:4] + p[2:5]], number[tuple(1 - v for v in p)], number[p[::-1]])
            for p, n in number.items()}


def position_stem_branch(upper: str, lower: str, position: int) -> str:
    """納甲: positions 1–3 from the lower trigram's inner list, 4–6 from the upper's outer list."""
    if position <= 3:
        return T.TRIGRAMS[lower][5].split()[position - 1]
    return T.TRIGRAMS[upper][6].split()[position - 4]


def _generates(a: str) -> str:
    return T.ELEMENTS[(T.ELEMENTS.index(a) + 1) % 5]


def _overcomes(a: str) -> str:
    return T.ELEMENTS[(T.ELEMENTS.index(a) + 2) % 5]


def seasonal_strength(month_branch: str, element: str, by_season: bool = False) -> int:
    """Index into tables.STRENGTHS of an element in the month of a branch.

    Default (standard convention): 辰戌丑未 months are earth's. by_season: 火珠林's four seasons."""
    month = (T.SEASON_ELEMENT[month_branch] if by_season
             else T.BRANCH_ELEMENT[T.BRANCHES.index(month_branch)])
    if element == month:
        return 0  # 旺
    if _generates(month) == element:
        return 1  # 相
    if _generates(element) == month:
        return 2  # 休
    if _overcomes(element) == month:
        return 3  # 囚
    assert _overcomes(month) == element
    return 4  # 死


def element_stage(element: str, branch: str) -> int:
    birth = T.BRANCHES.index(T.ELEMENT_BIRTH[element])
    return (T.BRANCHES.index(branch) - birth) % 12


def stem_stage(stem: str, branch: str) -> int:
    birth = T.BRANCHES.index(T.STEM_BIRTH[stem])
    b = T.BRANCHES.index(branch)
    yang = T.STEMS.index(stem) % 2 == 0
    return (b - birth) % 12 if yang else (birth - b) % 12


def _compact(ids: list[str]) -> str:
    return "".join(ids)


# ----------------------------------------------------------------------------------------------
# The document
# ----------------------------------------------------------------------------------------------

def build() -> _Doc:
    d = _Doc()
    onto = "<https://w3id.org/liuyao-kg/ref>"
    d.node(onto, "owl:Ontology", "六爻納甲參照資料", "Liuyao reference individuals", "육효 납갑 참조 데이터")
    d.add(onto, "owl:versionIRI", "<https://w3id.org/liuyao-kg/ref/0.1.0>")
    d.add(onto, "dcterms:description", _lit(
        "Stems, branches, the sixty jiazi, nayin, trigrams, the 64 hexagrams with palaces, 納甲 and their 互, 錯 and 綜, "
        "relatives, spirits, life-stage and seasonal-strength tables; generated by "
        "liuyao_kg.build.reference from ontology/tables.py — do not edit by hand.", "en"))

    # Elements
    for i, e in enumerate(T.ELEMENTS):
        s = d.node(element_iri(e), "lyo:Element", e, T.ELEMENT_EN[i], T.ELEMENT_KO[i])
        d.add(s, "lyo:elementGenerates", element_iri(_generates(e)))
        d.add(s, "lyo:elementOvercomes", element_iri(_overcomes(e)))
        d.add(s, "lyo:tombBranch", branch_iri(T.ELEMENT_TOMB[e]))

    # Stems
    for i, st in enumerate(T.STEMS):
        s = d.node(stem_iri(st), "lyo:Stem", st, f"{T.STEM_IDS[i]} (stem {i + 1})", STEM_KO[i])
        d.add(s, "lyo:element", element_iri(T.STEM_ELEMENT[i]))
        d.add(s, "lyo:firstSpirit", "lyr:" + T.SPIRITS[T.SPIRIT_START[i]][1])
        d.add(s, "lyo:stemIndex", str(i))

    # Branches and their relations
    for i, br in enumerate(T.BRANCHES):
        s = d.node(branch_iri(br), "lyo:Branch", br, f"{T.BRANCH_IDS[i]} ({BRANCH_ANIMAL[i]})", BRANCH_KO[i])
        d.add(s, "lyo:element", element_iri(T.BRANCH_ELEMENT[i]))
        d.add(s, "lyo:branchIndex", str(i))
    # Relations are added branch by branch in branch order, so each subject's objects are sorted.
    for br in T.BRANCHES:
        s = branch_iri(br)
        for pred, table, symmetric in (
            ("lyo:branchClashes", T.CLASH_PAIRS, True),
            ("lyo:branchCombines", T.COMBINE_PAIRS, True),
            ("lyo:branchHarms", T.HARM_PAIRS, True),
            ("lyo:branchPunishes", T.PUNISHMENTS, False),
        ):
            others = [b for a, b in table if a == br] + ([a for a, b in table if b == br] if symmetric else [])
            for o in sorted(set(others), key=T.BRANCHES.index):
                d.add(s, pred, branch_iri(o))
        for a, b in T.HUA_JIN_LATER:
            if a == br:
                d.add(s, "lyo:advancesTo", branch_iri(b))
        for branches, _ in T.TRIPLE_COMBINES:
            if br in branches:
                d.add(s, "lyo:tripleCombineFrame", _frame_iri(branches))

    # Triple-combination frames
    for branches, element in T.TRIPLE_COMBINES:
        s = d.node(_frame_iri(branches), "lyo:TripleCombineFrame", f"{branches}合{element}局",
                   f"{'-'.join(T.BRANCH_IDS[T.BRANCHES.index(b)] for b in branches)} "
                   f"{T.ELEMENT_EN[T.ELEMENTS.index(element)]} frame",
                   f"{''.join(BRANCH_KO[T.BRANCHES.index(b)] for b in branches)} "
                   f"{T.ELEMENT_KO[T.ELEMENTS.index(element)]}국")
        for b in branches:
            d.add(s, "lyo:hasBranch", branch_iri(b))
        d.add(s, "lyo:element", element_iri(element))

    # Nayin
    for k, name in enumerate(T.NAYIN):
        s = d.node(nayin_iri(k), "lyo:Nayin", name, NAYIN_EN[k], NAYIN_KO[k])
        d.add(s, "lyo:element", element_iri(name[-1]))

    # The sixty jiazi
    for n, gz in enumerate(T.jiazi()):
        classes = ["lyo:StemBranch"]
        if gz in T.JIN_SHEN_TIANXUAN:
            classes.append("lyo:JinShenPillar")
        if gz in T.TUI_SHEN_TIANXUAN:
            classes.append("lyo:TuiShenPillar")
        si, bi = T.STEMS.index(gz[0]), T.BRANCHES.index(gz[1])
        s = d.node(gz_iri(gz), classes, gz, f"{T.STEM_IDS[si]}-{T.BRANCH_IDS[bi]}", STEM_KO[si] + BRANCH_KO[bi])
        d.add(s, "lyo:stem", stem_iri(gz[0]))
        d.add(s, "lyo:branch", branch_iri(gz[1]))
        d.add(s, "lyo:nayin", nayin_iri(n // 2))
        d.add(s, "lyo:cycleIndex", str(n))

    # Trigrams
    for zh, (tid, lines, nature, _simp, element, _inner, _outer) in T.TRIGRAMS.items():
        s = d.node(trigram_iri(zh), "lyo:Trigram", zh, f"{tid} ({T.TRIGRAM_EN[zh]})", T.TRIGRAM_KO[zh])
        d.add(s, "skos:altLabel", _lit(nature, "zh-Hant"))
        d.add(s, "lyo:linePattern", _lit("".join(map(str, lines))))
        d.add(s, "lyo:element", element_iri(element))
    for a, b, _passage in T.OPPOSED_TRIGRAMS:  # symmetric: both directions, so no reasoner is needed to read it
        d.add(trigram_iri(a), "lyo:opposedTrigram", trigram_iri(b))
        d.add(trigram_iri(b), "lyo:opposedTrigram", trigram_iri(a))

    # Generations
    for zh, gid, en, ko, _shi in T.GENERATIONS:
        d.node("lyr:" + gid, "lyo:Generation", zh, en, ko)

    # Hexagrams and their positions
    palaces = palace_table()
    related = related_hexagrams()
    for number, short, upper, lower, pinyin, english, ko in T.HEXAGRAMS:
        pattern = T.hexagram_lines(upper, lower)
        palace, generation = palaces[pattern]
        shi = T.GENERATIONS[generation][4]
        ying = shi + 3 if shi <= 3 else shi - 3
        classes = ["lyo:Hexagram"]
        if short in T.LIUCHONG_HEXAGRAMS:
            classes.append("lyo:SixClashHexagram")
        if short in T.LIUHE_HEXAGRAMS:
            classes.append("lyo:SixCombineHexagram")
        s = d.node(hexagram_iri(number), classes, short, f"{pinyin} ({english})", ko)
        d.add(s, "skos:altLabel", _lit(T.full_name(short, upper, lower), "zh-Hant"))
        d.add(s, "lyo:kingWenNumber", str(number))
        d.add(s, "lyo:upperTrigram", trigram_iri(upper))
        d.add(s, "lyo:lowerTrigram", trigram_iri(lower))
        d.add(s, "lyo:linePattern", _lit("".join(map(str, pattern))))
        d.add(s, "lyo:palace", trigram_iri(palace))
        d.add(s, "lyo:generation", "lyr:" + T.GENERATIONS[generation][1])
        d.add(s, "lyo:shiPosition", str(shi))
        d.add(s, "lyo:yingPosition", str(ying))
        for prop, other in zip(("lyo:nuclearHexagram", "lyo:oppositeHexagram", "lyo:inverseHexagram"),
                               related[number]):
            d.add(s, prop, hexagram_iri(other))
        for p in range(1, 7):
            d.add(s, "lyo:hasPosition", f"{hexagram_iri(number)}_P{p}")
        for p in range(1, 7):
            yang = pattern[p - 1] == 1
            gz = position_stem_branch(upper, lower, p)
            num_zh, num_ko = ("九", "구") if yang else ("六", "육")
            if p == 1:
                zh_pos, ko_pos = "初" + num_zh, "초" + num_ko
            elif p == 6:
                zh_pos, ko_pos = "上" + num_zh, "상" + num_ko
            else:
                zh_pos, ko_pos = num_zh + POSITION_ZH[p - 1], num_ko + POSITION_KO[p - 1]
            ps = d.node(f"{hexagram_iri(number)}_P{p}", "lyo:HexagramPosition", f"{short} {zh_pos}",
                        f"{pinyin} line {p} ({'yang' if yang else 'yin'})", f"{ko} {ko_pos}")
            d.add(ps, "lyo:index", str(p))
            d.add(ps, "lyo:yang", _bool(yang))
            d.add(ps, "lyo:stemBranch", gz_iri(gz))

    # Relatives, spirits
    for zh, rid, ko in T.RELATIVES.values():
        d.node("lyr:" + rid, "lyo:Relative", zh, rid.lower() if rid != "Officer" else "officer (ghost)", ko)
    for order, (zh, sid, en, ko) in enumerate(T.SPIRITS):
        s = d.node("lyr:" + sid, "lyo:Spirit", zh, en, ko)
        d.add(s, "lyo:spiritOrder", str(order))

    # Life stages and the stage tables
    for zh, sid, en, ko in T.STAGES:
        d.node("lyr:Stage_" + sid, "lyo:LifeStage", zh, en, ko)
    for i, e in enumerate(T.ELEMENTS):
        for j, br in enumerate(T.BRANCHES):
            zh_st, sid, en_st, ko_st = T.STAGES[element_stage(e, br)]
            s = d.node(f"lyr:StageEntry_{T.ELEMENT_IDS[i]}_{T.BRANCH_IDS[j]}", "lyo:StageEntry",
                       f"{e}臨{br}：{zh_st}", f"{T.ELEMENT_EN[i]} at {T.BRANCH_IDS[j]}: {en_st}",
                       f"{T.ELEMENT_KO[i]} {BRANCH_KO[j]}: {ko_st}")
            d.add(s, "lyo:forElement", element_iri(e))
            d.add(s, "lyo:atBranch", branch_iri(br))
            d.add(s, "lyo:stage", "lyr:Stage_" + sid)
    for i, st in enumerate(T.STEMS):
        for j, br in enumerate(T.BRANCHES):
            zh_st, sid, en_st, ko_st = T.STAGES[stem_stage(st, br)]
            s = d.node(f"lyr:StageEntry_{T.STEM_IDS[i]}_{T.BRANCH_IDS[j]}", "lyo:StageEntry",
                       f"{st}臨{br}：{zh_st}", f"{T.STEM_IDS[i]} at {T.BRANCH_IDS[j]}: {en_st}",
                       f"{STEM_KO[i]} {BRANCH_KO[j]}: {ko_st}")
            d.add(s, "lyo:forStem", stem_iri(st))
            d.add(s, "lyo:atBranch", branch_iri(br))
            d.add(s, "lyo:stage", "lyr:Stage_" + sid)
            d.add(s, "lyo:school", "lyr:SchoolStemStages")

    # Seasonal strengths and their table
    for zh, sid, en, ko in T.STRENGTHS:
        d.node("lyr:Strength_" + sid, "lyo:SeasonalStrength", zh, en, ko)
    # The default table (辰戌丑未 months are earth's) has no school; 火珠林's four-season table is a named variant.
    tables = (("StrengthEntry", "", "", "", None), ("SeasonEntry", "火珠林：", "Huozhulin, by season: ", "화주림 ",
                                                   "lyr:SchoolHuoZhuLinSeasons"))
    for prefix, zh_pre, en_pre, ko_pre, school in tables:
        for j, br in enumerate(T.BRANCHES):
            for i, e in enumerate(T.ELEMENTS):
                zh_s, sid, en_s, ko_s = T.STRENGTHS[seasonal_strength(br, e, by_season=school is not None)]
                s = d.node(f"lyr:{prefix}_{T.BRANCH_IDS[j]}_{T.ELEMENT_IDS[i]}", "lyo:StrengthEntry",
                           f"{zh_pre}{br}月{e}{zh_s}", f"{en_pre}{T.ELEMENT_EN[i]} in the {T.BRANCH_IDS[j]} month: {en_s}",
                           f"{ko_pre}{BRANCH_KO[j]}월 {T.ELEMENT_KO[i]}: {ko_s}")
                d.add(s, "lyo:monthBranch", branch_iri(br))
                d.add(s, "lyo:forElement", element_iri(e))
                d.add(s, "lyo:strength", "lyr:Strength_" + sid)
                if school:
                    d.add(s, "lyo:school", school)

    # Roles
    for rid, zh, en, ko in ROLES:
        d.node("lyr:" + rid, "lyo:Role", zh, en, ko)

    # The questions: a SKOS concept scheme (broader / narrower), each question with the passage that asks it
    # and the use-god choices it takes (its own, else its nearest broader question's: ontology/questions.py)
    from liuyao_kg.ontology import questions as Q

    scheme = "lyr:QuestionScheme"
    d.node(scheme, "skos:ConceptScheme", "占事", "the questions of divination", "점사")
    d.add(scheme, "skos:definition", _lit("Every question the seed texts' chapters and worked cases ask, "
                                          "broader and narrower; a chapter rule for a question applies to "
                                          "it and every narrower one.", "en"))
    q_iri = {zh: "lyr:Topic" + qid for zh, qid, *_ in T.QUESTIONS}
    for zh, qid, en, ko, broader, alts, passage in T.QUESTIONS:
        s = d.node(q_iri[zh], ["lyo:Topic", "skos:Concept"], zh, en, ko)
        d.add(s, "skos:prefLabel", _lit(zh, "zh-Hant"))
        d.add(s, "skos:prefLabel", _lit(en, "en"))
        d.add(s, "skos:prefLabel", _lit(ko, "ko"))
        for alt in alts:
            d.add(s, "skos:altLabel", _lit(alt, "en" if alt.isascii() else "zh-Hant"))
        d.add(s, "skos:inScheme", scheme)
        if broader is None:
            d.add(s, "skos:topConceptOf", scheme)
            d.add(scheme, "skos:hasTopConcept", s)
        else:
            d.add(s, "skos:broader", q_iri[broader])
            d.add(q_iri[broader], "skos:narrower", s)
        for also in T.ALSO_BROADER.get(zh, ()):  # asks two narrower questions at once: reads the rules of both
            d.add(s, "skos:broader", q_iri[also])
            d.add(q_iri[also], "skos:narrower", s)
        d.add(s, "lyo:citesSource", "lyp:" + passage)
        d.add(s, "lyo:timingUnit", _lit(Q.horizon(zh)))
        for c in Q.choices(zh):
            d.add(s, "lyo:hasUseGodChoice", "lyr:UseGodChoice_" + c[0])
    for zh, sid, en, ko in T.SUBJECTS:
        d.node("lyr:Subject" + sid, "lyo:QuestionSubject", zh, en, ko)
    subject_iri = {zh: "lyr:Subject" + sid for zh, sid, *_ in T.SUBJECTS}
    rel_zh = {rid: zh for zh, rid, _ko in T.RELATIVES.values()}
    role_zh = {rid: zh for rid, zh, *_ in ROLES}
    for cid, question, (kind, target), passage, when, helper in T.USE_GOD_CHOICES + T.PERSON_CHOICES:
        shown = {"relative": lambda t: rel_zh[t], "role": lambda t: role_zh[t],
                 "position": lambda t: f"{POSITION_ZH[t - 1]}爻", "element": lambda t: t}[kind](target)
        cond = "".join(f"（{v}）" for k, v in when.items() if k in ("sex", "about"))
        asked = question or "事"  # a choice by the person holds for every question (tables.PERSON_CHOICES)
        s = d.node("lyr:UseGodChoice_" + cid, "lyo:UseGodChoice", f"占{asked}{cond}以{shown}為用神",
                   f"use-god for {QUESTION_EN(question) if question else 'any question'}{_when_en(when)}: {shown}",
                   f"{asked}{cond} 용신: {shown}")
        if question:
            d.add(s, "lyo:forQuestion", q_iri[question])
        if kind == "relative":
            d.add(s, "lyo:useGodRelative", "lyr:" + target)
        elif kind == "role":
            d.add(s, "lyo:useGodRole", "lyr:" + target)
        elif kind == "position":
            d.add(s, "lyo:useGodPosition", str(target))
        else:
            d.add(s, "lyo:useGodElement", element_iri(target))
        if "sex" in when:
            d.add(s, "lyo:forSex", _lit(when["sex"]))
        if "about" in when:
            d.add(s, "lyo:forSubject", subject_iri[when["about"]])
        if "school" in when:
            d.add(s, "lyo:school", "lyr:" + when["school"])
        if when.get("default"):
            d.add(s, "lyo:defaultChoice", "true")
        d.add(s, "lyo:specificity", str(Q.specificity(when)))
        if helper:
            d.add(s, "lyo:helperRelative", "lyr:" + helper)
        d.add(s, "lyo:citesSource", "lyp:" + passage)

    # Kinds of a state (易冒's five tombs, five rescues)
    for vid, zh, en, ko in T.STATE_VARIANTS:
        d.node("lyr:" + vid, "lyo:StateVariant", zh, en, ko)

    # Works and schools
    for wid, zh, en, ko, definition in WORKS:
        s = d.node("lyr:" + wid, "lyo:Work", zh, en, ko)
        d.add(s, "skos:definition", _lit(definition, "en"))
    for sid, zh, en, ko, work, definition in (SCHOOLS + [(*x[:4], None, x[4]) for x in T.SHENSHA_SCHOOLS]
                                              + list(T.USE_GOD_SCHOOLS)):
        s = d.node("lyr:" + sid, "lyo:School", zh, en, ko)
        if work:
            d.add(s, "lyo:work", "lyr:" + work)
        d.add(s, "skos:definition", _lit(definition, "en"))
    for sid, zh, en, ko, work, definition, default in T.READING_SCHOOLS:
        s = d.node("lyr:" + sid, "lyo:ReadingSchool", zh, en, ko)
        d.add(s, "lyo:work", "lyr:" + work)
        d.add(s, "skos:definition", _lit(definition, "en"))
        if default:
            d.add(s, "lyo:defaultReadingSchool", "true")
            d.add(s, "lyo:citesSource", "lyp:ConventionReadingSchoolDefault")
    # 神煞 tables: one kind individual per named 神煞, one entry per (key, branch carrying it)
    for sid, zh, en, ko, basis, table, school, _passage in T.SHENSHA:
        kind = "lyr:ShenSha_" + sid
        if kind not in d.subjects:
            d.node(kind, "lyo:ShenShaKind", zh, en, ko)
        pillar_zh, pillar_en, pillar_ko = SHENSHA_BASIS[basis]
        stem_key = basis == "day_stem"
        for key, targets in table.items():
            key_id = T.STEM_IDS[T.STEMS.index(key)] if stem_key else T.BRANCH_IDS[T.BRANCHES.index(key)]
            key_ko = STEM_KO[T.STEMS.index(key)] if stem_key else BRANCH_KO[T.BRANCHES.index(key)]
            for t in targets:
                tid = T.BRANCH_IDS[T.BRANCHES.index(t)]
                sch = school[len("School"):] + "_" if school else ""
                e = d.node(f"lyr:ShenShaEntry_{sid}_{sch}{key_id}_{tid}", "lyo:ShenShaEntry",
                           f"{zh}：{pillar_zh}{key}見{t}", f"{en}: {pillar_en} {key_id} → {tid}",
                           f"{ko}: {pillar_ko} {key_ko} → {BRANCH_KO[T.BRANCHES.index(t)]}")
                d.add(e, "lyo:shenShaKind", kind)
                d.add(e, "lyo:keyStem" if stem_key else "lyo:keyBranch", stem_iri(key) if stem_key else branch_iri(key))
                d.add(e, "lyo:targetBranch", branch_iri(t))
                if school:
                    d.add(e, "lyo:school", "lyr:" + school)
    return d


SHENSHA_BASIS = {  # basis → (zh, en, ko) of the pillar part that keys the table
    "day_stem": ("日干", "day stem", "일간"), "day_branch": ("日支", "day branch", "일지"),
    "month_branch": ("月建", "month branch", "월건"), "year_branch": ("年支", "year branch", "연지"),
}
# basis → (cast property, pillar property, entry key property)
SHENSHA_PATTERN = {
    "day_stem": ("hasDay", "stem", "keyStem"), "day_branch": ("hasDay", "branch", "keyBranch"),
    "month_branch": ("hasMonth", "branch", "keyBranch"), "year_branch": ("hasYear", "branch", "keyBranch"),
}
SHENSHA_RULES_OUTPUT = ONTOLOGY / "rules" / "shensha.ttl"

_SHENSHA_RULE = """
{rule} a lyo:StateRule ;
  rdfs:label "{zh}"@zh-Hant, "{en}, looked up by the {pillar_en}{school_note}"@en, "{ko}"@ko ;
  lyo:derives lyo:{sid} ;
  lyo:citesSource lyp:{passage} ;
  lyo:sparqlConstruct '''
CONSTRUCT {{ ?st a lyo:{sid} ;{school_tpl} lyo:stateOf ?line ; lyo:inCast ?cast ; prov:wasDerivedFrom ?rule . }}
WHERE {{
  ?cast lyo:hasLine ?line . ?line lyo:branch ?b .
  ?cast lyo:{cast_p} ?p . ?p lyo:{pillar_p} ?k .
  ?e lyo:shenShaKind lyr:ShenSha_{sid} ; lyo:{key_p} ?k ; lyo:targetBranch ?b .
  {school_where}
  BIND(IRI(CONCAT(STR(?line), "/state/{sid}{suffix}")) AS ?st)
}}''' .
"""


def render_shensha_rules() -> str:
    """ontology/rules/shensha.ttl: one state rule per 神煞 table (and per school where tables differ)."""
    out = ["# Generated by `python -m liuyao_kg.build reference` from ontology/tables.py (SHENSHA). Do not edit.\n",
           *(f"@prefix {p}: <{iri}> .\n" for p, iri in (
               ("lyo", "https://w3id.org/liuyao-kg/ontology#"), ("lyr", "https://w3id.org/liuyao-kg/ref/"),
               ("lyrule", "https://w3id.org/liuyao-kg/rule/"), ("lyp", "https://w3id.org/liuyao-kg/passage/"),
               ("rdfs", "http://www.w3.org/2000/01/rdf-schema#"))),
           "\n# 神煞 line states (docs/states.md): a line carries a 神煞 when its branch is one the 神煞's table gives\n"
           "# for the cast's day stem / day branch / month branch / year branch. The default table (no school) is\n"
           "# the seed's where the seed states one; a differing standard table is derived under its school.\n"]
    for sid, zh, en, ko, basis, _table, school, passage in T.SHENSHA:
        cast_p, pillar_p, key_p = SHENSHA_PATTERN[basis]
        short = school[len("School"):] if school else ""
        out.append(_SHENSHA_RULE.format(
            rule="lyrule:ShenSha_" + sid + ("_" + short if school else ""), zh=zh, en=en, ko=ko, sid=sid,
            pillar_en=SHENSHA_BASIS[basis][1], school_note=f" ({short})" if school else "", passage=passage,
            school_tpl=f" lyo:school lyr:{school} ;" if school else "", cast_p=cast_p, pillar_p=pillar_p,
            key_p=key_p, suffix="/" + short if school else "",
            school_where=(f"?e lyo:school lyr:{school} ." if school
                          else "FILTER NOT EXISTS { ?e lyo:school ?anySchool }")))
    return "".join(out)


def QUESTION_EN(zh: str) -> str:  # noqa: N802 - reads like the table it indexes
    return next(q[2] for q in T.QUESTIONS if q[0] == zh)


def _when_en(when: dict) -> str:
    parts = [f"asked by a {'man' if when['sex'] == '男' else 'woman'}" if "sex" in when else "",
             f"about {next(s[2] for s in T.SUBJECTS if s[0] == when['about'])}" if "about" in when else ""]
    return "".join(f", {p}" for p in parts if p)


def _frame_iri(branches: str) -> str:
    return "lyr:Frame_" + _compact([T.BRANCH_IDS[T.BRANCHES.index(b)] for b in branches])


def render() -> str:
    """The reference graph as Turtle text."""
    return "# Generated by `python -m liuyao_kg.build reference` from ontology/tables.py. Do not edit.\n" \
        + build().serialize()


def write(path: Path | str = DEFAULT_OUTPUT) -> Path:
    path = Path(path)
    path.write_bytes(render().encode("utf-8"))
    return path


def outputs() -> dict[Path, bytes]:
    """{file: bytes} this step writes (liuyao_kg.build)."""
    return {DEFAULT_OUTPUT: render().encode("utf-8"), SHENSHA_RULES_OUTPUT: render_shensha_rules().encode("utf-8")}
