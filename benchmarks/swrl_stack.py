"""owlready2 + Pellet: the part of the state rules SWRL can express, on the same casts.

The casts are asserted exactly as the loader asserts them (lines with position and value, primary and
changed hexagram, month branch, day stem-branch) and the reference facts the rules read are copied
from the same reference graph. SWRL rules (below, `RULES`) then derive, with Pellet
(`sync_reasoner_pellet(infer_property_values=True, infer_data_property_values=True)`):

  chart:     動/靜 (MovingLine/StaticLine), 納甲 (stemBranch of each line and changed line), branch and
             element of every endpoint, 六親 (relative from the palace element), 世/應 roles
  relations: 生 克 沖 合 between the endpoints of a cast (lines, changed lines, month, day)
  line states (LINE_STATES): 月破 旬空 日沖 暗動 沖散 月合 日合 日墓 動墓 化墓 化絕 化空 化破 化沖 化合
             回頭生 回頭克 化進/化退 (both schools) 進神 退神
  line states also: 空沖則實 (a void line clashed by the day or a moving line)
  relations also: 害
  cast states: 六沖 六合 變六沖 變六合 (primary / changed hexagram in the reference class), 六沖變六合,
             六合變六沖, 合處逢沖 (世 or 應 of a six-combine hexagram clashed or harmed by the day)

What SWRL cannot do, and how it is handled here:
  * mint individuals (DL-safe rules have no existential head): a changed line is a node per line,
    created with the cast ("change slot"); the rule decides whether it is a changed line at all.
    States are classes of their line rather than state individuals.
  * 旬空 needs the day's void branches, which the engine computes by index arithmetic modulo 12;
    they are precomputed per stem-branch as a `voidBranch` fact (swrlb math is outside Pellet's DL-safe
    core in practice, and the fact is pure reference data).
  * everything that needs negation-as-failure, counting or closed-world reading is out of reach of a
    monotonic open-world reasoner: 獨發/獨靜 (exactly one moving / static line), 伏神 (a relative
    *absent* from the hexagram), 兩現 (exactly two), 用神 choice (a relative, else the hidden one, else
    世), the 旺相休囚 of the 易冒 school (its exceptions are written with NOT EXISTS), the rescue
    patterns and the tomb patterns written with NOT EXISTS, and nearly every chapter judgment (NOT EXISTS, counts, 'no
    other line …'). 六神, 卦身, 世身, 十二長生, 旺相休囚 need modular arithmetic or multi-key table
    look-ups (the 火珠林 旺相休囚 and 干長生 are plain three-key joins SWRL could write, not written here).
"""
from __future__ import annotations

import os
import re
import time
import types

import pyoxigraph as ox

from liuyao_kg import namespaces as ns

LINE_STATES = (
    "MonthBroken", "Void", "DayClash", "DarkMovement", "ClashScattered", "MonthCombine", "DayCombine",
    "DayTomb", "MovingTomb", "ChangeToTomb", "ChangeToSeverance", "ChangeToVoid", "ChangeToBroken",
    "ChangeToClash", "ChangeToCombine", "ReturnGenerate", "ReturnOvercome", "ChangeAdvance/LaterAdvance",
    "ChangeRetreat/LaterAdvance", "ChangeAdvance/TianXuan", "ChangeRetreat/TianXuan", "JinShen/TianXuan",
    "TuiShen/TianXuan",
)
LINE_STATES += ("VoidFilledByClash",)
CAST_STATES = ("SixClashPrimary", "SixCombinePrimary", "SixClashChanged", "SixCombineChanged", "ClashToCombine",
               "CombineToClash", "ClashAtCombine")
RELATIONS = ("generates", "overcomes", "clashes", "combines", "harms")

# (predicate local name, object is a literal)
REF_PREDICATES = {
    "hasPosition": False, "index": True, "stemBranch": False, "palace": False, "element": False,
    "shiPosition": True, "yingPosition": True, "stem": False, "branch": False, "branchClashes": False,
    "branchCombines": False, "branchHarms": False, "advancesTo": False, "elementGenerates": False, "elementOvercomes": False,
    "tombBranch": False, "forElement": False, "atBranch": False, "stage": False,
}
REF_CLASSES = ("SixClashHexagram", "SixCombineHexagram", "JinShenPillar", "TuiShenPillar", "StageEntry")

