"""The condition language of chapter rules (docs/rule-language.md), parsed and compiled to SPARQL.

A condition is a short, checkable sentence of clauses ("y = 應 朱雀 動; s = 世; y 克 s"); the compiler
turns it into the WHERE clause of a CONSTRUCT rule that makes a `lyo:Judgment` for the cast. The
token tables come from ontology/tables.py and the T-box labels, so the language cannot name a term
the graph does not have.

    python -m liuyao_kg.reasoner.conditions --check ontology/chapters/*.yaml
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from functools import cache

from liuyao_kg.ontology import tables as T


class ConditionError(ValueError):
    """A condition that does not parse or names an unknown token; says which and where."""


# --- token tables -------------------------------------------------------------------------------

RELATIVE_IDS = {zh: rid for zh, rid, _ko in T.RELATIVES.values()}
ROLE_IDS = {"世": "RoleShi", "應": "RoleYing", "卦身": "RoleGuaShen", "世身": "RoleShiShen"}
ELEMENT_IDS = dict(zip(T.ELEMENTS, T.ELEMENT_IDS))
SPIRIT_IDS = {zh: sid for zh, sid, _en, _ko in T.SPIRITS}
BRANCH_IDS = dict(zip(T.BRANCHES, T.BRANCH_IDS))
POSITIONS = {"初爻": 1, "二爻": 2, "三爻": 3, "四爻": 4, "五爻": 5, "上爻": 6}
STRENGTH_IDS = {zh: sid for zh, sid, _en, _ko in T.STRENGTHS}
STRENGTH_GROUPS = {"旺相": ["旺", "相"], "休囚": ["休", "囚", "死"]}
STAGE_IDS = {zh: sid for zh, sid, _en, _ko in T.STAGES}
TRIGRAM_IDS = {zh: v[0] for zh, v in T.TRIGRAMS.items()}
HEXAGRAM_NUMBERS = {name: n for n, name, *_ in T.HEXAGRAMS}
RELATIONS = {"生": "generates", "克": "overcomes", "剋": "overcomes", "沖": "clashes", "合": "combines",
             "刑": "punishes", "害": "harms"}
CAST_STATES = {"六沖": "SixClashPrimary", "六合": "SixCombinePrimary", "變六沖": "SixClashChanged",
               "變六合": "SixCombineChanged", "六沖變六合": "ClashToCombine", "六合變六沖": "CombineToClash",
               "合處逢沖": "ClashAtCombine", "獨發": "SingleMoving", "獨靜": "SingleStatic", "兩現": "TwoPresent"}
LINE_STATES = {
    "月破": "MonthBroken", "旬空": "Void", "日沖": "DayClash", "暗動": "DarkMovement", "沖散": "ClashScattered",
    "月合": "MonthCombine", "日合": "DayCombine", "日墓": "DayTomb", "動墓": "MovingTomb", "化墓": "ChangeToTomb",
    "化絕": "ChangeToSeverance", "化空": "ChangeToVoid", "化破": "ChangeToBroken", "化沖": "ChangeToClash",
    "化合": "ChangeToCombine", "回頭生": "ReturnGenerate", "回頭克": "ReturnOvercome", "化進": "ChangeAdvance",
    "化退": "ChangeRetreat", "進神": "JinShen", "退神": "TuiShen",
}
SUBJECTS = frozenset(t[0] for t in T.SUBJECTS)
# 吉神 / 凶神 as 天玄賦 身命章 defines them (「妻財子孫者，雖為吉神」, 「凡遇財福吉神克我，仍吉；鬼殺凶神克我，大凶」):
# 吉神 = 財福 (妻財, 子孫), 凶神 = 鬼殺 (官鬼). Not the unspecified 神煞 (凶殺) the seeds leave undefined.
SPIRIT_CLASSES = {"吉神": ("妻財", "子孫"), "凶神": ("官鬼",)}
# 神煞 (tables.SHENSHA): `神煞:咸池` is the default table (the seed's where a seed states one), `神煞:亡神/TriadShenSha`
# the table of a named school. Aliases name the same 神煞.
SHENSHA_IDS = {zh: sid for sid, zh, *_ in T.SHENSHA}
SHENSHA_ALIASES = {"桃花": "咸池", "天乙貴人": "貴人", "祿神": "祿"}
SHENSHA_SCHOOLS = {(zh, school[len("School"):]): school for _sid, zh, *_rest, school, _p in T.SHENSHA if school}
NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*\Z")
# The strength table (旺相休囚死) a rule's strength tokens read (docs/rule-language.md "Strength tables"):
# `EarthMonths`, the standard table (辰戌丑未 months are earth's, JSON `strength`), or `HuoZhuLinSeasons`,
# 火珠林's own four-season table (財官異路章 「春，寅卯木旺…辰戌丑未土死」, passage SeasonalStrength).
# A rule reads its own work's table; `strength_table:` in the rule overrides it.
STRENGTH_TABLES = ("EarthMonths", "HuoZhuLinSeasons")
WORK_STRENGTH_TABLE = {"HuoZhuLin": "HuoZhuLinSeasons"}  # every other work: EarthMonths


def strength_table(header: dict, rule: dict) -> str:
    """The strength table a chapter rule is judged by: the rule's own `strength_table`, else its work's."""
    return rule.get("strength_table") or WORK_STRENGTH_TABLE.get(header.get("work"), "EarthMonths")


# --- syntax -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LineClause:
    name: str
    tokens: tuple[tuple[bool, str], ...]  # (negated, token)


@dataclass(frozen=True)
class RelClause:
    left: str
    rel: str
    right: str


@dataclass(frozen=True)
class CastClause:
    key: str
    value: str


@dataclass(frozen=True)
class NotClause:
    inner: object


@dataclass
class Condition:
    clauses: list = field(default_factory=list)

    def bound_names(self) -> list[str]:
        return [c.name for c in self.clauses if isinstance(c, LineClause)]


def _check_token(tok: str) -> None:
    """A token is known exactly when the compiler can translate it (one table, no second list)."""
    _Compiler().token("?x", tok)


def _parse_clause(text: str):
    text = text.strip()
    if text.startswith("not "):
        return NotClause(_parse_clause(text[4:]))
    if "=" in text:
        name, _, rest = text.partition("=")
        name = name.strip()
        if not NAME.match(name):
            raise ConditionError(f"line name {name!r} must be a Latin identifier")
        tokens = []
        for tok in rest.split():
            neg = tok.startswith("!")
            tok = tok[1:] if neg else tok
            _check_token(tok)
            tokens.append((neg, tok))
        if not tokens:
            raise ConditionError(f"line pattern {name} has no tokens")
        return LineClause(name, tuple(tokens))
    parts = text.split()
    if len(parts) == 3 and (parts[1] in RELATIONS or parts[1] == "比和"):
        return RelClause(parts[0], parts[1], parts[2])
    if len(parts) == 1 and ":" in text:
        key, _, value = text.partition(":")
        if key == "卦" and (value in CAST_STATES or value in ("遊魂", "歸魂", "無動", "亂動")):
            return CastClause(key, value)
        if key in ("本卦", "之卦") and value in HEXAGRAM_NUMBERS:
            return CastClause(key, value)
        if key in ("宮", "內", "外") and value in TRIGRAM_IDS:
            return CastClause(key, value)
        if key == "占" and (value in SUBJECTS or value == "*"):
            return CastClause(key, value)
        if key in ("內", "外") and value in ("陽卦", "陰卦"):
            return CastClause(key, value)
        if key == "占" and value in ("男", "女"):
            return CastClause(key, value)
        raise ConditionError(f"unknown cast fact {text!r}")
    raise ConditionError(f"cannot read clause {text!r}")


def parse(text: str) -> Condition:
    cond = Condition([_parse_clause(c) for c in re.split(r"[;\n]", text) if c.strip()])
    if not cond.clauses:
        raise ConditionError("empty condition")
    names = cond.bound_names()
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ConditionError(f"line name(s) bound twice: {', '.join(sorted(dup))}")
    for c in cond.clauses:
        rels = [c] if isinstance(c, RelClause) else [c.inner] if isinstance(c, NotClause) and isinstance(c.inner, RelClause) else []
        for r in rels:
            for end in (r.left, r.right):
                base = end[1:] if end[:1] in ("變", "伏") else end
                if end in ("日", "月", "年", "內", "外") or base in names:
                    continue
                raise ConditionError(f"relation endpoint {end!r} is not a bound line name, 日, 月, 年, 內, 外, 變NAME or 伏NAME")
            if (r.left in ("內", "外")) != (r.right in ("內", "外")):
                raise ConditionError("內/外 relate only to each other")
            if r.left in ("內", "外") and r.rel not in ("生", "克", "剋", "比和"):
                raise ConditionError("內/外 support only 生, 克 and 比和")
    return cond


# --- compilation --------------------------------------------------------------------------------

class _Compiler:
    def __init__(self, strength_table: str = "EarthMonths"):
        if strength_table not in STRENGTH_TABLES:
            raise ConditionError(f"unknown strength table {strength_table!r} (known: {', '.join(STRENGTH_TABLES)})")
        self.n = 0
        self.table = strength_table

    def fresh(self, stem: str) -> str:
        self.n += 1
        return f"?{stem}{self.n}"

    def token(self, var: str, tok: str) -> str:
        if tok in RELATIVE_IDS:
            return f"{var} lyo:relative lyr:{RELATIVE_IDS[tok]} ."
        if tok in ROLE_IDS:
            return f"{var} lyo:hasRole lyr:{ROLE_IDS[tok]} ."
        if tok in SPIRIT_CLASSES:  # 吉神 / 凶神 by 身命章's definition (relatives)
            r = self.fresh("r")
            alts = ", ".join(f"lyr:{RELATIVE_IDS[x]}" for x in SPIRIT_CLASSES[tok])
            return f"{var} lyo:relative {r} . FILTER({r} IN ({alts}))"
        if tok == "用神":
            return f"{self.fresh('ug')} a lyo:UseGod ; lyo:stateOf ?cast ; lyo:involves {var} ."
        if tok == "伏用":  # the use-god's relative is absent: the flying line its hidden line sits under
            return f"{self.fresh('ug')} a lyo:UseGod ; lyo:stateOf ?cast ; lyo:involves {var} ; lyo:hiddenUseGod {self.fresh('h')} ."
        if tok in ("原神", "忌神"):  # against the use-god's own element: a hidden use-god's, not its flying line's
            ug, u, eu, el, h0, hx = (self.fresh(x) for x in ("ug", "u", "eu", "el", "h", "h"))
            p = "elementGenerates" if tok == "原神" else "elementOvercomes"
            return (f"{{ {ug} a lyo:UseGod ; lyo:stateOf ?cast ; lyo:involves {u} . {u} lyo:element {eu} . "
                    f"FILTER NOT EXISTS {{ {u} lyo:hasHidden {h0} . {ug} lyo:hiddenUseGod {h0} . }} }} "
                    f"UNION {{ {ug} a lyo:UseGod ; lyo:stateOf ?cast ; lyo:hiddenUseGod {hx} . {hx} lyo:element {eu} . }} "
                    f"{var} lyo:element {el} . {el} lyo:{p} {eu} .")
        if tok in ELEMENT_IDS:
            return f"{var} lyo:element lyr:{ELEMENT_IDS[tok]} ."
        if tok in SPIRIT_IDS:
            return f"{var} lyo:spirit lyr:{SPIRIT_IDS[tok]} ."
        if tok == "動":
            return f"{var} a lyo:MovingLine ."
        if tok == "靜":
            return f"{var} a lyo:StaticLine ."
        if tok in POSITIONS:
            return f"{var} lyo:position {POSITIONS[tok]} ."
        if tok in ("內卦", "外卦"):
            p = self.fresh("p")
            return f"{var} lyo:position {p} . FILTER({p} {'<= 3' if tok == '內卦' else '>= 4'})"
        if tok in BRANCH_IDS:
            return f"{var} lyo:branch lyr:Branch{BRANCH_IDS[tok]} ."
        if tok in STRENGTH_IDS or tok in STRENGTH_GROUPS:
            if self.table == "EarthMonths":  # derived on every primary and changed line (JSON `strength`)
                s = self.fresh("s")
                return f"{var} lyo:strength {s} . {self._strength_in(s, tok)}"
            return self.strength_by_table(var, tok)
        if tok[:2] in ("日:", "月:") and tok[2:] in STAGE_IDS:
            prop = "stageDay" if tok[0] == "日" else "stageMonth"
            return f"{var} lyo:{prop} lyr:Stage_{STAGE_IDS[tok[2:]]} ."
        if tok in LINE_STATES:
            return f"{self.fresh('st')} a lyo:{LINE_STATES[tok]} ; lyo:stateOf {var} ."
        if tok in ("臨日", "臨月", "臨年"):
            p, b = self.fresh("pl"), self.fresh("b")
            prop = {"臨日": "hasDay", "臨月": "hasMonth", "臨年": "hasYear"}[tok]
            return f"?cast lyo:{prop} {p} . {p} lyo:branch {b} . {var} lyo:branch {b} ."
        if tok == "臨命":  # the line's branch is the asker's birth-year branch (本命, --birth)
            b = self.fresh("b")
            return f"?cast lyo:birthBranch {b} . {var} lyo:branch {b} ."
        if tok in ("陽爻", "陰爻"):
            v = self.fresh("v")
            return f"{var} lyo:lineValue {v} . FILTER({v} IN {'(7, 9)' if tok == '陽爻' else '(6, 8)'})"
        if tok == "間爻":
            s_, y, ps, py, p = (self.fresh(x) for x in ("sh", "yi", "ps", "py", "p"))
            return (f"?cast lyo:hasLine {s_} , {y} . {s_} lyo:hasRole lyr:RoleShi ; lyo:position {ps} . "
                    f"{y} lyo:hasRole lyr:RoleYing ; lyo:position {py} . {var} lyo:position {p} . "
                    f"FILTER(({p} > {ps} && {p} < {py}) || ({p} > {py} && {p} < {ps}))")
        if tok[:2] == "伏:" and tok[2:] in RELATIVE_IDS:  # later convention: the missing relative hidden under the line
            h = self.fresh("hid")
            return f"{var} lyo:hasHidden {h} . {h} lyo:relative lyr:{RELATIVE_IDS[tok[2:]]} ."
        if tok[:3] == "伏宮:" and tok[3:] in RELATIVE_IDS:  # 火珠林: the palace's pure-hexagram line under the line
            h = self.fresh("hid")
            return f"{var} lyo:hasPalaceHidden {h} . {h} lyo:relative lyr:{RELATIVE_IDS[tok[3:]]} ."
        if tok[:2] == "之:" and tok[2:] in RELATIVE_IDS:  # the changed hexagram's line at this position
            ch, p, hp, gz, b, el, hx, pal, pe = (self.fresh(x) for x in ("ch", "p", "hp", "gz", "b", "el", "hx", "pal", "pe"))
            test = {"兄弟": f"FILTER({el} = {pe})", "子孫": f"{pe} lyo:elementGenerates {el} .",
                    "妻財": f"{pe} lyo:elementOvercomes {el} .", "官鬼": f"{el} lyo:elementOvercomes {pe} .",
                    "父母": f"{el} lyo:elementGenerates {pe} ."}[tok[2:]]
            return (f"?cast lyo:changedHexagram {ch} ; lyo:primaryHexagram {hx} . {hx} lyo:palace {pal} . "
                    f"{pal} lyo:element {pe} . {var} lyo:position {p} . {ch} lyo:hasPosition {hp} . "
                    f"{hp} lyo:index {p} ; lyo:stemBranch {gz} . {gz} lyo:branch {b} . {b} lyo:element {el} . {test}")
        if tok in ("伏旺相", "伏休囚"):  # the hidden line under this line (later convention), its strength in the month
            h = self.fresh("hid")
            return f"{var} lyo:hasHidden {h} . {self.strength_by_table(h, tok[1:])}"
        if tok == "絕處逢生":  # the line is the use-god a RescueFromSeverance state (易冒's five ways) rescues
            return f"{self.fresh('rs')} a lyo:RescueFromSeverance ; lyo:stateOf ?cast ; lyo:involves {var} ."
        if tok.startswith("神煞:"):
            name, _, school = tok[3:].partition("/")
            name = SHENSHA_ALIASES.get(name, name)
            if name not in SHENSHA_IDS:
                raise ConditionError(f"unknown 神煞 {tok[3:]!r}")
            st = self.fresh("ss")
            if not school:
                return (f"{st} a lyo:{SHENSHA_IDS[name]} ; lyo:stateOf {var} . "
                        f"FILTER NOT EXISTS {{ {st} lyo:school {self.fresh('sch')} }}")
            if (name, school) not in SHENSHA_SCHOOLS:
                raise ConditionError(f"no {name} table under school {school!r}")
            return f"{st} a lyo:{SHENSHA_IDS[name]} ; lyo:school lyr:{SHENSHA_SCHOOLS[name, school]} ; lyo:stateOf {var} ."
        raise ConditionError(f"unknown line token {tok!r}")

    @staticmethod
    def _strength_in(s: str, tok: str) -> str:
        alts = ", ".join(f"lyr:Strength_{STRENGTH_IDS[x]}" for x in STRENGTH_GROUPS.get(tok, [tok]))
        return f"FILTER({s} IN ({alts}))"

    def strength_by_table(self, var: str, tok: str) -> str:
        """Strength of any node with an element (a line, a hidden line) read from the rule's table."""
        e, m, mb, se, s = (self.fresh(x) for x in ("e", "m", "mb", "se", "s"))
        school = (f"FILTER NOT EXISTS {{ {se} lyo:school {self.fresh('sch')} }}" if self.table == "EarthMonths"
                  else f"{se} lyo:school lyr:School{self.table} .")
        return (f"{var} lyo:element {e} . ?cast lyo:hasMonth {m} . {m} lyo:branch {mb} . "
                f"{se} lyo:monthBranch {mb} ; lyo:forElement {e} ; lyo:strength {s} . {school} {self._strength_in(s, tok)}")

    def hidden_token(self, h: str, tok: str) -> str | None:
        """A token read on a hidden use-god line `h` (舍飛從伏: its own element and branch are judged).

        A hidden line has a relative, element, branch, stem and position; what the month and day make of
        its branch (strength, stages, 月破 旬空 日沖 月合 日合 日墓, 臨日 …) is read from those. What belongs
        to a shown line only (moving or static, spirit, roles, changes, 神煞 states, 暗動 …) never holds
        for it: None.
        """
        if (tok in RELATIVE_IDS or tok in SPIRIT_CLASSES or tok in ELEMENT_IDS or tok in BRANCH_IDS or tok in POSITIONS
                or tok in ("內卦", "外卦", "臨日", "臨月", "臨年", "臨命", "間爻", "原神", "忌神")):
            return self.token(h, tok)
        if tok in STRENGTH_IDS or tok in STRENGTH_GROUPS:
            return self.strength_by_table(h, tok)
        if tok[:2] in ("日:", "月:") and tok[2:] in STAGE_IDS:
            p, b, e, en = (self.fresh(x) for x in ("p", "b", "e", "en"))
            return (f"?cast lyo:{'hasDay' if tok[0] == '日' else 'hasMonth'} {p} . {p} lyo:branch {b} . "
                    f"{h} lyo:element {e} . {en} lyo:forElement {e} ; lyo:atBranch {b} ; "
                    f"lyo:stage lyr:Stage_{STAGE_IDS[tok[2:]]} .")
        by_branch = {"月破": ("hasMonth", "branchClashes"), "日沖": ("hasDay", "branchClashes"),
                     "月合": ("hasMonth", "branchCombines"), "日合": ("hasDay", "branchCombines")}
        if tok in by_branch:
            pillar, prop = by_branch[tok]
            p, pb, hb = self.fresh("p"), self.fresh("b"), self.fresh("b")
            return f"?cast lyo:{pillar} {p} . {p} lyo:branch {pb} . {h} lyo:branch {hb} . {pb} lyo:{prop} {hb} ."
        if tok == "旬空":
            d, b = self.fresh("d"), self.fresh("b")
            return f"?cast lyo:hasDay {d} . {d} lyo:voidBranch {b} . {h} lyo:branch {b} ."
        if tok == "日墓":
            d, b, e = self.fresh("d"), self.fresh("b"), self.fresh("e")
            return f"?cast lyo:hasDay {d} . {d} lyo:branch {b} . {h} lyo:element {e} . {e} lyo:tombBranch {b} ."
        return None

    def line(self, clause: LineClause, var: str, subject: str | None = None, tail: list[str] | None = None) -> str:
        """A line pattern. With `subject` (a 用神 pattern without 伏用, see reads_hidden) the use-god is
        either the shown line `var` itself or, when it is hidden, the hidden line under `var`; the
        tokens are read on that line, bound to `subject`. `var` stays the line the judgment matches.

        Negated tokens follow the clause's triple patterns, or go to `tail` (the end of the WHERE) when
        given: a MINUS (or BIND) inside a group ends its basic graph pattern, and pyoxigraph evaluates the
        patterns after it on their own and joins the two (for one rule, every element-bearing node of a
        batch paired with every other, against a cheap anti-join with the MINUS last: benchmarks/bench.py).
        """
        if subject is None:
            parts, negs = [f"?cast lyo:hasLine {var} ."], []
            for neg, tok in clause.tokens:
                pat = self.token(var, tok)
                if neg:
                    negs.append(_absent(pat))
                else:
                    parts.append(pat)
            if tail is not None:
                tail.extend(negs)
                return " ".join(parts)
            return " ".join(parts + negs)
        ug = self.fresh("ug")
        rest = [(neg, tok) for neg, tok in clause.tokens if tok != "用神"]
        h0 = self.fresh("h")
        shown = [f"?cast lyo:hasLine {var} . {ug} a lyo:UseGod ; lyo:stateOf ?cast ; lyo:involves {var} . "
                 f"FILTER NOT EXISTS {{ {var} lyo:hasHidden {h0} . {ug} lyo:hiddenUseGod {h0} . }}"]
        hidden = [f"?cast lyo:hasLine {var} . {ug} a lyo:UseGod ; lyo:stateOf ?cast ; lyo:involves {var} ; "
                  f"lyo:hiddenUseGod {subject} . {var} lyo:hasHidden {subject} ."]
        possible = True
        shown_negs = []
        for neg, tok in rest:
            pat = self.token(var, tok)
            if neg:
                shown_negs.append(_absent(pat))
            else:
                shown.append(pat)
            hpat = self.token(var, tok) if tok == "絕處逢生" else self.hidden_token(subject, tok)
            if hpat is None:
                possible = possible and neg  # a token the hidden line cannot have: `!tok` holds, `tok` never
            else:
                # FILTER NOT EXISTS, not MINUS: a hidden line's patterns relate branches and elements by
                # variables only (月破: ?cast's month against the hidden branch), so MINUS's separate
                # evaluation would pair every cast with every branch-bearing node of the batch
                hidden.append(f"FILTER NOT EXISTS {{ {hpat} }}" if neg else hpat)
        # The BIND closes the shown branch's group: a BIND inside a group ends the basic graph pattern, and
        # pyoxigraph evaluates the patterns after it on their own and joins (every line of every cast in
        # the batch against every cast, far slower than with the BIND last: benchmarks/bench.py).
        shown += shown_negs + [f"BIND({var} AS {subject})"]
        if not possible:
            return "{ " + " ".join(shown) + " }"
        return "{ " + " ".join(shown) + " }\n  UNION { " + " ".join(hidden) + " }"

    def endpoint(self, end: str, names: dict[str, str], subjects: dict[str, str] | None = None) -> tuple[str, str]:
        """(variable, pattern binding it). A use-god name stands for its subject (the hidden line when the
        use-god is hidden); `伏NAME` is always the hidden line under the line NAME matched."""
        subjects = subjects or {}
        if end == "日":
            return "?day", "?cast lyo:hasDay ?day ."
        if end == "月":
            return "?month", "?cast lyo:hasMonth ?month ."
        if end == "年":
            return "?year", "?cast lyo:hasYear ?year ."
        if end.startswith("變"):  # a hidden use-god does not move: its subject has no change
            v = self.fresh("chg")
            return v, f"{subjects.get(end[1:], names[end[1:]])} lyo:hasChange {v} ."
        if end.startswith("伏"):
            v = self.fresh("hid")
            return v, f"{names[end[1:]]} lyo:hasHidden {v} ."
        return subjects.get(end, names[end]), ""

    def relation(self, r: RelClause, names: dict[str, str], subjects: dict[str, str] | None = None) -> str:
        subjects = subjects or {}
        if r.left in ("內", "外"):
            el = {"內": "?innerEl", "外": "?outerEl"}
            pre = ("?cast lyo:primaryHexagram ?hexT . ?hexT lyo:lowerTrigram ?lowT ; lyo:upperTrigram ?upT . "
                   "?lowT lyo:element ?innerEl . ?upT lyo:element ?outerEl .")
            a, b = el[r.left], el[r.right]
            if r.rel == "比和":
                return f"{pre} FILTER({a} = {b})"
            return f"{pre} {a} lyo:{'elementGenerates' if r.rel == '生' else 'elementOvercomes'} {b} ."
        a, pa = self.endpoint(r.left, names, subjects)
        b, pb = self.endpoint(r.right, names, subjects)
        if any(end.startswith("伏") or end.lstrip("變") in subjects for end in (r.left, r.right)):
            # a hidden line (伏NAME, or a use-god that may be hidden) is no endpoint of the derived
            # relations: relate by element / branch directly, as the relation rules do (two endpoints)
            distinct = f"FILTER({a} != {b})"
            if r.rel in ("生", "克", "剋", "比和"):
                ea, eb = self.fresh("e"), self.fresh("e")
                test = (f"FILTER({ea} = {eb})" if r.rel == "比和" else
                        f"{ea} lyo:{'elementGenerates' if r.rel == '生' else 'elementOvercomes'} {eb} .")
                return f"{pa} {pb} {a} lyo:element {ea} . {b} lyo:element {eb} . {test} {distinct}"
            ba, bb = self.fresh("br"), self.fresh("br")
            prop = {"沖": "branchClashes", "合": "branchCombines", "刑": "branchPunishes", "害": "branchHarms"}[r.rel]
            return f"{pa} {pb} {a} lyo:branch {ba} . {b} lyo:branch {bb} . {ba} lyo:{prop} {bb} . {distinct}"
        if r.rel == "比和":
            e = self.fresh("e")
            return f"{pa} {pb} {a} lyo:element {e} . {b} lyo:element {e} . FILTER({a} != {b})"
        return f"{pa} {pb} {a} lyo:{RELATIONS[r.rel]} {b} ."

    def cast(self, c: CastClause) -> str:
        if c.key == "卦":
            if c.value in CAST_STATES:
                return f"{self.fresh('cs')} a lyo:{CAST_STATES[c.value]} ; lyo:stateOf ?cast ."
            if c.value in ("遊魂", "歸魂"):
                gen = "WanderingSoul" if c.value == "遊魂" else "ReturningSoul"
                h = self.fresh("h")
                return f"?cast lyo:primaryHexagram {h} . {h} lyo:generation lyr:{gen} ."
            m = self.fresh("m")
            if c.value == "無動":
                return f"FILTER NOT EXISTS {{ ?cast lyo:hasLine {m} . {m} a lyo:MovingLine . }}"
            k = self.fresh("k")
            return (f"{{ SELECT ?cast (COUNT({m}) AS {k}) WHERE {{ ?cast lyo:hasLine {m} . {m} a lyo:MovingLine . }} "
                    f"GROUP BY ?cast }} FILTER({k} >= 3)")
        if c.key == "占" and c.value in ("男", "女"):  # the asker's sex (男占 / 女占); a cast without it is neither
            return f'?cast lyo:askerSex "{c.value}" .'
        if c.key in ("本卦", "之卦"):
            prop = "primaryHexagram" if c.key == "本卦" else "changedHexagram"
            return f"?cast lyo:{prop} lyr:Hexagram{HEXAGRAM_NUMBERS[c.value]:02d} ."
        if c.key == "占":  # whom the question concerns (來者何人); `占:*` any subject given
            w = self.fresh("w")
            test = "" if c.value == "*" else f' FILTER(STR({w}) = "{c.value}")'
            return f"?cast lyo:concerns {w} .{test}"
        prop = {"宮": "palace", "內": "lowerTrigram", "外": "upperTrigram"}[c.key]
        h = self.fresh("h")
        if c.value in ("陽卦", "陰卦"):  # trigram gender (tables.YANG_TRIGRAMS / YIN_TRIGRAMS)
            t = self.fresh("t")
            names = T.YANG_TRIGRAMS if c.value == "陽卦" else T.YIN_TRIGRAMS
            alts = ", ".join(f"lyr:Trigram{TRIGRAM_IDS[n]}" for n in names)
            return f"?cast lyo:primaryHexagram {h} . {h} lyo:{prop} {t} . FILTER({t} IN ({alts}))"
        return f"?cast lyo:primaryHexagram {h} . {h} lyo:{prop} lyr:Trigram{TRIGRAM_IDS[c.value]} ."


