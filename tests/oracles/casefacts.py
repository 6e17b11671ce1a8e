"""Fact checker for the worked examples (卦例) of classic_cases.yaml and tests/data/seed_cases.yaml.

A case is ``{id, source: {seed, quote}, cast: {month, day, hexagram, changed, topic, [year], [birth]},
facts: [...]}``. Every fact is a mapping. A few keys give its *context*; every other key is a *fact
kind* checked against the chart dict of docs/json-output.md (``liuyao_kg.cast(...)``). A fact with
several kinds is split into one *atom* per kind (one test each); the ``cast`` mapping is split into
one atom per sub-key.

Context and metadata keys (not checked themselves):

====================  ================================================================================
``line: N``           the line (1..6, bottom up) the line kinds below refer to (required by them)
``on_day: 丁巳``       check this fact on a re-cast with that day (same spec, month, topic …)
``on_month: 丑``       check this fact on a re-cast with that month branch
``expect: disputed``  the commentary's claim contradicts DOMAIN.md's conventions: the check must *fail*
                      (the test runs it as a strict xfail); requires ``note``
``note``, ``quote``   free text / an extra exact quote from the same seed ("……" marks an elision)
====================  ================================================================================

Line kinds (need ``line``; ``L`` is that line of ``chart["lines"]``; [d]/[m] = needs the day/month):

=====================  ==========================================================================
``gz``                 L stem + branch
``relative``           L relative
``element``            L element
``nayin``              L nayin (with ``line``; without it, see the mapping form below)
``stage_day`` [d]      L stage_day
``stage_month`` [m]    L stage_month
``moving``             L moving
``yang``               polarity of L: ``L["yang"]`` or ``L["value"]`` in (7, 9) when the chart has
                       them, else from the hexagram's line pattern in liuyao_kg.ontology.tables
                       (the reference table the loader reads names with; polarity is input, not
                       derived)
``month_broken`` [m]   line state 月破 present (true) / absent (false)
``month_combines`` [m] line state 月合
``day_combines`` [d]   line state 日合
``day_clashes`` [d]    line state 日沖
``dark_moving`` [d]    line state 暗動
``in_void`` [d]        line state 旬空
``day_tomb`` [d]       line state 日墓
``changes_to``         L change stem + branch (the line must move)
``change_relative``    L change relative
``change_element``     L change element
``changed_nayin``      L change nayin
``change_stage``       絕 → line state 化絕; 墓 → line state 化墓 (other stages are malformed)
``overcomes_line: M``  relations contain {"from": "line:N", "to": "line:M", "relation": "克"}
``hidden_under``       L hidden_palace stem + branch (火珠林 飛伏)
``body_line``          role 世身 in L roles (true) / not (false)
``gua_body``           role 卦身 in L roles
``ghost_tomb`` [d]     a cast state 隨鬼入墓 whose ``lines`` include N
``same_as_day`` [d]    L stem + branch equals the day's stem + branch
=====================  ==========================================================================

Cast kinds (sub-keys of ``cast:``; P = chart["primary"], C = chart["changed"]):

======================  ==================================================================
``palace``              P palace (trigram)
``palace_element``      P palace_element
``shi`` / ``ying``      P shi / P ying
``single_moving: N``    a cast state 獨發 with lines [N]
``single_static: N``    a cast state 獨靜 with lines [N]
``liuhe`` / ``liuchong``            "六合" / "六沖" in P kind (true) / not (false)
``changed_liuhe`` / ``changed_liuchong``  the same on C kind (C must exist)
``two_present: [a, b]`` a cast state 兩現 whose lines are exactly [a, b]
``shi_yang`` / ``ying_yang``        polarity (as ``yang``) of the 世 / 應 line
``lacks_relative: R``   no primary line has relative R
======================  ==================================================================

Free kinds (no ``line``):

==============================  ===========================================================
``void: [子, 丑]`` [d]          chart["void"] as a set
``month_relative`` [m]          chart["month"]["relative"]
``nayin: {甲子: 海中金, …}``     liuyao_kg.nayin(gz) for each entry (one atom)
``branch_pair: [a, b]`` +       ``relation`` (combine 合 / clash 沖 / harm 害 / punish 刑) is in
``relation: combine``           liuyao_kg.branch_relations(a, b)
``relation: {from, to,          that entry is in chart["relations"] ([d]/[m] when an endpoint is
relation}``                     the day / month)
``stage_of: {element, branch,   the 十二長生 stage of an element at a branch, read off a re-cast of
stage}``                        乾 (its lines hold all five elements) on a day with that branch
==============================  ===========================================================

Any other key is an unknown fact kind: its check raises UnknownFactKind, which fails the test (it is
never turned into a pass, nor into an expected failure for a disputed fact). A kind used in the
wrong scope, or a month/day-dependent kind in a case whose month/day is null without its own
``on_month``/``on_day``, raises MalformedFact (also a failure). A check that does not hold raises
FactMismatch (an AssertionError).

Cases whose month or day is null are cast without it (the time-independent chart: liuyao_kg.cast accepts a
cast with no month or day); only month/day-independent facts are checked on them (enforced as above).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

STEMS = "甲乙丙丁戊己庚辛壬癸"
BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
JIAZI = [STEMS[i % 10] + BRANCHES[i % 12] for i in range(60)]

METADATA_KEYS = {"expect", "note", "quote"}
CONTEXT_KEYS = {"line", "on_day", "on_month"}
EXPECT_VALUES = {"disputed"}

BRANCH_RELATION = {"combine": "合", "clash": "沖", "harm": "害", "punish": "刑"}
CHANGE_STAGE_STATE = {"絕": "化絕", "墓": "化墓"}


class UnknownFactKind(Exception):
    """A fact kind this checker does not know: always a test failure."""


class MalformedFact(Exception):
    """A fact kind used without what it needs (line, month, day …): always a test failure."""


class FactMismatch(AssertionError):
    """The chart does not show the fact."""


@dataclass(frozen=True)
class Atom:
    kind: str            # e.g. "relative", "cast.palace", "branch_pair"
    value: Any
    line: int | None = None
    on_day: str | None = None
    on_month: str | None = None
    extra: dict = field(default_factory=dict, compare=False, hash=False)


# ---------------------------------------------------------------------------------------- casting
def cast_spec(case: dict) -> str:
    c = case["cast"]
    return f"{c['hexagram']}之{c['changed']}" if c.get("changed") else c["hexagram"]


def cast_args(case: dict, on_day: str | None = None, on_month: str | None = None) -> dict:
    """Keyword arguments for the cached cast function (all hashable); spec included."""
    c = case["cast"]
    return {
        "spec": cast_spec(case),
        "month": on_month or c.get("month"),
        "day": on_day or c.get("day"),
        "topic": c.get("topic"),
        "about": c.get("about"),
        "year": c.get("year"),
        "birth": c.get("birth"),
    }


# ---------------------------------------------------------------------------------------- splitting
def split_fact(fact: dict) -> list[Atom]:
    """One atom per fact kind (the cast mapping: one per sub-key). Never raises on unknown kinds."""
    if not isinstance(fact, dict):
        return [Atom("<not-a-mapping>", fact)]
    ctx = {k: fact.get(k) for k in CONTEXT_KEYS}
    atoms: list[Atom] = []
    for key, value in fact.items():
        if key in METADATA_KEYS or key in CONTEXT_KEYS:
            continue
        if key == "relation" and "branch_pair" in fact:
            continue                                   # part of the branch_pair kind
        if key == "cast" and isinstance(value, dict):
            atoms += [Atom(f"cast.{sub}", v, **ctx) for sub, v in value.items()]
        elif key == "branch_pair":
            atoms.append(Atom("branch_pair", (value, fact.get("relation")), **ctx))
        elif key == "nayin" and ctx["line"] is None:
            atoms.append(Atom("nayin_map", value, **ctx))
        else:
            atoms.append(Atom(key, value, **ctx))
    if not atoms:
        atoms.append(Atom("<empty-fact>", None, **ctx))
    return atoms


def atom_label(atom: Atom) -> str:
    return atom.kind


# ---------------------------------------------------------------------------------------- helpers
def _gz(d: dict) -> str:
    return f"{d['stem']}{d['branch']}"


def _eq(what: str, got, want):
    if got != want:
        raise FactMismatch(f"{what}: chart has {got!r}, the case says {want!r}")


def _line_states(line: dict) -> list[str]:
    return [s["term"] for s in line.get("states") or []]


def _state_flag(line: dict, term: str, want, what: str):
    if not isinstance(want, bool):
        raise MalformedFact(f"{what}: expected true/false, got {want!r}")
    have = term in _line_states(line)
    if have != want:
        raise FactMismatch(f"{what}: line {line.get('position')} states {_line_states(line)} "
                           f"{'lack' if want else 'contain'} {term}")


def _cast_states(chart: dict, term: str) -> list[dict]:
    return [s for s in chart.get("states") or [] if s.get("term") == term]


def _state_lines(state: dict, term: str) -> list[int]:
    if "lines" not in state or state["lines"] is None:
        raise FactMismatch(f"cast state {term} carries no 'lines': {state!r}")
    return sorted(int(x) for x in state["lines"])


def _line(chart: dict, pos: int) -> dict:
    lines = chart["lines"]
    for ln in lines:
        if ln.get("position") == pos:
            return ln
    raise FactMismatch(f"chart has no line at position {pos}")


def _change(line: dict, what: str) -> dict:
    ch = line.get("change")
    if ch is None:
        raise FactMismatch(f"{what}: line {line.get('position')} does not move (change is null)")
    return ch


def _pattern_from_tables(name: str) -> tuple[int, ...]:
    from liuyao_kg.ontology import tables  # reference table only (line patterns of the 64 names)
    for _num, short, upper, lower, *_ in tables.HEXAGRAMS:
        if short == name:
            return tuple(tables.TRIGRAMS[lower][1]) + tuple(tables.TRIGRAMS[upper][1])
    raise FactMismatch(f"primary name {name!r} is not in the hexagram table")


def _yang(chart: dict, pos: int) -> bool:
    line = _line(chart, pos)
    if "yang" in line:
        return bool(line["yang"])
    if "value" in line:
        return line["value"] in (7, 9)
    return bool(_pattern_from_tables(chart["primary"]["name"])[pos - 1])


def _bool(want, what):
    if not isinstance(want, bool):
        raise MalformedFact(f"{what}: expected true/false, got {want!r}")
    return want


# ---------------------------------------------------------------------------------------- kinds
# Each checker: fn(chart, atom, env) ; env: Env below. Tables: kind → (scope, depends, fn)
#   scope "line" needs atom.line, "cast"/"free" must not have it; depends ⊆ {"day", "month"}.

def _k_line_field(field_name):
    def fn(chart, a, env):
        _eq(f"line {a.line} {field_name}", _line(chart, a.line)[field_name], a.value)
    return fn


def _k_gz(chart, a, env):
    _eq(f"line {a.line} stem-branch", _gz(_line(chart, a.line)), a.value)


def _k_moving(chart, a, env):
    _eq(f"line {a.line} moving", bool(_line(chart, a.line)["moving"]), _bool(a.value, "moving"))


def _k_yang(chart, a, env):
    _eq(f"line {a.line} yang", _yang(chart, a.line), _bool(a.value, "yang"))


def _k_flag(term):
    def fn(chart, a, env):
        _state_flag(_line(chart, a.line), term, a.value, f"line {a.line} {a.kind}")
    return fn


def _k_change_field(field_name, gz=False):
    def fn(chart, a, env):
        ch = _change(_line(chart, a.line), a.kind)
        _eq(f"line {a.line} change {field_name}", _gz(ch) if gz else ch[field_name], a.value)
    return fn


def _k_change_stage(chart, a, env):
    term = CHANGE_STAGE_STATE.get(a.value)
    if term is None:
        raise MalformedFact(f"change_stage {a.value!r}: only {sorted(CHANGE_STAGE_STATE)} map to a line state")
    line = _line(chart, a.line)
    _change(line, a.kind)
    _state_flag(line, term, True, f"line {a.line} change_stage {a.value}")


def _relation_present(chart, frm, to, rel):
    entry = {"from": frm, "to": to, "relation": rel}
    have = [{k: r.get(k) for k in ("from", "to", "relation")} for r in chart.get("relations") or []]
    if entry not in have:
        near = [r for r in have if r["from"] == frm and r["to"] == to]
        raise FactMismatch(f"relations lack {entry}; between these endpoints the chart has {near}")


def _k_overcomes_line(chart, a, env):
    _relation_present(chart, f"line:{a.line}", f"line:{a.value}", "克")


def _k_hidden_under(chart, a, env):
    hp = _line(chart, a.line).get("hidden_palace")
    if not hp:
        raise FactMismatch(f"line {a.line} has no hidden_palace")
    _eq(f"line {a.line} hidden_palace", _gz(hp), a.value)


def _k_role(role):
    def fn(chart, a, env):
        roles = _line(chart, a.line).get("roles") or []
        _eq(f"line {a.line} role {role} (roles {roles})", role in roles, _bool(a.value, a.kind))
    return fn


def _k_ghost_tomb(chart, a, env):
    want = _bool(a.value, a.kind)
    have = any(a.line in _state_lines(s, "隨鬼入墓") for s in _cast_states(chart, "隨鬼入墓"))
    _eq(f"cast state 隨鬼入墓 involving line {a.line} (states {_cast_states(chart, '隨鬼入墓')})", have, want)


def _k_same_as_day(chart, a, env):
    day = chart["day"]
    _eq(f"line {a.line} stem-branch equals the day {_gz(day)}",
        _gz(_line(chart, a.line)) == _gz(day), _bool(a.value, a.kind))


# cast kinds
def _k_primary(field_name):
    def fn(chart, a, env):
        _eq(f"primary {field_name}", chart["primary"][field_name], a.value)
    return fn


def _k_single(term):
    def fn(chart, a, env):
        states = _cast_states(chart, term)
        if not any(_state_lines(s, term) == [a.value] for s in states):
            raise FactMismatch(f"no cast state {term} with lines [{a.value}]; chart has {states}")
    return fn


def _k_kind(which, term):
    def fn(chart, a, env):
        hexa = chart[which]
        if hexa is None:
            raise FactMismatch(f"{a.kind}: the chart has no {which} hexagram")
        _eq(f"{which} kind {hexa.get('kind')} contains {term}", term in (hexa.get("kind") or []),
            _bool(a.value, a.kind))
    return fn


def _k_two_present(chart, a, env):
    want = sorted(a.value)
    states = _cast_states(chart, "兩現")
    if not any(_state_lines(s, "兩現") == want for s in states):
        raise FactMismatch(f"no cast state 兩現 with lines {want}; chart has {states}")


def _k_role_yang(role_field):
    def fn(chart, a, env):
        pos = chart["primary"][role_field]
        _eq(f"polarity (yang) of the {role_field} line {pos}", _yang(chart, pos), _bool(a.value, a.kind))
    return fn


def _k_lacks_relative(chart, a, env):
    holders = [ln["position"] for ln in chart["lines"] if ln["relative"] == a.value]
    if holders:
        raise FactMismatch(f"relative {a.value} is held by lines {holders}")


# free kinds
def _k_void(chart, a, env):
    _eq("void", sorted(chart["void"] or [], key=BRANCHES.index), sorted(a.value, key=BRANCHES.index))


def _k_month_relative(chart, a, env):
    _eq("month relative", chart["month"]["relative"], a.value)


def _k_nayin_map(chart, a, env):
    if not isinstance(a.value, dict):
        raise MalformedFact(f"nayin without a line must be a mapping gz → nayin, got {a.value!r}")
    nayin = env.api("nayin")
    wrong = {gz: (nayin(gz), want) for gz, want in a.value.items() if nayin(gz) != want}
    if wrong:
        raise FactMismatch(f"liuyao_kg.nayin disagrees (got, want): {wrong}")


def _k_branch_pair(chart, a, env):
    pair, rel = a.value
    symbol = BRANCH_RELATION.get(rel)
    if symbol is None or not isinstance(pair, (list, tuple)) or len(pair) != 2:
        raise MalformedFact(f"branch_pair {pair!r} with relation {rel!r} (known: {sorted(BRANCH_RELATION)})")
    got = set(env.api("branch_relations")(pair[0], pair[1]))
    if symbol not in got:
        raise FactMismatch(f"branch_relations({pair[0]}, {pair[1]}) = {sorted(got)} lacks {symbol}")


def _k_relation(chart, a, env):
    v = a.value
    if not isinstance(v, dict) or set(v) != {"from", "to", "relation"}:
        raise MalformedFact(f"relation must be a mapping with from, to, relation; got {v!r}")
    _relation_present(chart, v["from"], v["to"], v["relation"])


def _k_stage_of(chart, a, env):
    v = a.value
    if not isinstance(v, dict) or set(v) != {"element", "branch", "stage"}:
        raise MalformedFact(f"stage_of must be a mapping with element, branch, stage; got {v!r}")
    day = next(gz for gz in JIAZI if gz[1] == v["branch"])
    ref = env.cast(spec="乾", month=None, day=day, topic=None, about=None, year=None, birth=None)
    lines = [ln for ln in ref["lines"] if ln["element"] == v["element"]]
    if not lines:
        raise FactMismatch(f"reference cast 乾 has no {v['element']} line")
    _eq(f"stage of {v['element']} at {v['branch']} (乾 line {lines[0]['position']} on a {day} day)",
        lines[0]["stage_day"], v["stage"])


D, M = frozenset({"day"}), frozenset({"month"})
N = frozenset()

KINDS: dict[str, tuple[str, frozenset, Callable]] = {
    # line kinds
    "gz": ("line", N, _k_gz),
    "relative": ("line", N, _k_line_field("relative")),
    "element": ("line", N, _k_line_field("element")),
    "nayin": ("line", N, _k_line_field("nayin")),
    "stage_day": ("line", D, _k_line_field("stage_day")),
    "stage_month": ("line", M, _k_line_field("stage_month")),
    "moving": ("line", N, _k_moving),
    "yang": ("line", N, _k_yang),
    "month_broken": ("line", M, _k_flag("月破")),
    "month_combines": ("line", M, _k_flag("月合")),
    "day_combines": ("line", D, _k_flag("日合")),
    "day_clashes": ("line", D, _k_flag("日沖")),
    "dark_moving": ("line", D, _k_flag("暗動")),
    "in_void": ("line", D, _k_flag("旬空")),
    "day_tomb": ("line", D, _k_flag("日墓")),
    "changes_to": ("line", N, _k_change_field("stem-branch", gz=True)),
    "change_relative": ("line", N, _k_change_field("relative")),
    "change_element": ("line", N, _k_change_field("element")),
    "changed_nayin": ("line", N, _k_change_field("nayin")),
    "change_stage": ("line", N, _k_change_stage),
    "overcomes_line": ("line", N, _k_overcomes_line),
    "hidden_under": ("line", N, _k_hidden_under),
    "body_line": ("line", N, _k_role("世身")),
    "gua_body": ("line", N, _k_role("卦身")),
    "ghost_tomb": ("line", D, _k_ghost_tomb),
    "same_as_day": ("line", D, _k_same_as_day),
    # cast kinds
    "cast.palace": ("cast", N, _k_primary("palace")),
    "cast.palace_element": ("cast", N, _k_primary("palace_element")),
    "cast.shi": ("cast", N, _k_primary("shi")),
    "cast.ying": ("cast", N, _k_primary("ying")),
    "cast.single_moving": ("cast", N, _k_single("獨發")),
    "cast.single_static": ("cast", N, _k_single("獨靜")),
    "cast.liuhe": ("cast", N, _k_kind("primary", "六合")),
    "cast.liuchong": ("cast", N, _k_kind("primary", "六沖")),
    "cast.changed_liuhe": ("cast", N, _k_kind("changed", "六合")),
    "cast.changed_liuchong": ("cast", N, _k_kind("changed", "六沖")),
    "cast.two_present": ("cast", N, _k_two_present),
    "cast.shi_yang": ("cast", N, _k_role_yang("shi")),
    "cast.ying_yang": ("cast", N, _k_role_yang("ying")),
    "cast.lacks_relative": ("cast", N, _k_lacks_relative),
    # free kinds
    "void": ("free", D, _k_void),
    "month_relative": ("free", M, _k_month_relative),
    "nayin_map": ("free", N, _k_nayin_map),
    "branch_pair": ("free", N, _k_branch_pair),
    "relation": ("free", N, _k_relation),
    "stage_of": ("free", N, _k_stage_of),
}


def _relation_depends(value) -> frozenset:
    if not isinstance(value, dict):
        return N
    ends = {str(value.get("from")), str(value.get("to"))}
    return frozenset(x for x in ("day", "month") if x in ends) | (D if "year" in ends else N)


class Env:
    """What the checks may call: the (cached) cast function and liuyao_kg's helpers."""

    def __init__(self, cast: Callable[..., dict]):
        self.cast = cast

    @staticmethod
    def api(name: str):
        import liuyao_kg
        return getattr(liuyao_kg, name)