_C = "inCast(?l, ?c), Line(?l)"
RULES = [
    # chart
    "Line(?l), lineValue(?l, 6) -> MovingLine(?l)",
    "Line(?l), lineValue(?l, 9) -> MovingLine(?l)",
    "Line(?l), lineValue(?l, 7) -> StaticLine(?l)",
    "Line(?l), lineValue(?l, 8) -> StaticLine(?l)",
    f"{_C}, primaryHexagram(?c, ?h), hasPosition(?h, ?p), index(?p, ?n), position(?l, ?n), stemBranch(?p, ?gz)"
    " -> stemBranch(?l, ?gz)",
    "MovingLine(?l), inCast(?l, ?c), changeSlot(?l, ?ch), changedHexagram(?c, ?h), hasPosition(?h, ?p),"
    " index(?p, ?n), position(?l, ?n), stemBranch(?p, ?gz)"
    " -> hasChange(?l, ?ch), ChangedLine(?ch), Endpoint(?ch), inCast(?ch, ?c), stemBranch(?ch, ?gz)",
    "Endpoint(?e), stemBranch(?e, ?gz), branch(?gz, ?b) -> branch(?e, ?b)",
    "Endpoint(?e), branch(?e, ?b), element(?b, ?el) -> element(?e, ?el)",
    # 六親 against the primary palace
    *[f"Endpoint(?e), inCast(?e, ?c), element(?e, ?el), primaryHexagram(?c, ?h), palace(?h, ?pa),"
      f" element(?pa, ?pe){cond} -> relative(?e, {rel})"
      for cond, rel in ((", sameElement(?el, ?pe)", "Siblings"), (", elementGenerates(?pe, ?el)", "Offspring"),
                        (", elementOvercomes(?pe, ?el)", "Wealth"), (", elementOvercomes(?el, ?pe)", "Officer"),
                        (", elementGenerates(?el, ?pe)", "Parents"))],
    "Element(?x) -> sameElement(?x, ?x)",
    f"{_C}, primaryHexagram(?c, ?h), shiPosition(?h, ?n), position(?l, ?n) -> hasRole(?l, RoleShi)",
    f"{_C}, primaryHexagram(?c, ?h), yingPosition(?h, ?n), position(?l, ?n) -> hasRole(?l, RoleYing)",
    # relations between endpoints of one cast (an element never generates or overcomes itself, a
    # branch never clashes or combines with itself, so the two endpoints are always distinct)
    *[f"Endpoint(?a), Endpoint(?b), inCast(?a, ?c), inCast(?b, ?c), {k}(?a, ?x), {k}(?b, ?y), {ref}(?x, ?y)"
      f" -> {rel}(?a, ?b)"
      for k, ref, rel in (("element", "elementGenerates", "generates"), ("element", "elementOvercomes", "overcomes"),
                          ("branch", "branchClashes", "clashes"), ("branch", "branchCombines", "combines"),
                          ("branch", "branchHarms", "harms"))],
    # line states
    f"{_C}, hasMonth(?c, ?m), clashes(?m, ?l) -> MonthBroken(?l)",
    f"{_C}, hasDay(?c, ?d), voidBranch(?d, ?b), branch(?l, ?b) -> Void(?l)",
    f"{_C}, hasDay(?c, ?d), clashes(?d, ?l) -> DayClash(?l)",
    "StaticLine(?l), DayClash(?l) -> DarkMovement(?l)",
    "MovingLine(?l), DayClash(?l) -> ClashScattered(?l)",
    f"{_C}, hasMonth(?c, ?m), combines(?m, ?l) -> MonthCombine(?l)",
    f"{_C}, hasDay(?c, ?d), combines(?d, ?l) -> DayCombine(?l)",
    f"{_C}, hasDay(?c, ?d), branch(?d, ?tb), element(?l, ?el), tombBranch(?el, ?tb) -> DayTomb(?l)",
    f"{_C}, element(?l, ?el), tombBranch(?el, ?tb), inCast(?o, ?c), MovingLine(?o), branch(?o, ?tb),"
    " position(?l, ?n1), position(?o, ?n2), notEqual(?n1, ?n2) -> MovingTomb(?l)",
    "hasChange(?l, ?ch), element(?l, ?el), branch(?ch, ?cb), tombBranch(?el, ?cb) -> ChangeToTomb(?l)",
    "hasChange(?l, ?ch), element(?l, ?el), branch(?ch, ?cb), StageEntry(?s), forElement(?s, ?el),"
    " atBranch(?s, ?cb), stage(?s, Stage_Severance) -> ChangeToSeverance(?l)",
    "hasChange(?l, ?ch), inCast(?l, ?c), hasDay(?c, ?d), voidBranch(?d, ?cb), branch(?ch, ?cb) -> ChangeToVoid(?l)",
    "hasChange(?l, ?ch), inCast(?l, ?c), hasMonth(?c, ?m), clashes(?m, ?ch) -> ChangeToBroken(?l)",
    "hasChange(?l, ?ch), clashes(?ch, ?l) -> ChangeToClash(?l)",
    "hasChange(?l, ?ch), combines(?ch, ?l) -> ChangeToCombine(?l)",
    "hasChange(?l, ?ch), generates(?ch, ?l) -> ReturnGenerate(?l)",
    "hasChange(?l, ?ch), overcomes(?ch, ?l) -> ReturnOvercome(?l)",
    "hasChange(?l, ?ch), branch(?l, ?lb), branch(?ch, ?cb), advancesTo(?lb, ?cb) -> ChangeAdvance__LaterAdvance(?l)",
    "hasChange(?l, ?ch), branch(?l, ?lb), branch(?ch, ?cb), advancesTo(?cb, ?lb) -> ChangeRetreat__LaterAdvance(?l)",
    "hasChange(?l, ?ch), stemBranch(?ch, ?gz), JinShenPillar(?gz) -> ChangeAdvance__TianXuan(?l)",
    "hasChange(?l, ?ch), stemBranch(?ch, ?gz), TuiShenPillar(?gz) -> ChangeRetreat__TianXuan(?l)",
    f"{_C}, stemBranch(?l, ?gz), JinShenPillar(?gz) -> JinShen__TianXuan(?l)",
    f"{_C}, stemBranch(?l, ?gz), TuiShenPillar(?gz) -> TuiShen__TianXuan(?l)",
    # cast states
    "Cast(?c), primaryHexagram(?c, ?h), SixClashHexagram(?h) -> SixClashPrimary(?c)",
    "Cast(?c), primaryHexagram(?c, ?h), SixCombineHexagram(?h) -> SixCombinePrimary(?c)",
    "Cast(?c), changedHexagram(?c, ?h), SixClashHexagram(?h) -> SixClashChanged(?c)",
    "Cast(?c), changedHexagram(?c, ?h), SixCombineHexagram(?h) -> SixCombineChanged(?c)",
    "SixClashPrimary(?c), SixCombineChanged(?c) -> ClashToCombine(?c)",
    "SixCombinePrimary(?c), SixClashChanged(?c) -> CombineToClash(?c)",
    # 空沖則實: a void line clashed by the day or by a moving line (a UNION is one rule per branch)
    f"{_C}, Void(?l), hasDay(?c, ?d), clashes(?d, ?l) -> VoidFilledByClash(?l)",
    f"{_C}, Void(?l), inCast(?o, ?c), MovingLine(?o), clashes(?o, ?l) -> VoidFilledByClash(?l)",
    # 合處逢沖: a six-combine hexagram whose 世 or 應 line is clashed or harmed by the day
    *[f"SixCombinePrimary(?c), hasDay(?c, ?d), hasLine(?c, ?l), hasRole(?l, {role}), {rel}(?d, ?l) -> ClashAtCombine(?c)"
      for role in ("RoleShi", "RoleYing") for rel in ("clashes", "harms")],
]