def reads_hidden(clause: LineClause) -> bool:
    """A `用神` pattern that does not name `伏用`: its tokens and relations read the use-god itself, which
    for a hidden use-god is the hidden line, never the flying line above it (舍飛從伏, docs/rule-language.md)."""
    toks = {tok for _neg, tok in clause.tokens}
    return (False, "用神") in clause.tokens and "伏用" not in toks


def compile_where(cond: Condition, strength_table: str = "EarthMonths") -> tuple[str, list[str]]:
    """The WHERE body (after `?cast a lyo:Cast`) and the variables of the lines it binds."""
    comp = _Compiler(strength_table)
    names = {n: f"?L_{n}" for n in cond.bound_names()}
    subjects = {c.name: f"?U_{c.name}" for c in cond.clauses if isinstance(c, LineClause) and reads_hidden(c)}
    parts, negations = [], []
    for c in cond.clauses:
        if isinstance(c, LineClause):
            parts.append(comp.line(c, names[c.name], subjects.get(c.name), tail=negations))
        elif isinstance(c, RelClause):
            parts.append(comp.relation(c, names, subjects))
        elif isinstance(c, CastClause):
            parts.append(comp.cast(c))
        else:
            inner = c.inner
            if isinstance(inner, LineClause):
                body = comp.line(inner, comp.fresh("neg"), comp.fresh("negu") if reads_hidden(inner) else None)
            elif isinstance(inner, RelClause):
                body = comp.relation(inner, names, subjects)
            else:
                body = comp.cast(inner)
            negations.append(_absent(body))
    # Negations come last: a MINUS only sees the variables bound before it.
    return "\n  ".join(parts + negations), list(names.values())