def check_atom(case: dict, atom: Atom, cast: Callable[..., dict]) -> None:
    """Check one atom of a case. ``cast(**cast_args(...))`` must return the chart dict."""
    if atom.kind not in KINDS:
        raise UnknownFactKind(f"unknown fact kind {atom.kind!r} in case {case.get('id')!r} "
                              f"(known: {', '.join(sorted(KINDS))})")
    scope, depends, fn = KINDS[atom.kind]
    if atom.kind == "relation":
        depends = _relation_depends(atom.value)
    if scope == "line":
        if not isinstance(atom.line, int) or not 1 <= atom.line <= 6:
            raise MalformedFact(f"{atom.kind} needs line: 1..6, got {atom.line!r}")
    elif atom.line is not None:
        raise MalformedFact(f"{atom.kind} is not a line kind but the fact names line {atom.line}")
    c = case["cast"]
    if "day" in depends and not (atom.on_day or c.get("day")):
        raise MalformedFact(f"{atom.kind} depends on the day, which case {case.get('id')} does not give")
    if "month" in depends and not (atom.on_month or c.get("month")):
        raise MalformedFact(f"{atom.kind} depends on the month, which case {case.get('id')} does not give")
    chart = cast(**cast_args(case, on_day=atom.on_day, on_month=atom.on_month))
    fn(chart, atom, Env(cast))


def check_fact(case: dict, fact: dict, cast: Callable[..., dict]) -> None:
    """Check every atom of a fact (raises on the first that fails)."""
    for atom in split_fact(fact):
        check_atom(case, atom, cast)