_DATA = {"lineValue", "position", "index", "shiPosition", "yingPosition"}


def _local(iri: str) -> str:
    for base in (ns.LYR, ns.LYO):
        if iri.startswith(base):
            return iri[len(base):]
    raise ValueError(iri)


def reference_facts(store: ox.Store) -> tuple[list[tuple[str, str, object]], list[tuple[str, str]], dict[str, list[str]]]:
    """(subject, predicate, object) facts, (individual, class) memberships and day void branches,
    read from the reference graph (local names)."""
    g = ox.NamedNode(ns.GRAPH_REFERENCE)
    facts = []
    for p, literal in REF_PREDICATES.items():
        for q in store.quads_for_pattern(None, ox.NamedNode(ns.LYO + p), None, g):
            facts.append((_local(q.subject.value), p, int(q.object.value) if literal else _local(q.object.value)))
    members = []
    for cls in REF_CLASSES:
        for q in store.quads_for_pattern(None, ox.NamedNode(ns.RDF + "type"), ox.NamedNode(ns.LYO + cls), g):
            members.append((_local(q.subject.value), cls))
    for q in store.quads_for_pattern(None, ox.NamedNode(ns.RDF + "type"), ox.NamedNode(ns.LYO + "Element"), g):
        members.append((_local(q.subject.value), "Element"))
    # 旬空, precomputed: the two branches after the day's ten-day week (the engine's VoidBranches rule)
    idx = {}
    for p in ("stemIndex", "branchIndex"):
        for q in store.quads_for_pattern(None, ox.NamedNode(ns.LYO + p), None, g):
            idx[_local(q.subject.value)] = int(q.object.value)
    by_index = {v: k for k, v in idx.items() if k.startswith("Branch")}
    gz_parts: dict[str, dict] = {}
    for s, p, o in facts:
        if p in ("stem", "branch") and s.startswith("GZ_"):
            gz_parts.setdefault(s, {})[p] = o
    void = {gz: [by_index[(idx[d["branch"]] - idx[d["stem"]] + k) % 12] for k in (10, 11)] for gz, d in gz_parts.items()}
    return facts, members, void