def _absent(body: str) -> str:
    """`not`: MINUS when the body shares a bound variable through a triple pattern, else FILTER NOT EXISTS.

    Every body the compiler makes joins on ?cast or on a bound line variable in a triple pattern, and
    its filters use only variables it binds itself, so MINUS and FILTER NOT EXISTS agree (SPARQL 1.1
    §8.3.3 differ only without shared variables). pyoxigraph evaluates MINUS as one anti-join instead
    of re-running the pattern for every solution, which is faster on the chapter rules (benchmarks/bench.py). A body that is
    itself only a filter (卦:無動) keeps FILTER NOT EXISTS.
    """
    if body.lstrip().startswith("FILTER"):
        return f"FILTER NOT EXISTS {{ {body} }}"
    return f"MINUS {{ {body} }}"


# Tokens whose truth needs the month / the day (docs/rule-language.md): on a cast without them such a token,
# even negated (`!旬空`, `not a 克 日`), is unknown, so a rule reading one does not fire.
_MONTH_TOKENS = frozenset({*STRENGTH_IDS, *STRENGTH_GROUPS, "月破", "月合", "化破", "臨月", "伏旺相", "伏休囚", "絕處逢生"})
_DAY_TOKENS = frozenset({"旬空", "日沖", "暗動", "沖散", "日合", "日墓", "化空", "臨日", "絕處逢生", *SPIRIT_IDS})