def cast_facts(i: int, quads: list[ox.Quad]) -> tuple[list, list]:
    """The asserted quads of cast number i as (s, p, o) facts and class memberships, local names
    `c<i>`, `c<i>__line_<n>`, `c<i>__month`, `c<i>__day`, plus one change slot per line."""
    cast_iri = quads[0].graph_name.value

    def name(term):
        v = term.value
        if v.startswith(cast_iri):
            rest = v[len(cast_iri):].strip("/").replace("/", "_")
            return f"c{i}" + (f"__{rest}" if rest else "")
        return _local(v)

    facts, members = [], []
    for q in quads:
        p = _local(q.predicate.value) if q.predicate.value != ns.RDF + "type" else "type"
        if p == "type":
            cls = _local(q.object.value)
            cls = {"MonthPillar": "Endpoint", "DayPillar": "Endpoint", "YearPillar": "Endpoint"}.get(cls, cls)
            members.append((name(q.subject), cls))
            if cls == "Line":
                members.append((name(q.subject), "Endpoint"))
        elif p in _DATA:
            facts.append((name(q.subject), p, int(q.object.value)))
        elif p in ("castId", "topic"):
            continue
        else:
            facts.append((name(q.subject), p, name(q.object)))
    for n in range(1, 7):
        facts.append((f"c{i}__line_{n}", "changeSlot", f"c{i}__change_{n}"))
    return facts, members


def pellet_java() -> str:
    """A Java runtime able to run owlready2's bundled Pellet.

    owlready2 0.51 ships `jena-arq-fixed2.10.0.jar` compiled for Java 25 (class file version 69), so
    Pellet fails on an older default `java` with UnsupportedClassVersionError (HermiT, in the test
    suite, is fine on Java 17). `$PELLET_JAVA` wins; otherwise the newest JVM under /usr/lib/jvm.
    """
    import glob
    import os
    import shutil

    if os.environ.get("PELLET_JAVA"):
        return os.environ["PELLET_JAVA"]

    def version(path: str) -> int:
        m = re.search(r"-(?:1\.)?(\d+)", path.split("/")[-3])  # java-1.17.0-…, temurin-25-jdk-…
        return int(m.group(1)) if m else 0

    candidates = sorted(glob.glob("/usr/lib/jvm/*/bin/java"), key=version)
    return candidates[-1] if candidates else (shutil.which("java") or "java")


class SwrlStack:
    def __init__(self, store: ox.Store):
        import owlready2 as o2

        o2.JAVA_EXE = pellet_java()
        # Pellet's heap (owlready2's default is 2000 MB); `$PELLET_MEMORY_MB` to change it
        o2.reasoning.JAVA_MEMORY = int(os.environ.get("PELLET_MEMORY_MB", "2000"))
        self.ref_facts, self.ref_members, self.void = reference_facts(store)

    def derive(self, casts: list[list[ox.Quad]]) -> tuple[set, dict]:
        """Populate a fresh owlready2 world with the casts, run Pellet, return (facts, timings)."""
        import owlready2 as o2

        t0 = time.perf_counter()
        world = o2.World()
        onto = world.get_ontology("https://w3id.org/liuyao-kg/swrl#")
        facts = list(self.ref_facts)
        members = list(self.ref_members)
        for i, quads in enumerate(casts):
            f, m = cast_facts(i, quads)
            facts += f
            members += m
            for s, p, o in f:
                if p == "stemBranch" and s.endswith("__day"):
                    facts += [(s, "voidBranch", b) for b in self.void[o]]
        with onto:
            classes: dict[str, type] = {}
            props: dict[str, type] = {}

            def cls(n):
                if n not in classes:
                    classes[n] = types.new_class(n, (o2.Thing,))
                return classes[n]

            def prop(n):
                if n not in props:
                    base = o2.DataProperty if n in _DATA else o2.ObjectProperty
                    props[n] = types.new_class(n, (base,))
                return props[n]

            for c in ("Cast", "Line", "Endpoint", "MovingLine", "StaticLine", "ChangedLine", "Element",
                      *REF_CLASSES, *(s.replace("/", "__") for s in LINE_STATES + CAST_STATES)):
                cls(c)
            for p in list(REF_PREDICATES) + ["lineValue", "position", "primaryHexagram", "changedHexagram",
                                            "hasLine", "hasMonth", "hasDay", "inCast", "changeSlot", "hasChange",
                                            "voidBranch", "relative", "hasRole", "sameElement", *RELATIONS]:
                prop(p)
            inds: dict[str, object] = {}

            def ind(n):
                if n not in inds:
                    inds[n] = o2.Thing(n, namespace=onto)
                return inds[n]

            for n in ("Siblings", "Offspring", "Wealth", "Officer", "Parents", "RoleShi", "RoleYing", "Stage_Severance"):
                ind(n)
            for n, c in members:
                ind(n).is_a.append(cls(c))
            for s, p, o in facts:
                if p not in props:  # asserted but read by no SWRL rule (e.g. the cast's question node)
                    continue
                getattr(ind(s), p).append(o if p in _DATA else ind(o))
            for text in RULES:
                o2.Imp(namespace=onto).set_as_rule(text)
        t1 = time.perf_counter()
        o2.sync_reasoner_pellet(world, infer_property_values=True, infer_data_property_values=True, debug=0)
        t2 = time.perf_counter()
        out = extract(inds, len(casts))
        t3 = time.perf_counter()
        return out, {"populate_s": t1 - t0, "pellet_s": t2 - t1, "extract_s": t3 - t2}


_NODE = re.compile(r"^c(\d+)(?:__(line|change)_(\d))?(?:__(month|day))?$")


def _node(name: str):
    m = _NODE.match(name)
    if not m:
        return None
    i, kind, n, pillar = m.groups()
    return int(i), (f"{kind}/{n}" if kind else pillar or "")