def time_needs(cond: Condition) -> tuple[bool, bool]:
    """(needs the month, needs the day) of a condition, negated parts included."""
    month = day = False
    todo = list(cond.clauses)
    while todo:
        c = todo.pop()
        if isinstance(c, NotClause):
            todo.append(c.inner)
        elif isinstance(c, LineClause):
            for _neg, tok in c.tokens:
                month |= tok in _MONTH_TOKENS or tok.startswith(("月:", "神煞:"))
                day |= tok in _DAY_TOKENS or tok.startswith(("日:", "神煞:"))
        elif isinstance(c, RelClause):
            month |= "月" in (c.left, c.right)
            day |= "日" in (c.left, c.right)
    return month, day


def compile_rule(text: str, *, iri_path: str, topics: list[str], strength_table: str = "EarthMonths") -> str:
    """A CONSTRUCT that makes the judgment `<cast>/judgment/<iri_path>` when the condition holds."""
    cond = parse(text)
    where, line_vars = compile_where(cond, strength_table)
    needs_month, needs_day = time_needs(cond)
    guard = "".join(f"?cast lyo:{p} ?{v} . " for need, p, v in (
        (needs_month, "hasMonth", "timeMonth"), (needs_day, "hasDay", "timeDay")) if need)
    where = guard + where if guard else where
    involves = "".join(f" lyo:matchedLine {v} ;" for v in line_vars)
    topic = ""
    if topics and "any" not in topics:
        # A VALUES block first, not a FILTER after the pattern: pyoxigraph then starts from the few
        # casts of the topic instead of filtering every cast's solutions (benchmarks/bench.py).
        values = " ".join('"' + t.replace('"', "") + '"' for t in topics)
        topic = f"VALUES ?topic {{ {values} }} ?cast lyo:topic ?topic .\n  "
    return (f"CONSTRUCT {{ ?j a lyo:Judgment ; lyo:judgmentOf ?cast ; lyo:inCast ?cast ;{involves} "
            f"prov:wasDerivedFrom ?rule . }}\nWHERE {{\n  {topic}?cast a lyo:Cast .\n  {where}\n"
            f'  BIND(IRI(CONCAT(STR(?cast), "/judgment/{iri_path}")) AS ?j)\n}}')