def extract(inds: dict, n_casts: int) -> set:
    """The derived facts, as the same normalised tuples `engine_facts` makes from the engine's quads."""
    out = set()
    state_names = {s.replace("/", "__"): s for s in LINE_STATES + CAST_STATES}
    for name, ind in inds.items():
        node = _node(name)
        if node is None:
            continue
        for c in ind.is_a:
            cname = getattr(c, "name", None)
            if cname in state_names:
                out.add((node, "state", state_names[cname]))
            elif cname in ("MovingLine", "StaticLine"):
                out.add((node, "type", cname))
        if node[1].startswith(("line/", "change/")):
            for gz in getattr(ind, "stemBranch", []):
                out.add((node, "stemBranch", gz.name))
            for rel in getattr(ind, "relative", []):
                out.add((node, "relative", rel.name))
            for role in getattr(ind, "hasRole", []):
                out.add((node, "role", role.name))
        for rel in RELATIONS:
            for other in getattr(ind, rel, []):
                o = _node(other.name)
                if o is not None:
                    out.add((node, rel, o[1]))
    return out


def engine_facts(casts: list[list[ox.Quad]], inferred: list[ox.Quad]) -> set:
    """The engine's inferred quads, restricted to what the SWRL rules cover, as normalised tuples."""
    index = {quads[0].graph_name.value: i for i, quads in enumerate(casts)}
    covered = set(LINE_STATES) | set(CAST_STATES)
    endpoint = re.compile(r"^(line/\d|change/\d|month|day)$")

    def node(iri):
        from liuyao_kg.reasoner.engine import cast_of

        cast = cast_of(iri)
        if cast is None or cast not in index:
            return None
        return index[cast], iri[len(cast):].strip("/")

    out = set()
    rdf_type = ns.RDF + "type"
    for q in inferred:
        s, p, o = q.subject.value, q.predicate.value, q.object.value
        sn = node(s)
        if sn is None:
            continue
        if "/state/" in s and p == ns.LYO + "stateOf":
            term = s.split("/state/", 1)[1]
            if term in covered:
                out.add((node(o), "state", term))
        elif p == rdf_type and o in (ns.LYO + "MovingLine", ns.LYO + "StaticLine"):
            out.add((sn, "type", _local(o)))
        elif endpoint.match(sn[1]) and p in (ns.LYO + "stemBranch", ns.LYO + "relative", ns.LYO + "hasRole") \
                and sn[1].startswith(("line/", "change/")):
            if p.endswith("hasRole") and not o.endswith(("RoleShi", "RoleYing")):
                continue
            out.add((sn, {"stemBranch": "stemBranch", "relative": "relative", "hasRole": "role"}[_local(p)], _local(o)))
        elif p in {ns.LYO + r for r in RELATIONS} and endpoint.match(sn[1]):
            on = node(o)
            if on is not None and endpoint.match(on[1]):
                out.add((sn, _local(p), on[1]))
    return out


def engine_rules_for_swrl_facts(engine) -> list:
    """The engine's rules that write a fact the SWRL rules cover, and every rule those depend on.

    The subset is what the engine must run to derive the same facts as Pellet (the benchmark checks
    the two digests are equal), so the ratio between the two compares the same work.
    """
    import networkx as nx

    from liuyao_kg.reasoner.dependencies import _matches

    targets = {("t", ns.LYO + name.split("/")[0], "") for name in LINE_STATES + CAST_STATES}
    targets |= {("t", ns.LYO + "MovingLine", ""), ("t", ns.LYO + "StaticLine", "")}
    targets |= {("p", ns.LYO + p, "") for p in ("stemBranch", "relative", "hasRole", *RELATIONS)}
    writers = {iri for iri, io in engine.plan.ios.items() if any(_matches(w, t) for w in io.writes for t in targets)}
    needed = set(writers)
    for iri in writers:
        needed |= nx.ancestors(engine.plan.graph, iri)
    return [engine.rules[iri] for iri in sorted(needed)]