@cache
def known_topics() -> frozenset[str]:
    """The questions of the scheme (tables.QUESTIONS)."""
    return frozenset(q[0] for q in T.QUESTIONS)


def check_file(path: str) -> list[str]:
    """Problems in one chapter file (format, conditions, topics); empty when it is sound."""
    import yaml

    problems = []
    data = yaml.safe_load(open(path, encoding="utf-8"))
    for key in ("work", "chapter", "seed", "topics", "rules"):
        if key not in data:
            problems.append(f"{path}: missing '{key}'")
    ids = set()
    for i, r in enumerate(data.get("rules") or []):
        where = f"{path}: rule {r.get('id', '#' + str(i))}"
        if r.get("id") in ids:
            problems.append(f"{where}: duplicate id")
        ids.add(r.get("id"))
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", str(r.get("id", ""))):
            problems.append(f"{where}: id must be lowercase ascii and '-'")
        for key in ("quote", "conclusion", "polarity"):
            if not r.get(key):
                problems.append(f"{where}: missing '{key}'")
        if r.get("polarity") not in ("吉", "凶", "neutral"):
            problems.append(f"{where}: polarity must be 吉, 凶 or neutral")
        for t in r.get("topics") or data.get("topics") or []:
            if t != "any" and t not in known_topics():
                problems.append(f"{where}: unknown topic {t!r}")
        if r.get("strength_table") and r["strength_table"] not in STRENGTH_TABLES:
            problems.append(f"{where}: unknown strength_table {r['strength_table']!r} (known: {', '.join(STRENGTH_TABLES)})")
        executable = r.get("executable", True)
        if executable:
            if not r.get("when"):
                problems.append(f"{where}: executable rule without 'when'")
            else:
                try:
                    parse(r["when"])
                except ConditionError as e:
                    problems.append(f"{where}: {e}")
        elif not r.get("reason"):
            problems.append(f"{where}: non-executable rule without 'reason'")
    return problems


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] != "--check":
        print("usage: python -m liuyao_kg.reasoner.conditions --check FILE.yaml …", file=sys.stderr)
        return 2
    problems = [p for f in args[1:] for p in check_file(f)]
    for p in problems:
        print(p)
    print(f"{len(args) - 1} file(s), {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
